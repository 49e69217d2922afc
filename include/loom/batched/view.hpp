// Strided matrix and vector views for the batched routines: a pointer plus extents and
// strides, cheap to copy into a kernel and usable in device code. A view never owns memory.
#pragma once

#include <type_traits>

#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::batched {

template <typename T>
class VectorView;

/// A rows × cols matrix whose element (i, j) is data[i * row_stride + j * col_stride].
/// Row-major storage has col_stride 1, column-major row_stride 1; a transposed view swaps the
/// two. T may be const for inputs. Extents are int (batched matrices are small); strides are
/// 64-bit, so a view may sit inside a large array.
template <typename T>
class View {
public:
    using value_type = std::remove_const_t<T>;

    View() = default;
    /// Contiguous row-major rows × cols.
    LOOM_HOST_DEVICE View(T* data, int rows, int cols)
        : View(data, rows, cols, cols, 1)
    {}
    LOOM_HOST_DEVICE View(T* data, int rows, int cols, size_type row_stride, size_type col_stride)
        : data_(data), rows_(rows), cols_(cols), row_stride_(row_stride), col_stride_(col_stride)
    {}
    /// A view of non-const values converts to a view of const ones.
    template <typename U>
        requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
    LOOM_HOST_DEVICE View(const View<U>& other)
        : View(other.data(), other.rows(), other.cols(), other.row_stride(), other.col_stride())
    {}

    LOOM_HOST_DEVICE LOOM_INLINE T& operator()(int i, int j) const
    {
        return data_[i * row_stride_ + j * col_stride_];
    }

    LOOM_HOST_DEVICE T* data() const { return data_; }
    LOOM_HOST_DEVICE int rows() const { return rows_; }
    LOOM_HOST_DEVICE int cols() const { return cols_; }
    LOOM_HOST_DEVICE size_type row_stride() const { return row_stride_; }
    LOOM_HOST_DEVICE size_type col_stride() const { return col_stride_; }

    /// The rows × cols block whose top-left element is (i, j).
    LOOM_HOST_DEVICE View sub(int i, int j, int rows, int cols) const
    {
        return {data_ + i * row_stride_ + j * col_stride_, rows, cols, row_stride_, col_stride_};
    }
    LOOM_HOST_DEVICE View transposed() const
    {
        return {data_, cols_, rows_, col_stride_, row_stride_};
    }
    LOOM_HOST_DEVICE VectorView<T> row(int i) const
    {
        return {data_ + i * row_stride_, cols_, col_stride_};
    }
    LOOM_HOST_DEVICE VectorView<T> col(int j) const
    {
        return {data_ + j * col_stride_, rows_, row_stride_};
    }
    LOOM_HOST_DEVICE VectorView<T> diag() const
    {
        return {data_, rows_ < cols_ ? rows_ : cols_, row_stride_ + col_stride_};
    }

private:
    T* data_ = nullptr;
    int rows_ = 0;
    int cols_ = 0;
    size_type row_stride_ = 0;
    size_type col_stride_ = 0;
};

/// size elements data[0], data[stride], ...; T may be const.
template <typename T>
class VectorView {
public:
    using value_type = std::remove_const_t<T>;

    VectorView() = default;
    LOOM_HOST_DEVICE VectorView(T* data, int size, size_type stride = 1)
        : data_(data), size_(size), stride_(stride)
    {}
    template <typename U>
        requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
    LOOM_HOST_DEVICE VectorView(const VectorView<U>& other)
        : VectorView(other.data(), other.size(), other.stride())
    {}

    LOOM_HOST_DEVICE LOOM_INLINE T& operator()(int i) const { return data_[i * stride_]; }

    LOOM_HOST_DEVICE T* data() const { return data_; }
    LOOM_HOST_DEVICE int size() const { return size_; }
    LOOM_HOST_DEVICE size_type stride() const { return stride_; }

    LOOM_HOST_DEVICE VectorView sub(int i, int size) const
    {
        return {data_ + i * stride_, size, stride_};
    }
    /// The vector as a size × 1 matrix (a single right-hand side).
    LOOM_HOST_DEVICE View<T> as_column() const { return {data_, size_, 1, stride_, 1}; }

private:
    T* data_ = nullptr;
    int size_ = 0;
    size_type stride_ = 0;
};

}  // namespace loom::batched
