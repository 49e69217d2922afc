// The batch containers of batched sparse: BatchCsr, BatchEll and HeteroBatch, built on the host
// from host copies of their inputs and placed on their executor, and Matrix Market batches.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <tuple>
#include <fstream>
#include <numeric>
#include <string>

#include "base/instantiate.hpp"
#include "loom/batched/sparse/batch_csr.hpp"
#include "loom/batched/sparse/hetero_batch.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/io.hpp"

namespace loom::matrix {
namespace {

std::string entry_name(size_type b) { return "batch entry " + std::to_string(b); }

/// The host copy of a Csr's three arrays.
template <typename V, typename I>
struct HostCsr {
    dim2 size;
    std::vector<I> row_ptrs;
    std::vector<I> col_idxs;
    std::vector<V> values;

    explicit HostCsr(const Csr<V, I>& A)
        : size(A.size()), row_ptrs(A.row_ptrs().to_host()), col_idxs(A.col_idxs().to_host()),
          values(A.values().to_host())
    {
        if (row_ptrs.empty()) row_ptrs.assign(1, I{0});
    }
    size_type rows() const { return size.rows; }
    size_type row_length(size_type r) const { return row_ptrs[r + 1] - row_ptrs[r]; }
    size_type max_row_length() const
    {
        size_type longest = 0;
        for (size_type r = 0; r < rows(); ++r) longest = std::max(longest, row_length(r));
        return longest;
    }
    /// Row r's entries ordered by column (stable for duplicates).
    std::vector<size_type> sorted_row(size_type r) const
    {
        std::vector<size_type> order(static_cast<std::size_t>(row_length(r)));
        std::iota(order.begin(), order.end(), static_cast<size_type>(row_ptrs[r]));
        std::stable_sort(order.begin(), order.end(),
                         [&](size_type a, size_type b) { return col_idxs[a] < col_idxs[b]; });
        return order;
    }
};

}  // namespace

template <typename V, typename I>
BatchCsr<V, I>::BatchCsr(std::shared_ptr<const Executor> exec, size_type count, dim2 size,
                         Array<I> row_ptrs, Array<I> col_idxs, Array<V> values)
    : count_(count), size_(size), row_ptrs_(moved_to(exec, std::move(row_ptrs))),
      col_idxs_(moved_to(exec, std::move(col_idxs))), values_(moved_to(exec, std::move(values)))
{
    constexpr const char* where = "loom::matrix::BatchCsr";
    if (count < 0 || size.rows < 0 || size.cols < 0) throw BadInput(where, "negative size");
    if (values_.size() != count * nnz()) {
        throw BadInput(where, "values hold " + std::to_string(values_.size()) +
                                  " entries, expected count * nnz = " +
                                  std::to_string(count * nnz()));
    }
    // The pattern is validated as the Csr it is (row pointers, column range).
    Csr<V, I>(exec, size, Array<I>(exec, row_ptrs_), Array<I>(exec, col_idxs_),
              Array<V>(exec, nnz()));
}

template <typename V, typename I>
BatchCsr<V, I> BatchCsr<V, I>::replicate(std::shared_ptr<const Executor> exec, const Csr<V, I>& A,
                                         size_type count)
{
    const auto values = A.values().to_host();
    std::vector<V> all;
    all.reserve(static_cast<std::size_t>(values.size() * std::max<size_type>(count, 0)));
    for (size_type b = 0; b < count; ++b) all.insert(all.end(), values.begin(), values.end());
    return with_values(exec, A, count, Array<V>(exec, all));
}

template <typename V, typename I>
BatchCsr<V, I> BatchCsr<V, I>::with_values(std::shared_ptr<const Executor> exec,
                                           const Csr<V, I>& A, size_type count,
                                           Array<V> values)
{
    Array<I> row_ptrs = A.row_ptrs().size() == 0 ? Array<I>(exec, std::vector<I>{0})
                                                 : Array<I>(exec, A.row_ptrs());
    return BatchCsr(exec, count, A.size(), std::move(row_ptrs), Array<I>(exec, A.col_idxs()),
                    std::move(values));
}

template <typename V, typename I>
BatchCsr<V, I> BatchCsr<V, I>::from_list(std::shared_ptr<const Executor> exec,
                                         const std::vector<Csr<V, I>>& list)
{
    constexpr const char* where = "loom::matrix::BatchCsr::from_list";
    if (list.empty()) {
        return BatchCsr(exec, 0, {}, Array<I>(exec, std::vector<I>{0}), Array<I>(exec, 0),
                        Array<V>(exec, 0));
    }
    const HostCsr<V, I> first(list.front());
    std::vector<V> values;
    for (size_type b = 0; b < static_cast<size_type>(list.size()); ++b) {
        const HostCsr<V, I> item(list[b]);
        if (item.size != first.size || item.row_ptrs != first.row_ptrs ||
            item.col_idxs != first.col_idxs) {
            throw BadInput(where, entry_name(b) + " does not have the size and pattern of entry 0");
        }
        values.insert(values.end(), item.values.begin(), item.values.end());
    }
    return BatchCsr(exec, static_cast<size_type>(list.size()), first.size,
                    Array<I>(exec, first.row_ptrs), Array<I>(exec, first.col_idxs),
                    Array<V>(exec, values));
}

template <typename V, typename I>
Csr<V, I> BatchCsr<V, I>::item(size_type b) const
{
    if (b < 0 || b >= count_) throw OutOfRange("loom::matrix::BatchCsr::item", "batch entry", b, count_);
    Array<V> values(executor(), nnz());
    if (nnz() > 0) {
        executor()->copy_from(*executor(), sizeof(V) * nnz(), values_.data() + b * nnz(),
                              values.data());
    }
    return Csr<V, I>(executor(), size_, Array<I>(executor(), row_ptrs_),
                     Array<I>(executor(), col_idxs_), std::move(values));
}

template <typename V, typename I>
BatchEll<V, I>::BatchEll(const BatchCsr<V, I>& A)
    : count_(A.batch_count()), size_(A.size())
{
    const auto exec = A.executor();
    const auto row_ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    const size_type rows = A.rows();
    for (size_type r = 0; r < rows; ++r) width_ = std::max<size_type>(width_, row_ptrs[r + 1] - row_ptrs[r]);
    const size_type slots = width_ * rows;
    std::vector<I> ell_cols(static_cast<std::size_t>(slots), I(invalid_index));
    std::vector<V> ell_values(static_cast<std::size_t>(slots * count_), V{0});
    for (size_type r = 0; r < rows; ++r) {
        for (size_type k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
            const size_type slot = (k - row_ptrs[r]) * rows + r;
            ell_cols[slot] = cols[k];
            for (size_type b = 0; b < count_; ++b) {
                ell_values[b * slots + slot] = values[b * A.nnz() + k];
            }
        }
    }
    col_idxs_ = Array<I>(exec, ell_cols);
    values_ = Array<V>(exec, ell_values);
}

namespace {

/// Appends one matrix to the pools of a heterogeneous batch in its format.
template <typename V, typename I>
struct PoolBuilder {
    std::vector<I> row_ptrs;
    std::vector<I> row_idxs;
    std::vector<I> col_idxs;
    std::vector<V> values;

