#include "bench/spmv_matrix.hpp"

namespace loom::bench {

SpmvFormat parse_spmv_format(const std::string& text)
{
    if (text == "auto" || text == "automatic") return SpmvFormat::automatic;
    if (text == "csr") return SpmvFormat::csr;
    if (text == "coo") return SpmvFormat::coo;
    if (text == "ell") return SpmvFormat::ell;
    if (text == "sellp") return SpmvFormat::sellp;
    throw BadInput("loom::bench::parse_spmv_format",
                   "unknown format '" + text + "' (expected auto, csr, coo, ell or sellp)");
}

const char* to_string(SpmvFormat format)
{
    switch (format) {
    case SpmvFormat::csr: return "csr";
    case SpmvFormat::coo: return "coo";
    case SpmvFormat::ell: return "ell";
    case SpmvFormat::sellp: return "sellp";
    default: return "auto";
    }
}

}  // namespace loom::bench
