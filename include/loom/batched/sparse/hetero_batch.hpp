// HeteroBatch: a batch of sparse matrices that differ in size, pattern and format (CSR, COO,
// ELL or hybrid ELL + COO), held in a few pooled arrays so that one launch reaches them all.
// Vectors for such a batch are single arrays in which the matrices' vectors follow each
// other: x_b starts at layout(b).x_offset (cols_b entries), y_b at y_offset (rows_b entries).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/matrix/csr.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

/// How one matrix of a heterogeneous batch is stored.
///   csr     row pointers (rows + 1, from 0) and the row-ordered entries
///   coo     (row, column, value) entries sorted by row
///   ell     ell_width slots per row, column-major (slot s of row r at s * rows + r), unused
///           slots with column -1 and value 0
///   hybrid  an ELL part of ell_width slots (the mean row length) plus the entries of longer
///           rows that do not fit, as COO
enum class BatchFormat : int32 { csr, coo, ell, hybrid };

LOOM_NAME_TABLE(BatchFormat, batch_format_names, "batch format",
    {BatchFormat::csr, "csr", "compressed sparse rows"},
    {BatchFormat::coo, "coo", "coordinate entries sorted by row"},
    {BatchFormat::ell, "ell", "fixed slots per row, column-major"},
    {BatchFormat::hybrid, "hybrid", "ELL of the mean row length plus COO for the rest",
     {"hyb"}},
);

/// Where matrix b of a heterogeneous batch lives in the pools: a plain struct, copied to the
/// device as is. Entries (columns and values) of the CSR part, the ELL slots and the COO part
/// sit in one pool each at their offsets.
struct BatchLayout {
    BatchFormat format = BatchFormat::csr;
    int32 rows = 0;
    int32 cols = 0;
    int32 ell_width = 0;
    size_type x_offset = 0;       ///< of x_b in a batch vector of the inputs
    size_type y_offset = 0;       ///< of y_b in a batch vector of the outputs
    size_type row_ptr_offset = 0; ///< CSR: rows + 1 pointers in row_ptrs(), relative to entries
    size_type entry_offset = 0;   ///< CSR entries, or the ELL slots, in col_idxs()/values()
    size_type coo_offset = 0;     ///< COO entries in row_idxs() and col_idxs()/values()
    size_type coo_nnz = 0;        ///< stored COO entries
    size_type nnz = 0;            ///< stored entries (padding not counted)
};

template <typename V, typename I = int32>
class HeteroBatch {
public:
    using value_type = V;
    using index_type = I;

    HeteroBatch() = default;
    /// The matrices of list (on any executor) stored on exec, matrix b in format formats[b];
    /// formats may be empty (all CSR) or hold one format for all. COO, ELL and hybrid entries
    /// are sorted by row (by column within a row). BadInput naming the entry for a matrix
    /// too large for 32-bit sizes or a format list of the wrong length.
    HeteroBatch(std::shared_ptr<const Executor> exec, const std::vector<Csr<V, I>>& list,
                const std::vector<BatchFormat>& formats = {});

    const std::shared_ptr<const Executor>& executor() const noexcept { return values_.executor(); }
    size_type batch_count() const noexcept { return static_cast<size_type>(host_layouts_.size()); }
    /// Entries of a batch vector of inputs (sum of cols) and of outputs (sum of rows).
    size_type total_cols() const noexcept { return total_cols_; }
    size_type total_rows() const noexcept { return total_rows_; }
    /// Stored entries of all matrices (ELL padding not counted).
    size_type total_nnz() const noexcept { return total_nnz_; }

    /// Matrix b's layout (host); OutOfRange for a bad b.
    const BatchLayout& layout(size_type b) const;
    const std::vector<BatchLayout>& host_layouts() const noexcept { return host_layouts_; }
    /// The layouts on the batch's executor (what kernels read).
    const Array<BatchLayout>& layouts() const noexcept { return layouts_; }
    const Array<I>& row_ptrs() const noexcept { return row_ptrs_; }
    const Array<I>& row_idxs() const noexcept { return row_idxs_; }
    const Array<I>& col_idxs() const noexcept { return col_idxs_; }
    Array<V>& values() noexcept { return values_; }
    const Array<V>& values() const noexcept { return values_; }

    /// Matrix b as a Csr on the batch's executor (entries sorted within rows).
    Csr<V, I> item(size_type b) const;

private:
    std::vector<BatchLayout> host_layouts_;
    Array<BatchLayout> layouts_;
    size_type total_rows_ = 0;
    size_type total_cols_ = 0;
    size_type total_nnz_ = 0;
    Array<I> row_ptrs_;
    Array<I> row_idxs_;
    Array<I> col_idxs_;
    Array<V> values_;
};

/// Matrix Market in and out of a batch: a folder (every NAME.mtx in it, in name order, except
/// right-hand sides NAME_b.mtx and solutions NAME_x.mtx) or a list file (one path per line,
/// relative to the list's folder; blank lines and lines starting with '#' skipped). Returns
/// the matrices and, in names, their names (file names without .mtx). IoError naming the file
/// (and line) that fails.
template <typename V, typename I = int32>
LOOM_EXPORT std::vector<Csr<V, I>> read_batch(std::shared_ptr<const Executor> exec,
                                              const std::string& folder_or_list,
                                              std::vector<std::string>* names = nullptr);
/// Writes matrix b of list to folder/names[b].mtx (the folder is created).
template <typename V, typename I = int32>
LOOM_EXPORT void write_batch(const std::string& folder, const std::vector<Csr<V, I>>& list,
                             const std::vector<std::string>& names);

}  // namespace loom::matrix

LOOM_PUBLIC_END