    void add_entry(I col, V value)
    {
        col_idxs.push_back(col);
        values.push_back(value);
    }
    /// row_idxs stays aligned with the entry pools: CSR and ELL entries get a filler.
    void align_rows() { row_idxs.resize(col_idxs.size(), I{0}); }

    void add_csr(const HostCsr<V, I>& A, BatchLayout& layout)
    {
        layout.row_ptr_offset = static_cast<size_type>(row_ptrs.size());
        layout.entry_offset = static_cast<size_type>(col_idxs.size());
        row_ptrs.push_back(0);
        for (size_type r = 0; r < A.rows(); ++r) {
            for (size_type k : A.sorted_row(r)) add_entry(A.col_idxs[k], A.values[k]);
            row_ptrs.push_back(static_cast<I>(col_idxs.size() - layout.entry_offset));
        }
        align_rows();
    }
    /// ELL slots of the first `width` entries of each row; returns the entries left over.
    std::vector<size_type> add_ell(const HostCsr<V, I>& A, size_type width, BatchLayout& layout)
    {
        layout.entry_offset = static_cast<size_type>(col_idxs.size());
        layout.ell_width = static_cast<int32>(width);
        const size_type rows = A.rows();
        col_idxs.resize(col_idxs.size() + width * rows, I(invalid_index));
        values.resize(values.size() + width * rows, V{0});
        std::vector<size_type> rest;
        for (size_type r = 0; r < rows; ++r) {
            const auto row = A.sorted_row(r);
            for (size_type t = 0; t < static_cast<size_type>(row.size()); ++t) {
                if (t < width) {
                    const size_type slot = layout.entry_offset + t * rows + r;
                    col_idxs[slot] = A.col_idxs[row[t]];
                    values[slot] = A.values[row[t]];
                } else {
                    rest.push_back(row[t]);
                }
            }
        }
        align_rows();
        return rest;
    }
    /// COO entries (in row order as given) of A.
    void add_coo(const HostCsr<V, I>& A, const std::vector<size_type>& entries,
                 BatchLayout& layout)
    {
        layout.coo_offset = static_cast<size_type>(col_idxs.size());
        layout.coo_nnz = static_cast<size_type>(entries.size());
        for (size_type k : entries) {
            const auto row = std::upper_bound(A.row_ptrs.begin(), A.row_ptrs.end(), I(k)) -
                             A.row_ptrs.begin() - 1;
            row_idxs.push_back(static_cast<I>(row));
            add_entry(A.col_idxs[k], A.values[k]);
        }
    }
};

template <typename V, typename I>
std::vector<size_type> all_entries_by_row(const HostCsr<V, I>& A)
{
    std::vector<size_type> entries;
    for (size_type r = 0; r < A.rows(); ++r) {
        for (size_type k : A.sorted_row(r)) entries.push_back(k);
    }
    return entries;
}

}  // namespace

template <typename V, typename I>
HeteroBatch<V, I>::HeteroBatch(std::shared_ptr<const Executor> exec,
                               const std::vector<Csr<V, I>>& list,
                               const std::vector<BatchFormat>& formats)
{
    constexpr const char* where = "loom::matrix::HeteroBatch";
    const auto count = static_cast<size_type>(list.size());
    if (formats.size() > 1 && static_cast<size_type>(formats.size()) != count) {
        throw BadInput(where, "formats hold " + std::to_string(formats.size()) +
                                  " entries for a batch of " + std::to_string(count));
    }
    PoolBuilder<V, I> pools;
    for (size_type b = 0; b < count; ++b) {
        const HostCsr<V, I> A(list[b]);
        if (A.size.rows > std::numeric_limits<int32>::max() / 2 ||
            A.size.cols > std::numeric_limits<int32>::max() / 2) {
            throw BadInput(where, entry_name(b) + " is too large for a batched matrix");
        }
        BatchLayout layout;
        layout.format = formats.empty() ? BatchFormat::csr
                                        : formats[formats.size() == 1 ? 0 : b];
        layout.rows = static_cast<int32>(A.size.rows);
        layout.cols = static_cast<int32>(A.size.cols);
        layout.x_offset = total_cols_;
        layout.y_offset = total_rows_;
        layout.nnz = static_cast<size_type>(A.col_idxs.size());
        switch (layout.format) {
        case BatchFormat::csr: pools.add_csr(A, layout); break;
        case BatchFormat::coo: pools.add_coo(A, all_entries_by_row(A), layout); break;
        case BatchFormat::ell: pools.add_ell(A, A.max_row_length(), layout); break;
        case BatchFormat::hybrid: {
            const size_type mean = A.rows() == 0 ? 0 : (layout.nnz + A.rows() - 1) / A.rows();
            pools.add_coo(A, pools.add_ell(A, mean, layout), layout);
            break;
        }
        default: throw BadInput(where, entry_name(b) + " has an unknown format");
        }
        total_rows_ += A.size.rows;
        total_cols_ += A.size.cols;
        total_nnz_ += layout.nnz;
        host_layouts_.push_back(layout);
    }
    pools.align_rows();
    layouts_ = Array<BatchLayout>(exec, host_layouts_);
    row_ptrs_ = Array<I>(exec, pools.row_ptrs);
    row_idxs_ = Array<I>(exec, pools.row_idxs);
    col_idxs_ = Array<I>(exec, pools.col_idxs);
    values_ = Array<V>(exec, pools.values);
}

template <typename V, typename I>
const BatchLayout& HeteroBatch<V, I>::layout(size_type b) const
{
    if (b < 0 || b >= batch_count()) {
        throw OutOfRange("loom::matrix::HeteroBatch::layout", "batch entry", b, batch_count());
    }
    return host_layouts_[b];
}

template <typename V, typename I>
Csr<V, I> HeteroBatch<V, I>::item(size_type b) const
{
    const BatchLayout& L = layout(b);
    const auto row_ptrs = row_ptrs_.to_host();
    const auto row_idxs = row_idxs_.to_host();
    const auto cols = col_idxs_.to_host();
    const auto values = values_.to_host();
    // (row, column, value) of every stored entry, then sorted into CSR.
    std::vector<std::tuple<I, I, V>> entries;
    if (L.format == BatchFormat::csr) {
        for (int32 r = 0; r < L.rows; ++r) {
            for (auto k = row_ptrs[L.row_ptr_offset + r]; k < row_ptrs[L.row_ptr_offset + r + 1]; ++k) {
                entries.emplace_back(r, cols[L.entry_offset + k], values[L.entry_offset + k]);
            }
        }
    }
    if (L.format == BatchFormat::ell || L.format == BatchFormat::hybrid) {
        for (int32 s = 0; s < L.ell_width; ++s) {
            for (int32 r = 0; r < L.rows; ++r) {
                const size_type k = L.entry_offset + static_cast<size_type>(s) * L.rows + r;
                if (cols[k] >= 0) entries.emplace_back(r, cols[k], values[k]);
            }
        }
    }
    if (L.format == BatchFormat::coo || L.format == BatchFormat::hybrid) {
        for (size_type k = L.coo_offset; k < L.coo_offset + L.coo_nnz; ++k) {
            entries.emplace_back(row_idxs[k], cols[k], values[k]);
        }
    }
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                                : std::get<1>(a) < std::get<1>(b);
    });
    std::vector<I> out_ptrs(static_cast<std::size_t>(L.rows) + 1, I{0});
    std::vector<I> out_cols;
    std::vector<V> out_values;
    for (const auto& [r, c, v] : entries) {
        ++out_ptrs[r + 1];
        out_cols.push_back(c);
        out_values.push_back(v);
    }
    std::partial_sum(out_ptrs.begin(), out_ptrs.end(), out_ptrs.begin());
    return Csr<V, I>::from_host(executor(), {L.rows, L.cols}, out_ptrs, out_cols, out_values);
}

