#include "loom/base/error.hpp"

namespace loom {

std::string to_string(dim2 size)
{
    return std::to_string(size.rows) + "x" + std::to_string(size.cols);
}

DimensionMismatch::DimensionMismatch(const std::string& where, const std::string& first_name,
                                     dim2 first, const std::string& second_name, dim2 second,
                                     const std::string& what)
    : Error(where, first_name + " is " + to_string(first) + " but " + second_name + " is " +
                       to_string(second) + (what.empty() ? "" : ": " + what))
{}

OutOfRange::OutOfRange(const std::string& where, const std::string& what, size_type index,
                       size_type bound)
    : Error(where, what + " " + std::to_string(index) + " is outside [0, " +
                       std::to_string(bound) + ")")
{}

}  // namespace loom
