#include "loom/base/error.hpp"

#include <cstdio>

#include "loom/base/resources.hpp"

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

namespace {

std::string decimal(double value, const char* unit)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g %s", value, unit);
    return text;
}

}  // namespace

std::string bytes_text(std::size_t bytes)
{
    const double b = static_cast<double>(bytes);
    if (b >= 1e9) return decimal(b / 1e9, "GB");
    if (b >= 1e6) return decimal(b / 1e6, "MB");
    if (b >= 1e3) return decimal(b / 1e3, "kB");
    return std::to_string(bytes) + " B";
}

OutOfMemory::OutOfMemory(const std::string& where, const std::string& memory,
                         std::size_t needed, std::size_t free)
    : AllocationError(where, "out of memory: needed " + bytes_text(needed) + " (" +
                                 std::to_string(needed) + " bytes) of " + memory + ", " +
                                 bytes_text(free) + " free"),
      needed_(needed),
      free_(free)
{}

}  // namespace loom
