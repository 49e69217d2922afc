// Readable C++ type names for messages and logs.
#pragma once

#include <string>
#include <typeinfo>

namespace loom::detail {

/// "loom::matrix::Csr<double, int>" for typeid(Csr<double, int32>).
std::string demangle(const std::type_info& type);

}  // namespace loom::detail