namespace {

/// A uniform number in [0, 1) from a key (splitmix64): the same on every platform.
double unit_hash(std::uint64_t key)
{
    key += 0x9e3779b97f4a7c15ULL;
    key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ULL;
    key = (key ^ (key >> 27)) * 0x94d049bb133111ebULL;
    key ^= key >> 31;
    return static_cast<double>(key >> 11) * 0x1.0p-53;
}

}  // namespace

template <typename V, typename I>
BatchCsr<V, I> poisson_batch(std::shared_ptr<const Executor> exec, size_type count, size_type nx,
                             size_type ny, size_type nz, std::uint64_t seed)
{
    if (count < 0 || nx < 0 || ny < 0 || nz < 0) {
        throw BadInput("loom::matrix::poisson_batch", "negative count or grid size");
    }
    const size_type n = nx * ny * nz;
    std::vector<I> row_ptrs{0};
    std::vector<I> cols;
    for (size_type z = 0; z < nz; ++z) {
        for (size_type y = 0; y < ny; ++y) {
            for (size_type x = 0; x < nx; ++x) {
                const size_type row = (z * ny + y) * nx + x;
                const size_type neighbours[] = {z > 0 ? row - nx * ny : -1, y > 0 ? row - nx : -1,
                                                x > 0 ? row - 1 : -1,       row,
                                                x + 1 < nx ? row + 1 : -1,  y + 1 < ny ? row + nx : -1,
                                                z + 1 < nz ? row + nx * ny : -1};
                for (size_type col : neighbours) {
                    if (col >= 0) cols.push_back(static_cast<I>(col));
                }
                row_ptrs.push_back(static_cast<I>(cols.size()));
            }
        }
    }
    const auto nnz = static_cast<size_type>(cols.size());
    std::vector<V> values(static_cast<std::size_t>(count * nnz));
    for (size_type b = 0; b < count; ++b) {
        V* matrix = values.data() + b * nnz;
        const std::uint64_t key = (seed * 0x100000001b3ULL + static_cast<std::uint64_t>(b)) << 20;
        const double shift = std::pow(10.0, -3.0 * unit_hash(key ^ 0xfffff));
        for (size_type row = 0; row < n; ++row) {
            double diagonal = shift;
            for (size_type k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
                const size_type col = cols[k];
                if (col == row) continue;
                // One draw per unordered pair keeps the matrix symmetric.
                const auto pair = static_cast<std::uint64_t>(std::min(row, col) * n + std::max(row, col));
                const double off = -(1.0 + unit_hash(key ^ (pair * 0x9e3779b97f4a7c15ULL)));
                matrix[k] = static_cast<V>(off);
                diagonal -= off;
            }
            for (size_type k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
                if (cols[k] == row) matrix[k] = static_cast<V>(diagonal);
            }
        }
    }
    return BatchCsr<V, I>(exec, count, {n, n}, Array<I>(exec, row_ptrs), Array<I>(exec, cols),
                          Array<V>(exec, values));
}

