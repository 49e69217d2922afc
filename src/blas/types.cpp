#include "loom/blas/types.hpp"

#include "loom/base/error.hpp"

namespace loom::blas {

Op parse_op(const std::string& text)
{
    if (text == "n" || text == "none") return Op::none;
    if (text == "t" || text == "transpose") return Op::transpose;
    if (text == "h" || text == "c" || text == "conj_transpose") return Op::conj_transpose;
    throw BadInput("loom::blas::parse_op", "unknown operation '" + text + "' (expected n, t or h)");
}

const char* to_string(Op op)
{
    switch (op) {
    case Op::transpose: return "transpose";
    case Op::conj_transpose: return "conj_transpose";
    default: return "none";
    }
}

Backend parse_backend(const std::string& text)
{
    if (text == "auto" || text == "automatic") return Backend::automatic;
    if (text == "native") return Backend::native;
    if (text == "vendor") return Backend::vendor;
    throw BadInput("loom::blas::parse_backend",
                   "unknown backend '" + text + "' (expected auto, native or vendor)");
}

const char* to_string(Backend backend)
{
    switch (backend) {
    case Backend::native: return "native";
    case Backend::vendor: return "vendor";
    default: return "automatic";
    }
}

}  // namespace loom::blas
