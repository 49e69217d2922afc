// Shared-pattern batches: BatchCsr and BatchEll hold count matrices of one size and one
// sparsity pattern, with a value set per matrix. The pattern is stored once; the value sets
// follow each other (matrix b's values start at b * nnz, in the pattern's order), so a team
// that reads the pattern once can serve every value set, and one matrix's values are
// contiguous for the team that works on it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V, typename I = int32>
class BatchCsr {
public:
    using value_type = V;
    using index_type = I;

    BatchCsr() = default;
    /// Takes the arrays (moved to exec if they live elsewhere). row_ptrs has rows + 1 entries,
    /// col_idxs nnz, values count * nnz. BadInput / OutOfRange when they do not form a batch.
    BatchCsr(std::shared_ptr<const Executor> exec, size_type count, dim2 size, Array<I> row_ptrs,
             Array<I> col_idxs, Array<V> values);
    /// count copies of A (pattern and values).
    static BatchCsr replicate(std::shared_ptr<const Executor> exec,
                                          const Csr<V, I>& A, size_type count);
    /// The pattern of A with count value sets: values holds count * A.nnz() entries, set
    /// after set, each in A's entry order (BadInput otherwise).
    static BatchCsr with_values(std::shared_ptr<const Executor> exec, const Csr<V, I>& A,
                                size_type count, Array<V> values);
    /// Matrices of one pattern; BadInput naming the first entry whose size or pattern differs.
    static BatchCsr from_list(std::shared_ptr<const Executor> exec,
                                          const std::vector<Csr<V, I>>& list);

    const std::shared_ptr<const Executor>& executor() const noexcept { return values_.executor(); }
    size_type batch_count() const noexcept { return count_; }
    dim2 size() const noexcept { return size_; }
    size_type rows() const noexcept { return size_.rows; }
    size_type cols() const noexcept { return size_.cols; }
    size_type nnz() const noexcept { return col_idxs_.size(); }

    const Array<I>& row_ptrs() const noexcept { return row_ptrs_; }
    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Matrix b as a Csr (a copy on the batch's executor); OutOfRange for a bad b.
    Csr<V, I> item(size_type b) const;

private:
    size_type count_ = 0;
    dim2 size_{};
    Array<I> row_ptrs_;
    Array<I> col_idxs_;
    Array<V> values_;
};

/// The ELL form of a shared-pattern batch: width slots per row, slot s of row r at
/// s * rows + r (column-major, so consecutive rows are consecutive in memory), unused slots
/// with column invalid_index (-1) and value 0. Matrix b's values start at b * width * rows.
template <typename V, typename I = int32>
class BatchEll {
public:
    using value_type = V;
    using index_type = I;

    BatchEll() = default;
    /// The batch A in ELL form with the width of A's longest row.
    explicit BatchEll(const BatchCsr<V, I>& A);

    const std::shared_ptr<const Executor>& executor() const noexcept { return values_.executor(); }
    size_type batch_count() const noexcept { return count_; }
    dim2 size() const noexcept { return size_; }
    size_type rows() const noexcept { return size_.rows; }
    size_type cols() const noexcept { return size_.cols; }
    size_type width() const noexcept { return width_; }

    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<V>& values() const noexcept { return values_; }

private:
    size_type count_ = 0;
    dim2 size_{};
    size_type width_ = 0;
    Array<I> col_idxs_;
    Array<V> values_;
};

/// count symmetric positive definite matrices of one 7-point pattern on an nx x ny x nz grid
/// (3D Poisson-like): each off-diagonal pair -(1 + u), the diagonal the sum of its row's
/// off-diagonal magnitudes plus a shift 10^(-3 v), u and v in [0, 1) drawn per matrix and
/// entry from seed, so that coefficients and conditioning vary across the batch.
template <typename V, typename I = int32>
LOOM_EXPORT BatchCsr<V, I> poisson_batch(std::shared_ptr<const Executor> exec, size_type count,
                                         size_type nx, size_type ny, size_type nz,
                                         std::uint64_t seed = 1);

}  // namespace loom::matrix

LOOM_PUBLIC_END
