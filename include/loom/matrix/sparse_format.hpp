// SparseFormat<Derived, V, I>: what every stored sparse format (Coo, Csr, Ell, Sellp, Stencil)
// has by being one: its value and index types, rows() and cols(), LinOp::apply through
// sparse::spmv, and the copy assignment that keeps the destination's executor. Derived
// declares its storage, its constructors and its copy (Derived(exec, other)); the rest is here
// once.
#pragma once

#include <memory>
#include <utility>

#include "loom/base/linop.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V>
class Dense;

template <typename Derived, typename V, typename I>
class SparseFormat : public LinOp<V> {
public:
    using value_type = V;
    using index_type = I;

    size_type rows() const noexcept { return this->size().rows; }
    size_type cols() const noexcept { return this->size().cols; }

protected:
    SparseFormat() = default;
    SparseFormat(std::shared_ptr<const Executor> exec, dim2 size) : LinOp<V>(std::move(exec), size)
    {}

    /// x = alpha A b + beta x by sparse::spmv (defined in src/matrix/sparse_format.hpp).
    void apply_impl(const Dense<V>& b, Dense<V>& x) const override;
    void apply_impl(V alpha, const Dense<V>& b, V beta, Dense<V>& x) const override;

    /// Copy assignment: other's entries on this matrix's executor (other's when it has none),
    /// through Derived(exec, other).
    Derived& copy_assign(const Derived& other)
    {
        auto& self = static_cast<Derived&>(*this);
        if (&self != &other) {
            self = Derived(this->executor() ? this->executor() : other.executor(), other);
        }
        return self;
    }
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
