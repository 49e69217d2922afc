#include "loom/matrix/batch_dense.hpp"

#include <string>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"

namespace loom::matrix {
namespace {

constexpr const char* where = "loom::matrix::BatchDense";

void check_shape(size_type count, dim2 size, size_type stride, size_type batch_stride)
{
    if (count < 0 || size.rows < 0 || size.cols < 0) {
        throw BadInput(where, "negative batch count or size (" + std::to_string(count) + " x " +
                                  to_string(size) + ")");
    }
    if (stride < size.cols) {
        throw BadInput(where, "stride " + std::to_string(stride) +
                                  " is smaller than the column count " + std::to_string(size.cols));
    }
    if (count > 1 && batch_stride < dense_span(size, stride)) {
        throw BadInput(where, "batch stride " + std::to_string(batch_stride) +
                                  " makes consecutive " + to_string(size) + " matrices overlap");
    }
}

/// The whole batch as one Dense of count * rows rows, when the rows of consecutive matrices
/// follow each other at the row stride.
template <typename V>
bool is_one_dense(const BatchDense<V>& batch)
{
    return batch.batch_stride() == batch.rows() * batch.stride();
}

}  // namespace

template <typename V>
BatchDense<V>::BatchDense(std::shared_ptr<const Executor> exec, size_type count, dim2 size,
                          size_type stride, size_type batch_stride)
    : count_(count), size_(size), stride_(stride == 0 ? size.cols : stride)
{
    batch_stride_ = batch_stride == 0 ? size.rows * stride_ : batch_stride;
    check_shape(count_, size_, stride_, batch_stride_);
    values_ = Array<V>(std::move(exec), batch_span(count_, size_, stride_, batch_stride_));
}

template <typename V>
BatchDense<V>::BatchDense(std::shared_ptr<const Executor> exec, const BatchDense& other)
    : count_(other.count_), size_(other.size_), stride_(other.stride_),
      batch_stride_(other.batch_stride_), values_(std::move(exec), other.values_)
{}

template <typename V>
BatchDense<V>::BatchDense(const BatchDense& other) : BatchDense(other.executor(), other)
{}

template <typename V>
BatchDense<V> BatchDense<V>::from_host(std::shared_ptr<const Executor> exec, size_type count,
                                       dim2 size, const std::vector<V>& values)
{
    if (static_cast<size_type>(values.size()) != count * size.count()) {
        throw BadInput("loom::matrix::BatchDense::from_host",
                       "got " + std::to_string(values.size()) + " values for " +
                           std::to_string(count) + " matrices of " + to_string(size));
    }
    BatchDense result(exec, count, size);
    result.values_ = Array<V>(std::move(exec), values);
    return result;
}

template <typename V>
BatchDense<V> BatchDense<V>::view(std::shared_ptr<const Executor> exec, size_type count,
                                  dim2 size, size_type stride, size_type batch_stride, V* data)
{
    BatchDense result;
    result.count_ = count;
    result.size_ = size;
    result.stride_ = stride == 0 ? size.cols : stride;
    result.batch_stride_ = batch_stride == 0 ? size.rows * result.stride_ : batch_stride;
    check_shape(count, size, result.stride_, result.batch_stride_);
    result.values_ = Array<V>::view(
        std::move(exec), batch_span(count, size, result.stride_, result.batch_stride_), data);
    return result;
}

template <typename V>
BatchDense<V>& BatchDense<V>::operator=(const BatchDense& other)
{
    if (this == &other) return *this;
    if (!executor()) return *this = BatchDense(other);
    const bool same_shape = count_ == other.count_ && size_ == other.size_;
    if (!same_shape) {
        if (!values_.is_owning()) {
            throw BadInput("loom::matrix::BatchDense::operator=",
                           "a view of " + std::to_string(count_) + " x " + to_string(size_) +
                               " cannot take " + std::to_string(other.count_) + " x " +
                               to_string(other.size_));
        }
        return *this = BatchDense(executor(), other);
    }
    if (stride_ == other.stride_ && batch_stride_ == other.batch_stride_) {
        values_ = other.values_;
        return *this;
    }
    // Different strides: bring the values here first, then copy matrix by matrix.
    const BatchDense local = other.executor()->same_memory_as(*executor())
                                 ? BatchDense::view(executor(), other.count_, other.size_,
                                                    other.stride_, other.batch_stride_,
                                                    const_cast<V*>(other.data()))
                                 : BatchDense(executor(), other);
    for (size_type b = 0; b < count_; ++b) {
        auto target = item(b);
        blas::copy(local.item(b), target);
    }
    return *this;
}

template <typename V>
Dense<V> BatchDense<V>::item(size_type b)
{
    if (b < 0 || b >= count_) {
        throw OutOfRange("loom::matrix::BatchDense::item", "matrix", b, count_);
    }
    return Dense<V>::view(executor(), size_, stride_, data() + b * batch_stride_);
}

template <typename V>
const Dense<V> BatchDense<V>::item(size_type b) const
{
    return const_cast<BatchDense*>(this)->item(b);
}

template <typename V>
BatchDense<V> BatchDense<V>::items(size_type first, size_type count)
{
    if (first < 0 || count < 0 || first + count > count_) {
        throw OutOfRange("loom::matrix::BatchDense::items", "last matrix", first + count - 1,
                         count_);
    }
    return view(executor(), count, size_, stride_, batch_stride_,
                data() + (count > 0 ? first * batch_stride_ : 0));
}

template <typename V>
void BatchDense<V>::fill(const V& value)
{
    if (count_ == 0 || size_.count() == 0) return;
    if (is_one_dense(*this)) {
        auto all = Dense<V>::view(executor(), {count_ * size_.rows, size_.cols}, stride_, data());
        blas::fill(all, value);
        return;
    }
    for (size_type b = 0; b < count_; ++b) {
        auto matrix = item(b);
        blas::fill(matrix, value);
    }
}

template <typename V>
std::vector<V> BatchDense<V>::to_host() const
{
    const auto span = values_.to_host();
    if (is_packed()) return span;
    std::vector<V> packed(static_cast<std::size_t>(count_ * size_.count()));
    for (size_type b = 0; b < count_; ++b) {
        for (size_type i = 0; i < size_.rows; ++i) {
            for (size_type j = 0; j < size_.cols; ++j) {
                packed[(b * size_.rows + i) * size_.cols + j] =
                    span[b * batch_stride_ + i * stride_ + j];
            }
        }
    }
    return packed;
}

#define LOOM_INSTANTIATE_BATCH_DENSE(V) template class BatchDense<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCH_DENSE)

}  // namespace loom::matrix
