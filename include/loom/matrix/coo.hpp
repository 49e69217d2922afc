// Coo<V, I>: coordinate format, one (row, col, value) triple per stored entry, in any order;
// duplicate entries are allowed and are summed by every kernel that reads them.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/matrix/sparse_format.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V, typename I = int32>
class Coo : public SparseFormat<Coo<V, I>, V, I> {
public:
    Coo() = default;
    Coo(std::shared_ptr<const Executor> exec, dim2 size, size_type nnz = 0);
    /// Takes the arrays (moved to exec if needed) and validates indices.
    Coo(std::shared_ptr<const Executor> exec, dim2 size, Array<I> row_idxs, Array<I> col_idxs,
        Array<V> values);
    Coo(std::shared_ptr<const Executor> exec, const Coo& other);
    static Coo from_host(std::shared_ptr<const Executor> exec, dim2 size,
                         const std::vector<I>& row_idxs, const std::vector<I>& col_idxs,
                         const std::vector<V>& values);
    Coo(const Coo& other) : Coo(other.executor(), other) {}
    Coo(Coo&&) noexcept = default;
    Coo& operator=(const Coo& other) { return this->copy_assign(other); }
    Coo& operator=(Coo&&) noexcept = default;

    size_type nnz() const noexcept { return values_.size(); }
    Array<I>& row_idxs() noexcept { return row_idxs_; }
    Array<I>& col_idxs() noexcept { return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<I>& row_idxs() const noexcept { return row_idxs_; }
    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    const Array<V>& values() const noexcept { return values_; }

    /// OutOfRange naming the first entry whose row or column is outside the matrix.
    void validate() const;

private:
    Array<I> row_idxs_;
    Array<I> col_idxs_;
    Array<V> values_;
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
