#include "loom/matrix/csr.hpp"

#include "base/instantiate_storage.hpp"
#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/matrix/dense.hpp"
#include "matrix/sparse_format.hpp"

namespace loom::matrix {

template <typename V, typename I>
Csr<V, I>::Csr(std::shared_ptr<const Executor> exec, dim2 size, size_type nnz)
    : SparseFormat<Csr, V, I>(exec, size),
      row_ptrs_(exec, size.rows + 1),
      col_idxs_(exec, nnz),
      values_(exec, nnz)
{
    if (size.rows < 0 || size.cols < 0 || nnz < 0) {
        throw BadInput("loom::matrix::Csr", "negative size " + to_string(size) + " or nnz " +
                                                std::to_string(nnz));
    }
    if (size.rows == 0 || nnz == 0) row_ptrs_.fill(I{0});
}

template <typename V, typename I>
Csr<V, I>::Csr(std::shared_ptr<const Executor> exec, dim2 size, Array<I> row_ptrs,
               Array<I> col_idxs, Array<V> values)
    : SparseFormat<Csr, V, I>(exec, size),
      row_ptrs_(moved_to(exec, std::move(row_ptrs))),
      col_idxs_(moved_to(exec, std::move(col_idxs))),
      values_(moved_to(exec, std::move(values)))
{
    validate();
}

template <typename V, typename I>
Csr<V, I>::Csr(std::shared_ptr<const Executor> exec, const Csr& other)
    : SparseFormat<Csr, V, I>(exec, other.size()),
      row_ptrs_(exec, other.row_ptrs_),
      col_idxs_(exec, other.col_idxs_),
      values_(exec, other.values_)
{}

template <typename V, typename I>
Csr<V, I> Csr<V, I>::from_host(std::shared_ptr<const Executor> exec, dim2 size,
                               const std::vector<I>& row_ptrs, const std::vector<I>& col_idxs,
                               const std::vector<V>& values)
{
    auto host = detail::host_executor();
    return Csr(std::move(exec), size, Array<I>(host, row_ptrs), Array<I>(host, col_idxs),
               Array<V>(host, values));
}

template <typename V, typename I>
void Csr<V, I>::validate() const
{
    constexpr const char* where = "loom::matrix::Csr::validate";
    if (row_ptrs_.size() != this->rows() + 1) {
        throw BadInput(where,
                       "row_ptrs has " + std::to_string(row_ptrs_.size()) +
                           " entries, expected rows + 1 = " + std::to_string(this->rows() + 1));
    }
    if (col_idxs_.size() != values_.size()) {
        throw BadInput(where, "col_idxs has " + std::to_string(col_idxs_.size()) +
                                  " entries but values has " + std::to_string(values_.size()));
    }
    const auto ptrs = row_ptrs_.to_host();
    const auto cols_h = col_idxs_.to_host();
    if (ptrs[0] != 0) {
        throw BadInput(where, "row_ptrs[0] is " + std::to_string(ptrs[0]) + ", expected 0");
    }
    if (ptrs[this->rows()] != nnz()) {
        throw BadInput(where, "row_ptrs[rows] is " + std::to_string(ptrs[this->rows()]) +
                                  ", expected nnz = " + std::to_string(nnz()));
    }
    for (size_type r = 0; r < this->rows(); ++r) {
        if (ptrs[r + 1] < ptrs[r]) {
            throw BadInput(where, "row_ptrs decreases at row " + std::to_string(r));
        }
    }
    for (size_type r = 0; r < this->rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (cols_h[k] < 0 || cols_h[k] >= this->cols()) {
                throw OutOfRange(
                    where,
                    "column index of entry " + std::to_string(k) + " in row " + std::to_string(r),
                    cols_h[k], this->cols());
            }
        }
    }
}

#define LOOM_INSTANTIATE_CSR(V, I) LOOM_INSTANTIATE_SPARSE_FORMAT(Csr, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CSR)

}  // namespace loom::matrix
