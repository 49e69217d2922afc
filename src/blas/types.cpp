#include "loom/blas/types.hpp"

namespace loom::blas {

Op parse_op(const std::string& text) { return names_of(Op{}).parse(text, "loom::blas::parse_op"); }

Backend parse_backend(const std::string& text)
{
    return names_of(Backend{}).parse(text, "loom::blas::parse_backend");
}

}  // namespace loom::blas
