#include "log/demangle.hpp"

#include <cstdlib>
#include <memory>

#if defined(__GNUG__) || defined(__clang__)
#include <cxxabi.h>
#endif

namespace loom::detail {

std::string demangle(const std::type_info& type)
{
#if defined(__GNUG__) || defined(__clang__)
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> name(
        abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), &std::free);
    if (status == 0 && name) return name.get();
#endif
    return type.name();
}

}  // namespace loom::detail
