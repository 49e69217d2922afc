// The system matrix a Csr-based operator (a preconditioner, a triangular solver, multigrid)
// accepts, checked and brought to the operator's executor once for all of them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <typeinfo>

#include "log/demangle.hpp"
#include "loom/base/error.hpp"
#include "loom/base/linop.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::precond::detail {

/// `system` as a square matrix::Csr<V, I> in exec's memory: the caller's matrix when it lives
/// there, else a copy. BadInput when null, NotSupported naming the type of any other operator,
/// DimensionMismatch when not square. `where` is the class asking ("loom::precond::Jacobi");
/// messages name it by its last component.
template <typename V, typename I>
std::shared_ptr<const matrix::Csr<V, I>> square_csr_system(
    const char* where, const std::shared_ptr<const LinOp<V>>& system,
    const std::shared_ptr<const Executor>& exec)
{
    const std::string_view qualified(where);
    const std::string name(qualified.substr(qualified.rfind(':') + 1));
    if (!system) throw BadInput(where, "the system matrix is null");
    auto csr = std::dynamic_pointer_cast<const matrix::Csr<V, I>>(system);
    if (csr == nullptr) {
        const auto& op = *system;
        throw NotSupported(where, name + "<" + type_name<V>() + ", " + type_name<I>() +
                                      "> needs a matrix::Csr<" + type_name<V>() + ", " +
                                      type_name<I>() + "> system matrix; got " +
                                      loom::detail::demangle(typeid(op)));
    }
    if (csr->rows() != csr->cols()) {
        throw DimensionMismatch(where, "the system matrix is " + to_string(csr->size()) + "; " +
                                           name + " needs a square one");
    }
    if (!csr->executor()->same_memory_as(*exec)) {
        csr = std::make_shared<const matrix::Csr<V, I>>(exec, *csr);
    }
    return csr;
}

}  // namespace loom::precond::detail
