// Csr<V, I>: compressed sparse rows. Row r holds entries row_ptrs[r] .. row_ptrs[r+1]-1 of
// col_idxs and values. Columns within a row need not be sorted; duplicates are summed by SpMV.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/plan_cache.hpp"
#include "loom/matrix/sparse_format.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V, typename I = int32>
class Csr : public SparseFormat<Csr<V, I>, V, I> {
public:
    Csr() = default;
    /// Uninitialized arrays for a rows x cols matrix with nnz stored entries.
    Csr(std::shared_ptr<const Executor> exec, dim2 size, size_type nnz = 0);
    /// Takes ownership of the three arrays (moved to exec if they live elsewhere).
    /// validate() is run: BadInput / OutOfRange when they do not form a CSR matrix.
    Csr(std::shared_ptr<const Executor> exec, dim2 size, Array<I> row_ptrs, Array<I> col_idxs,
        Array<V> values);
    /// Deep copy of other, placed on exec.
    Csr(std::shared_ptr<const Executor> exec, const Csr& other);
    /// A validated matrix on exec built from host arrays.
    static Csr from_host(std::shared_ptr<const Executor> exec, dim2 size,
                         const std::vector<I>& row_ptrs, const std::vector<I>& col_idxs,
                         const std::vector<V>& values);

    Csr(const Csr& other) : Csr(other.executor(), other) {}
    Csr(Csr&&) noexcept = default;
    Csr& operator=(const Csr& other) { return this->copy_assign(other); }
    Csr& operator=(Csr&&) noexcept = default;

    size_type nnz() const noexcept { return col_idxs_.size(); }

    /// Non-const access to the pattern drops cached analysis (see plans()).
    Array<I>& row_ptrs() noexcept { plans_.clear(); return row_ptrs_; }
    Array<I>& col_idxs() noexcept { plans_.clear(); return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<I>& row_ptrs() const noexcept { return row_ptrs_; }
    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Checks the structure: row_ptrs monotone from 0 to nnz, every column in [0, cols).
    /// BadInput / OutOfRange naming the first offending row and entry.
    void validate() const;

    /// Analysis that kernels cache per matrix (e.g. SpMV's load-balancing partition),
    /// one slot per plan type; dropped whenever the pattern is accessed for writing.
    PlanCache& plans() const noexcept { return plans_; }

private:
    Array<I> row_ptrs_;
    Array<I> col_idxs_;
    Array<V> values_;
    mutable PlanCache plans_;
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
