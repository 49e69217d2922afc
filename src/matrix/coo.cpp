#include "loom/matrix/coo.hpp"

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "matrix/sparse_format.hpp"

namespace loom::matrix {
namespace {

void check_size(const char* where, dim2 size, size_type nnz)
{
    if (size.rows < 0 || size.cols < 0 || nnz < 0) {
        throw BadInput(where, "negative size " + to_string(size) + " or nnz " +
                                  std::to_string(nnz));
    }
}

}  // namespace

template <typename V, typename I>
Coo<V, I>::Coo(std::shared_ptr<const Executor> exec, dim2 size, size_type nnz)
    : SparseFormat<Coo, V, I>(exec, size)
{
    check_size("loom::matrix::Coo", size, nnz);
    row_idxs_ = Array<I>(exec, nnz);
    col_idxs_ = Array<I>(exec, nnz);
    values_ = Array<V>(exec, nnz);
}

template <typename V, typename I>
Coo<V, I>::Coo(std::shared_ptr<const Executor> exec, dim2 size, Array<I> row_idxs,
               Array<I> col_idxs, Array<V> values)
    : SparseFormat<Coo, V, I>(exec, size),
      row_idxs_(moved_to(exec, std::move(row_idxs))),
      col_idxs_(moved_to(exec, std::move(col_idxs))),
      values_(moved_to(exec, std::move(values)))
{
    check_size("loom::matrix::Coo", size, 0);
    validate();
}

template <typename V, typename I>
Coo<V, I>::Coo(std::shared_ptr<const Executor> exec, const Coo& other)
    : SparseFormat<Coo, V, I>(exec, other.size()),
      row_idxs_(exec, other.row_idxs_),
      col_idxs_(exec, other.col_idxs_),
      values_(exec, other.values_)
{}

template <typename V, typename I>
Coo<V, I> Coo<V, I>::from_host(std::shared_ptr<const Executor> exec, dim2 size,
                               const std::vector<I>& row_idxs, const std::vector<I>& col_idxs,
                               const std::vector<V>& values)
{
    auto host = detail::host_executor();
    return Coo(std::move(exec), size, Array<I>(host, row_idxs), Array<I>(host, col_idxs),
               Array<V>(host, values));
}

template <typename V, typename I>
void Coo<V, I>::validate() const
{
    constexpr const char* where = "loom::matrix::Coo::validate";
    if (row_idxs_.size() != values_.size() || col_idxs_.size() != values_.size()) {
        throw BadInput(where, "row_idxs, col_idxs and values have " +
                                  std::to_string(row_idxs_.size()) + ", " +
                                  std::to_string(col_idxs_.size()) + " and " +
                                  std::to_string(values_.size()) +
                                  " entries; they must have the same length");
    }
    const auto rows_h = row_idxs_.to_host();
    const auto cols_h = col_idxs_.to_host();
    for (size_type k = 0; k < nnz(); ++k) {
        if (rows_h[k] < 0 || rows_h[k] >= this->rows()) {
            throw OutOfRange(where, "row index of entry " + std::to_string(k), rows_h[k],
                             this->rows());
        }
        if (cols_h[k] < 0 || cols_h[k] >= this->cols()) {
            throw OutOfRange(where, "column index of entry " + std::to_string(k), cols_h[k],
                             this->cols());
        }
    }
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPARSE_FORMAT, Coo)

}  // namespace loom::matrix
