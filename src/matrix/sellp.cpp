#include "loom/matrix/sellp.hpp"

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "matrix/sparse_format.hpp"

namespace loom::matrix {

template <typename V, typename I>
Sellp<V, I>::Sellp(std::shared_ptr<const Executor> exec, dim2 size, size_type total_cols,
                   size_type slice_size, size_type stride_factor)
    : SparseFormat<Sellp, V, I>(exec, size), slice_size_(slice_size), stride_factor_(stride_factor)
{
    constexpr const char* where = "loom::matrix::Sellp";
    if (size.rows < 0 || size.cols < 0 || total_cols < 0) {
        throw BadInput(where, "negative size " + to_string(size) + " or total_cols " +
                                  std::to_string(total_cols));
    }
    if (slice_size < 1 || stride_factor < 1) {
        throw BadInput(where, "slice_size " + std::to_string(slice_size) + " and stride_factor " +
                                  std::to_string(stride_factor) + " must be positive");
    }
    const size_type slices = (size.rows + slice_size - 1) / slice_size;
    slice_lengths_ = Array<I>(exec, slices);
    slice_sets_ = Array<I>(exec, slices + 1);
    col_idxs_ = Array<I>(exec, total_cols * slice_size);
    values_ = Array<V>(exec, total_cols * slice_size);
    if (total_cols == 0) {
        // No slot columns: every slice is empty, which is already a valid (zero) matrix.
        slice_lengths_.fill(I{0});
        slice_sets_.fill(I{0});
    }
}

template <typename V, typename I>
Sellp<V, I>::Sellp(std::shared_ptr<const Executor> exec, const Sellp& other)
    : SparseFormat<Sellp, V, I>(exec, other.size()),
      slice_size_(other.slice_size_),
      stride_factor_(other.stride_factor_),
      slice_lengths_(exec, other.slice_lengths_),
      slice_sets_(exec, other.slice_sets_),
      col_idxs_(exec, other.col_idxs_),
      values_(exec, other.values_)
{}

template <typename V, typename I>
void Sellp<V, I>::validate() const
{
    constexpr const char* where = "loom::matrix::Sellp::validate";
    const size_type slices = (this->rows() + slice_size_ - 1) / slice_size_;
    if (slice_lengths_.size() != slices || slice_sets_.size() != slices + 1) {
        throw BadInput(where, "slice_lengths and slice_sets have " +
                                  std::to_string(slice_lengths_.size()) + " and " +
                                  std::to_string(slice_sets_.size()) + " entries, expected " +
                                  std::to_string(slices) + " and " + std::to_string(slices + 1));
    }
    const auto lengths = slice_lengths_.to_host();
    const auto sets = slice_sets_.to_host();
    if (sets[0] != 0) {
        throw BadInput(where, "slice_sets[0] is " + std::to_string(sets[0]) + ", expected 0");
    }
    for (size_type s = 0; s < slices; ++s) {
        if (lengths[s] < 0 || lengths[s] % stride_factor_ != 0) {
            throw BadInput(where, "slice " + std::to_string(s) + " has length " +
                                      std::to_string(lengths[s]) +
                                      ", expected a non-negative multiple of stride_factor " +
                                      std::to_string(stride_factor_));
        }
        if (sets[s + 1] != sets[s] + lengths[s]) {
            throw BadInput(where, "slice_sets[" + std::to_string(s + 1) +
                                      "] is not slice_sets[s] + slice_lengths[s]");
        }
    }
    const size_type expected = static_cast<size_type>(sets[slices]) * slice_size_;
    check_slot_count(where, col_idxs_.size(), values_.size(), expected,
                     "slice_sets[last] * slice_size");
    const auto cols_h = col_idxs_.to_host();
    for (size_type r = 0; r < this->rows(); ++r) {
        const size_type s = r / slice_size_;
        for (size_type k = 0; k < lengths[s]; ++k) {
            const auto col = cols_h[(sets[s] + k) * slice_size_ + r % slice_size_];
            check_slot_column(where, col, k, r, this->cols());
        }
    }
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPARSE_FORMAT, Sellp)

}  // namespace loom::matrix
