#include "loom/matrix/ell.hpp"

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "matrix/sparse_format.hpp"

namespace loom::matrix {

template <typename V, typename I>
Ell<V, I>::Ell(std::shared_ptr<const Executor> exec, dim2 size, size_type width, size_type stride)
    : SparseFormat<Ell, V, I>(exec, size), width_(width), stride_(stride == 0 ? size.rows : stride)
{
    constexpr const char* where = "loom::matrix::Ell";
    if (size.rows < 0 || size.cols < 0 || width < 0) {
        throw BadInput(where, "negative size " + to_string(size) + " or width " +
                                  std::to_string(width));
    }
    if (stride_ < size.rows) {
        throw BadInput(where, "stride " + std::to_string(stride) +
                                  " is smaller than the row count " + std::to_string(size.rows));
    }
    col_idxs_ = Array<I>(exec, width_ * stride_);
    values_ = Array<V>(exec, width_ * stride_);
}

template <typename V, typename I>
Ell<V, I>::Ell(std::shared_ptr<const Executor> exec, const Ell& other)
    : SparseFormat<Ell, V, I>(exec, other.size()),
      width_(other.width_),
      stride_(other.stride_),
      col_idxs_(exec, other.col_idxs_),
      values_(exec, other.values_)
{}

template <typename V, typename I>
void Ell<V, I>::validate() const
{
    constexpr const char* where = "loom::matrix::Ell::validate";
    const size_type expected = width_ * stride_;
    check_slot_count(where, col_idxs_.size(), values_.size(), expected, "width * stride");
    const auto cols_h = col_idxs_.to_host();
    for (size_type r = 0; r < this->rows(); ++r) {
        for (size_type k = 0; k < width_; ++k) {
            const auto col = cols_h[k * stride_ + r];
            check_slot_column(where, col, k, r, this->cols());
        }
    }
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPARSE_FORMAT, Ell)

}  // namespace loom::matrix
