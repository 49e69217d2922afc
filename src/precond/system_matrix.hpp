// The system matrix a Csr-based preconditioner's factory accepts, checked once for all of them.
#pragma once

#include <memory>
#include <string>
#include <typeinfo>

#include "log/demangle.hpp"
#include "loom/base/error.hpp"
#include "loom/base/linop.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::precond::detail {

/// `system` as a square matrix::Csr<V, I>. BadInput when null, NotSupported naming the type of
/// any other operator (`preconditioner` names the class asking, e.g. "Jacobi"),
/// DimensionMismatch when not square.
template <typename V, typename I>
std::shared_ptr<const matrix::Csr<V, I>> square_csr_system(const char* where,
                                                           const std::string& preconditioner,
                                                           std::shared_ptr<const LinOp<V>> system)
{
    if (!system) throw BadInput(where, "the system matrix is null");
    auto csr = std::dynamic_pointer_cast<const matrix::Csr<V, I>>(system);
    if (csr == nullptr) {
        const auto& op = *system;
        throw NotSupported(where, preconditioner + "<" + type_name<V>() + ", " + type_name<I>() +
                                      "> needs a matrix::Csr<" + type_name<V>() + ", " +
                                      type_name<I>() + "> system matrix; got " +
                                      loom::detail::demangle(typeid(op)));
    }
    if (csr->rows() != csr->cols()) {
        throw DimensionMismatch(where, "the system matrix is " + to_string(csr->size()) +
                                           "; a preconditioner needs a square one");
    }
    return csr;
}

}  // namespace loom::precond::detail
