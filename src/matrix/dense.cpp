#include "loom/matrix/dense.hpp"

#include "base/instantiate_storage.hpp"
#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/blas/vector.hpp"

namespace loom::matrix {

// The strided copy of the 16-bit storage types (matrix/precision/precision.cpp).
template <typename T>
void copy_storage(const Dense<T>& from, Dense<T>& to);

namespace {

/// blas::copy for the value types, the precision kernels for the storage types.
template <typename V>
void copy_values(const Dense<V>& from, Dense<V>& to)
{
    if constexpr (is_storage_only_v<V>) {
        copy_storage(from, to);
    } else {
        blas::copy(from, to);
    }
}

[[noreturn]] void storage_is_no_operator()
{
    throw NotSupported("loom::matrix::Dense::apply",
                       "a Dense of a 16-bit storage type is no operator; convert it to float "
                       "first (loom/matrix/precision.hpp)");
}

}  // namespace

template <typename V>
Dense<V>::Dense(std::shared_ptr<const Executor> exec, dim2 size, size_type stride)
    : LinOp<V>(exec, size), stride_(stride == 0 ? size.cols : stride)
{
    if (size.rows < 0 || size.cols < 0) {
        throw BadInput("loom::matrix::Dense", "negative size " + to_string(size));
    }
    if (stride_ < size.cols) {
        throw BadInput("loom::matrix::Dense", "stride " + std::to_string(stride_) +
                                                  " is smaller than the column count " +
                                                  std::to_string(size.cols));
    }
    values_ = Array<V>(std::move(exec), dense_span(size, stride_));
}

template <typename V>
Dense<V>::Dense(std::shared_ptr<const Executor> exec, const Dense& other)
    : LinOp<V>(exec, other.size()), stride_(other.stride_), values_(exec, other.values_)
{}

template <typename V>
Dense<V>::Dense(const Dense& other) : Dense(other.executor(), other)
{}

template <typename V>
Dense<V> Dense<V>::from_host(std::shared_ptr<const Executor> exec, dim2 size,
                             const std::vector<V>& row_major)
{
    if (static_cast<size_type>(row_major.size()) != size.count()) {
        throw BadInput("loom::matrix::Dense::from_host",
                       "got " + std::to_string(row_major.size()) + " values for a " +
                           to_string(size) + " matrix");
    }
    Dense result(exec, size);
    result.values_ = Array<V>(std::move(exec), row_major);
    return result;
}

template <typename V>
Dense<V> Dense<V>::view(std::shared_ptr<const Executor> exec, dim2 size, size_type stride,
                        V* data, std::shared_ptr<const void> keep_alive)
{
    Dense result;
    result.set_executor(exec);
    result.set_size(size);
    result.stride_ = stride == 0 ? size.cols : stride;
    result.values_ = Array<V>::view(std::move(exec), dense_span(size, result.stride_), data,
                                    std::move(keep_alive));
    return result;
}

template <typename V>
Dense<V>& Dense<V>::operator=(const Dense& other)
{
    if (this == &other) return *this;
    if (!this->executor()) {
        return *this = Dense(other);
    }
    if (!values_.is_owning() && this->size() != other.size()) {
        throw DimensionMismatch("loom::matrix::Dense::operator=", "the target view",
                                this->size(), "the source", other.size(),
                                "a view cannot be resized");
    }
    if (values_.is_owning() && this->size() != other.size()) {
        *this = Dense(this->executor(), other);
        return *this;
    }
    if (stride_ == other.stride_) {
        values_ = other.values_;
    } else if (other.executor()->same_memory_as(*this->executor())) {
        copy_values(other, *this);
    } else {
        copy_values(Dense(this->executor(), other), *this);
    }
    return *this;
}

template <typename V>
Dense<V> Dense<V>::columns(size_type first, size_type count)
{
    if (first < 0 || count < 0 || first + count > cols()) {
        throw OutOfRange("loom::matrix::Dense::columns", "last column",
                         first + count - 1, cols());
    }
    return view(this->executor(), {rows(), count}, stride_, data() + first);
}

template <typename V>
Dense<V> Dense<V>::rows_view(size_type first, size_type count)
{
    if (first < 0 || count < 0 || first + count > rows()) {
        throw OutOfRange("loom::matrix::Dense::rows_view", "last row", first + count - 1,
                         rows());
    }
    return view(this->executor(), {count, cols()}, stride_, data() + first * stride_);
}

template <typename V>
void Dense<V>::fill(const V& value)
{
    if constexpr (is_storage_only_v<V>) {
        // Row by row: the elements between rows of a view belong to somebody else.
        if (stride_ == cols()) {
            values_.fill(value);
        } else {
            for (size_type r = 0; r < rows(); ++r) {
                Array<V>::view(this->executor(), cols(), data() + r * stride_).fill(value);
            }
        }
    } else {
        blas::fill(*this, value);
    }
}

template <typename V>
std::vector<V> Dense<V>::to_host() const
{
    const auto span = values_.to_host();
    if (stride_ == cols()) return span;
    std::vector<V> packed(static_cast<std::size_t>(this->size().count()));
    for (size_type r = 0; r < rows(); ++r) {
        for (size_type c = 0; c < cols(); ++c) {
            packed[r * cols() + c] = span[r * stride_ + c];
        }
    }
    return packed;
}

template <typename V>
void Dense<V>::apply_impl(const Dense& b, Dense& x) const
{
    if constexpr (is_storage_only_v<V>) {
        storage_is_no_operator();
    } else {
        blas::gemm(V{1}, *this, b, V{0}, x);
    }
}

template <typename V>
void Dense<V>::apply_impl(V alpha, const Dense& b, V beta, Dense& x) const
{
    if constexpr (is_storage_only_v<V>) {
        storage_is_no_operator();
    } else {
        blas::gemm(alpha, *this, b, beta, x);
    }
}

#define LOOM_INSTANTIATE_DENSE(V) template class Dense<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_DENSE)
LOOM_FOR_EACH_STORAGE_TYPE(LOOM_INSTANTIATE_DENSE)

}  // namespace loom::matrix
