// BatchDense<V>: batch_count dense matrices of one size, stored one after the other (the
// batch index outermost), each row-major with a row stride; consecutive matrices start
// batch_stride elements apart. Owns its values or views somebody else's. This is the storage
// the front-level batched calls (loom/batched/front.hpp) take.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V>
class BatchDense {
public:
    using value_type = V;

    BatchDense() = default;
    /// Uninitialized batch of `count` matrices of `size`. stride 0 means cols; batch_stride 0
    /// means rows * stride. BadInput when a stride would make rows or matrices overlap.
    BatchDense(std::shared_ptr<const Executor> exec, size_type count, dim2 size,
               size_type stride = 0, size_type batch_stride = 0);
    /// Deep copy of other placed on exec (any executor), keeping its strides.
    BatchDense(std::shared_ptr<const Executor> exec, const BatchDense& other);
    /// A packed batch on exec from host values: matrix after matrix, each row by row.
    static BatchDense from_host(std::shared_ptr<const Executor> exec, size_type count, dim2 size,
                                const std::vector<V>& values);
    /// Non-owning view of memory on exec.
    static BatchDense view(std::shared_ptr<const Executor> exec, size_type count, dim2 size,
                           size_type stride, size_type batch_stride, V* data);

    BatchDense(const BatchDense& other);
    BatchDense(BatchDense&& other) noexcept = default;
    /// Copies values (from any executor); this keeps its executor. A view keeps viewing (the
    /// shapes must match); an owning batch takes other's shape.
    BatchDense& operator=(const BatchDense& other);
    BatchDense& operator=(BatchDense&& other) noexcept = default;

    const std::shared_ptr<const Executor>& executor() const noexcept { return values_.executor(); }
    size_type batch_count() const noexcept { return count_; }
    /// Size of each matrix.
    dim2 size() const noexcept { return size_; }
    size_type rows() const noexcept { return size_.rows; }
    size_type cols() const noexcept { return size_.cols; }
    size_type stride() const noexcept { return stride_; }
    size_type batch_stride() const noexcept { return batch_stride_; }
    /// Whether the matrices fill their storage without gaps (stride = cols, batch stride =
    /// rows * cols).
    bool is_packed() const noexcept
    {
        return stride_ == size_.cols && batch_stride_ == size_.rows * size_.cols;
    }

    V* data() noexcept { return values_.data(); }
    const V* data() const noexcept { return values_.data(); }
    Array<V>& values() noexcept { return values_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Matrix b as a Dense view (OutOfRange for a bad b).
    Dense<V> item(size_type b);
    const Dense<V> item(size_type b) const;
    /// Matrices [first, first + count) as a batch view.
    BatchDense items(size_type first, size_type count);

    /// Host element access (the batch must live on a host executor).
    V& at(size_type b, size_type i, size_type j) noexcept
    {
        return data()[b * batch_stride_ + i * stride_ + j];
    }
    const V& at(size_type b, size_type i, size_type j) const noexcept
    {
        return data()[b * batch_stride_ + i * stride_ + j];
    }

    /// Sets every entry of every matrix (padding between rows and matrices is not touched).
    void fill(const V& value);
    /// The values packed on the host: matrix after matrix, row by row.
    std::vector<V> to_host() const;

private:
    size_type count_ = 0;
    dim2 size_{};
    size_type stride_ = 0;
    size_type batch_stride_ = 0;
    Array<V> values_;
};

/// Elements a batch with these strides spans.
constexpr size_type batch_span(size_type count, dim2 size, size_type stride,
                               size_type batch_stride)
{
    return count == 0 || size.rows == 0 || size.cols == 0
               ? 0
               : (count - 1) * batch_stride + dense_span(size, stride);
}

}  // namespace loom::matrix

LOOM_PUBLIC_END
