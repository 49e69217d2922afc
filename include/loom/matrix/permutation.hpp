// Permutation<I>: a reordering of n indices, as the n x n matrix P with P(k, perm[k]) = 1.
// Applied to a vector, (P x)[k] = x[perm[k]]; to a matrix, P A P^T renumbers rows and columns
// alike (B(k, l) = A(perm[k], perm[l])), the form that reorderings such as RCM produce.
// Everything runs on the permutation's executor; operands must live in its memory.
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename I = int32>
class Permutation {
public:
    using index_type = I;

    Permutation() = default;
    /// Takes perm (moved to exec if it lives elsewhere). BadInput unless it holds each of
    /// 0 .. perm.size() - 1 exactly once.
    Permutation(std::shared_ptr<const Executor> exec, Array<I> perm);

    size_type size() const noexcept { return perm_.size(); }
    const std::shared_ptr<const Executor>& executor() const noexcept { return perm_.executor(); }
    /// perm[k]: the original index of what becomes index k.
    const Array<I>& indices() const noexcept { return perm_; }
    /// P^-1 = P^T: inverse.indices()[perm[k]] = k.
    Permutation inverse() const;

    /// y = P x: row k of y is row perm[k] of x, for every column. x and y are size() rows of
    /// the same number of columns, and must not overlap.
    template <typename V>
    LOOM_EXPORT void apply(const Dense<V>& x, Dense<V>& y) const;
    template <typename V>
    LOOM_EXPORT Dense<V> apply(const Dense<V>& x) const;

    /// P A P^T (A square), columns sorted within rows, duplicates kept in A's order.
    template <typename V>
    LOOM_EXPORT Csr<V, I> permute(const Csr<V, I>& A) const;
    /// P A: row k is row perm[k] of A, entries in A's order (A has size() rows).
    template <typename V>
    LOOM_EXPORT Csr<V, I> permute_rows(const Csr<V, I>& A) const;
    /// A P^T: column perm[l] of A becomes column l, columns sorted within rows (A has size()
    /// columns).
    template <typename V>
    LOOM_EXPORT Csr<V, I> permute_columns(const Csr<V, I>& A) const;

private:
    Permutation(Array<I> perm, Array<I> inverse)
        : perm_(std::move(perm)), inverse_(std::move(inverse))
    {}

    Array<I> perm_;
    Array<I> inverse_;
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
