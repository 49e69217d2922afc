// Dense<V>: a row-major matrix with a row stride; with k columns it is a multi-vector
// of k right-hand sides. Owns its values or views somebody else's.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/linop.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V>
class Dense : public LinOp<V> {
public:
    using value_type = V;

    Dense() = default;
    /// Uninitialized rows x cols matrix on exec; stride 0 means stride = cols.
    Dense(std::shared_ptr<const Executor> exec, dim2 size, size_type stride = 0);
    /// Deep copy of other, placed on exec, keeping its stride.
    Dense(std::shared_ptr<const Executor> exec, const Dense& other);
    /// A matrix on exec holding host values given row by row (size.rows * size.cols of them).
    static Dense from_host(std::shared_ptr<const Executor> exec, dim2 size,
                           const std::vector<V>& row_major);
    /// Non-owning view of memory on exec; `keep_alive` (the memory's owner, may be empty) is
    /// held while the memory is viewed (see Array::view).
    static Dense view(std::shared_ptr<const Executor> exec, dim2 size, size_type stride, V* data,
                      std::shared_ptr<const void> keep_alive = {});

    Dense(const Dense& other);
    Dense(Dense&& other) noexcept = default;
    /// Copies values; this keeps its executor. A view keeps viewing (sizes must match).
    Dense& operator=(const Dense& other);
    Dense& operator=(Dense&& other) noexcept = default;

    size_type rows() const noexcept { return this->size().rows; }
    size_type cols() const noexcept { return this->size().cols; }
    size_type stride() const noexcept { return stride_; }
    V* data() noexcept { return values_.data(); }
    const V* data() const noexcept { return values_.data(); }
    Array<V>& values() noexcept { return values_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Views of columns [first, first + count) and of one column.
    Dense columns(size_type first, size_type count);
    Dense column(size_type j) { return columns(j, 1); }
    /// Views of rows [first, first + count).
    Dense rows_view(size_type first, size_type count);

    /// Host element access (the matrix must live on a host executor).
    V& at(size_type r, size_type c) noexcept { return data()[r * stride_ + c]; }
    const V& at(size_type r, size_type c) const noexcept { return data()[r * stride_ + c]; }

    void fill(const V& value);
    /// Packed row-major copy on the host.
    std::vector<V> to_host() const;

protected:
    void apply_impl(const Dense& b, Dense& x) const override;
    void apply_impl(V alpha, const Dense& b, V beta, Dense& x) const override;

private:
    size_type stride_ = 0;
    Array<V> values_;
};

/// Number of elements a rows x cols block with this stride spans.
constexpr size_type dense_span(dim2 size, size_type stride)
{
    return size.rows == 0 || size.cols == 0 ? 0 : (size.rows - 1) * stride + size.cols;
}

}  // namespace loom::matrix

LOOM_PUBLIC_END
