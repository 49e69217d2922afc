#include "bench/spmv_matrix.hpp"

namespace loom::bench {

SpmvFormat parse_spmv_format(const std::string& text)
{
    return names_of(SpmvFormat{}).parse(text, "loom::bench::parse_spmv_format");
}

}  // namespace loom::bench
