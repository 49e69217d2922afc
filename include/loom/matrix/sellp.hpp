// Sellp<V, I>: sliced ELLPACK with padding (SELL-P). Rows are grouped into slices of
// `slice_size` consecutive rows; slice s is slice_lengths[s] slots wide (its longest row,
// rounded up to a multiple of stride_factor) and starts at slot column slice_sets[s].
// Slot k of row r (slice s = r / slice_size) sits at
//     (slice_sets[s] + k) * slice_size + r % slice_size.
// Unused slots have column invalid_index and value 0. slice_sets has num_slices + 1 entries,
// the last one being the total number of slot columns (so slots() = slice_sets[last] * slice_size).
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sparse_format.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V, typename I = int32>
class Sellp : public SparseFormat<Sellp<V, I>, V, I> {
public:
    static constexpr size_type default_slice_size = 32;
    static constexpr size_type default_stride_factor = 1;

    Sellp() = default;
    /// Uninitialized storage for total_cols slot columns (sum of slice lengths).
    Sellp(std::shared_ptr<const Executor> exec, dim2 size, size_type total_cols,
          size_type slice_size = default_slice_size,
          size_type stride_factor = default_stride_factor);
    Sellp(std::shared_ptr<const Executor> exec, const Sellp& other);
    Sellp(const Sellp& other) : Sellp(other.executor(), other) {}
    Sellp(Sellp&&) noexcept = default;
    Sellp& operator=(const Sellp& other) { return this->copy_assign(other); }
    Sellp& operator=(Sellp&&) noexcept = default;

    size_type slice_size() const noexcept { return slice_size_; }
    size_type stride_factor() const noexcept { return stride_factor_; }
    size_type num_slices() const noexcept { return slice_lengths_.size(); }
    /// Stored slots including padding.
    size_type slots() const noexcept { return values_.size(); }
    Array<I>& slice_lengths() noexcept { return slice_lengths_; }
    Array<I>& slice_sets() noexcept { return slice_sets_; }
    Array<I>& col_idxs() noexcept { return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<I>& slice_lengths() const noexcept { return slice_lengths_; }
    const Array<I>& slice_sets() const noexcept { return slice_sets_; }
    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Checks array sizes, that slice_sets is the prefix sum of slice_lengths and that
    /// lengths are multiples of stride_factor (BadInput), and that every slot of a row holds
    /// a column in [0, cols) or invalid_index (OutOfRange naming the slot and row).
    void validate() const;

private:
    size_type slice_size_ = default_slice_size;
    size_type stride_factor_ = default_stride_factor;
    Array<I> slice_lengths_;
    Array<I> slice_sets_;
    Array<I> col_idxs_;
    Array<V> values_;
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
