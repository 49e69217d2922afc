// The definitions of SparseFormat's apply: each format's source includes this and
// instantiates SparseFormat<Format<V, I>, V, I> next to the format.
#pragma once

#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/sparse_format.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::matrix {

template <typename Derived, typename V, typename I>
void SparseFormat<Derived, V, I>::apply_impl(const Dense<V>& b, Dense<V>& x) const
{
    apply_impl(V{1}, b, V{0}, x);
}

template <typename Derived, typename V, typename I>
void SparseFormat<Derived, V, I>::apply_impl(V alpha, const Dense<V>& b, V beta, Dense<V>& x) const
{
    if constexpr (is_storage_only_v<V>) {
        // SpMV has no 16-bit kernels; sparse::spmm takes these with float scalars.
        throw NotSupported("loom::matrix::apply",
                           "a sparse matrix of a 16-bit storage type is applied by "
                           "loom::sparse::spmm (or converted to float first, "
                           "loom/matrix/precision.hpp)");
    } else {
        sparse::spmv(sparse::Mode::none, alpha, static_cast<const Derived&>(*this), b, beta, x);
    }
}

}  // namespace loom::matrix