namespace {

bool ends_with(const std::string& text, const std::string& tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

/// The matrix files a folder or a list file names, with their names.
std::vector<std::pair<std::string, std::filesystem::path>> batch_files(const std::string& source)
{
    namespace fs = std::filesystem;
    constexpr const char* where = "loom::matrix::read_batch";
    std::vector<std::pair<std::string, fs::path>> files;
    std::error_code error;
    if (fs::is_directory(source, error)) {
        for (const auto& item : fs::directory_iterator(source)) {
            const std::string file = item.path().filename().string();
            if (!item.is_regular_file() || !ends_with(file, ".mtx")) continue;
            const std::string name = file.substr(0, file.size() - 4);
            if (ends_with(name, "_b") || ends_with(name, "_x")) continue;
            files.emplace_back(name, item.path());
        }
        std::sort(files.begin(), files.end());
        return files;
    }
    std::ifstream list(source);
    if (!list) throw IoError(where, "cannot open the batch folder or list file '" + source + "'");
    const fs::path base = fs::path(source).parent_path();
    std::string line;
    for (int number = 1; std::getline(list, line); ++number) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        const auto last = line.find_last_not_of(" \t\r");
        const fs::path path = base / line.substr(first, last - first + 1);
        if (!fs::is_regular_file(path, error)) {
            throw IoError(where, source + ":" + std::to_string(number) + ": no file '" +
                                     path.string() + "'");
        }
        std::string name = path.filename().string();
        if (ends_with(name, ".mtx")) name.resize(name.size() - 4);
        files.emplace_back(name, path);
    }
    return files;
}

}  // namespace

