#include "bench/spmv_matrix.hpp"

namespace loom::bench {

SpmvFormat parse_spmv_format(const std::string& text)
{
    return names_of(SpmvFormat{}).parse(text, "loom::bench::parse_spmv_format");
}

const char* to_string(SpmvFormat format) { return names_of(format).to_string(format); }

}  // namespace loom::bench
