// Ell<V, I>: ELLPACK. Every row holds `width` slots (the longest row's length); slot k of
// row r sits at k * stride + r (column-major, so that consecutive rows are adjacent in
// memory for coalesced GPU access). Unused slots have column `invalid_index` and value 0.
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/matrix/sparse_format.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

/// Column index of a padding slot in Ell and Sellp.
inline constexpr int invalid_index = -1;

template <typename V, typename I = int32>
class Ell : public SparseFormat<Ell<V, I>, V, I> {
public:
    Ell() = default;
    /// Uninitialized storage; stride 0 means stride = rows.
    Ell(std::shared_ptr<const Executor> exec, dim2 size, size_type width, size_type stride = 0);
    Ell(std::shared_ptr<const Executor> exec, const Ell& other);
    Ell(const Ell& other) : Ell(other.executor(), other) {}
    Ell(Ell&&) noexcept = default;
    Ell& operator=(const Ell& other) { return this->copy_assign(other); }
    Ell& operator=(Ell&&) noexcept = default;

    size_type width() const noexcept { return width_; }
    size_type stride() const noexcept { return stride_; }
    /// Stored slots including padding (width * stride).
    size_type slots() const noexcept { return values_.size(); }
    Array<I>& col_idxs() noexcept { return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Checks array sizes (BadInput) and that every slot of a row holds a column in
    /// [0, cols) or invalid_index (OutOfRange naming the slot and row).
    void validate() const;

private:
    size_type width_ = 0;
    size_type stride_ = 0;
    Array<I> col_idxs_;
    Array<V> values_;
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
