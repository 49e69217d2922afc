#include "loom/blas/types.hpp"

namespace loom::blas {

Op parse_op(const std::string& text) { return names_of(Op{}).parse(text, "loom::blas::parse_op"); }

const char* to_string(Op op) { return names_of(op).to_string(op); }

Backend parse_backend(const std::string& text)
{
    return names_of(Backend{}).parse(text, "loom::blas::parse_backend");
}

const char* to_string(Backend backend) { return names_of(backend).to_string(backend); }
const char* to_string(Side side) { return names_of(side).to_string(side); }
const char* to_string(Uplo uplo) { return names_of(uplo).to_string(uplo); }
const char* to_string(Diag diag) { return names_of(diag).to_string(diag); }

}  // namespace loom::blas