template <typename V, typename I>
std::vector<Csr<V, I>> read_batch(std::shared_ptr<const Executor> exec,
                                  const std::string& folder_or_list,
                                  std::vector<std::string>* names)
{
    std::vector<Csr<V, I>> list;
    if (names) names->clear();
    for (const auto& [name, path] : batch_files(folder_or_list)) {
        list.push_back(read_csr<V, I>(exec, path.string()));
        if (names) names->push_back(name);
    }
    return list;
}

template <typename V, typename I>
void write_batch(const std::string& folder, const std::vector<Csr<V, I>>& list,
                 const std::vector<std::string>& names)
{
    if (names.size() != list.size()) {
        throw BadInput("loom::matrix::write_batch", std::to_string(names.size()) + " names for " +
                                                        std::to_string(list.size()) + " matrices");
    }
    std::filesystem::create_directories(folder);
    for (std::size_t b = 0; b < list.size(); ++b) {
        write_mtx((std::filesystem::path(folder) / (names[b] + ".mtx")).string(), list[b]);
    }
}

#define LOOM_INSTANTIATE_BATCH_SPARSE_CONTAINERS(V, I)                                         \
    template class BatchCsr<V, I>;                                                             \
    template class BatchEll<V, I>;                                                             \
    template class HeteroBatch<V, I>;                                                          \
    template std::vector<Csr<V, I>> read_batch<V, I>(std::shared_ptr<const Executor>,          \
                                                     const std::string&,                       \
                                                     std::vector<std::string>*);               \
    template BatchCsr<V, I> poisson_batch<V, I>(std::shared_ptr<const Executor>, size_type,     \
                                                 size_type, size_type, size_type,              \
                                                 std::uint64_t);                               \
    template void write_batch<V, I>(const std::string&, const std::vector<Csr<V, I>>&,         \
                                    const std::vector<std::string>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BATCH_SPARSE_CONTAINERS)

}  // namespace loom::matrix
