// Reference conversions: plain sequential loops, the oracle for the other backends.
#include <algorithm>
#include <vector>

#include "base/instantiate.hpp"
#include "matrix/convert/kernels.hpp"

namespace loom::matrix::reference {
namespace {

/// Where slot k of row r of a Sellp lives.
template <typename I>
size_type sellp_slot(const I* sets, size_type slice_size, size_type r, size_type k)
{
    return (sets[r / slice_size] + k) * slice_size + r % slice_size;
}

}  // namespace

template <typename V, typename I>
void coo_to_csr(const ReferenceExecutor&, const Coo<V, I>& source, Csr<V, I>& result)
{
    // Counting sort by row: count, prefix sum, then place entries in stored order (stable).
    const auto rows = source.row_idxs().const_data();
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    auto row_ptrs = result.row_ptrs().data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    std::fill_n(row_ptrs, source.rows() + 1, I{0});
    for (size_type k = 0; k < source.nnz(); ++k) ++row_ptrs[rows[k] + 1];
    for (size_type r = 0; r < source.rows(); ++r) row_ptrs[r + 1] += row_ptrs[r];
    std::vector<I> next_in_row(row_ptrs, row_ptrs + source.rows());
    for (size_type k = 0; k < source.nnz(); ++k) {
        const auto at = next_in_row[rows[k]]++;
        out_cols[at] = cols[k];
        out_values[at] = values[k];
    }
}

template <typename V, typename I>
void csr_to_coo(const ReferenceExecutor&, const Csr<V, I>& source, Coo<V, I>& result)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    auto out_rows = result.row_idxs().data();
    for (size_type r = 0; r < source.rows(); ++r) {
        std::fill(out_rows + row_ptrs[r], out_rows + row_ptrs[r + 1], static_cast<I>(r));
    }
    std::copy_n(source.col_idxs().const_data(), source.nnz(), result.col_idxs().data());
    std::copy_n(source.values().const_data(), source.nnz(), result.values().data());
}

template <typename V, typename I>
size_type csr_max_row_nnz(const ReferenceExecutor&, const Csr<V, I>& source)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    size_type longest = 0;
    for (size_type r = 0; r < source.rows(); ++r) {
        longest = std::max<size_type>(longest, row_ptrs[r + 1] - row_ptrs[r]);
    }
    return longest;
}

template <typename V, typename I>
void csr_to_ell(const ReferenceExecutor&, const Csr<V, I>& source, Ell<V, I>& result)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    const size_type stride = result.stride();
    for (size_type r = 0; r < stride; ++r) {
        const size_type begin = r < source.rows() ? row_ptrs[r] : 0;
        const size_type length = r < source.rows() ? row_ptrs[r + 1] - begin : 0;
        for (size_type k = 0; k < result.width(); ++k) {
            const bool stored = k < length;
            out_cols[k * stride + r] = stored ? cols[begin + k] : I{invalid_index};
            out_values[k * stride + r] = stored ? values[begin + k] : V{};
        }
    }
}

template <typename V, typename I>
void csr_slice_lengths(const ReferenceExecutor&, const Csr<V, I>& source, size_type slice_size,
                       size_type stride_factor, Array<I>& lengths, Array<I>& sets)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    for (size_type s = 0; s < lengths.size(); ++s) {
        const size_type end = std::min(source.rows(), (s + 1) * slice_size);
        size_type longest = 0;
        for (size_type r = s * slice_size; r < end; ++r) {
            longest = std::max<size_type>(longest, row_ptrs[r + 1] - row_ptrs[r]);
        }
        const auto rounded = static_cast<I>((longest + stride_factor - 1) / stride_factor *
                                            stride_factor);
        lengths.data()[s] = rounded;
        sets.data()[s] = rounded;
    }
}

template <typename V, typename I>
void csr_to_sellp(const ReferenceExecutor&, const Csr<V, I>& source, Sellp<V, I>& result)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    const auto lengths = result.slice_lengths().const_data();
    const auto sets = result.slice_sets().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    const size_type slice_size = result.slice_size();
    // Every row of every slice, the padding rows of a last partial slice included.
    for (size_type r = 0; r < result.num_slices() * slice_size; ++r) {
        const size_type begin = r < source.rows() ? row_ptrs[r] : 0;
        const size_type length = r < source.rows() ? row_ptrs[r + 1] - begin : 0;
        for (size_type k = 0; k < lengths[r / slice_size]; ++k) {
            const auto slot = sellp_slot(sets, slice_size, r, k);
            const bool stored = k < length;
            out_cols[slot] = stored ? cols[begin + k] : I{invalid_index};
            out_values[slot] = stored ? values[begin + k] : V{};
        }
    }
}

template <typename V, typename I>
void ell_row_nnz(const ReferenceExecutor&, const Ell<V, I>& source, Array<I>& row_nnz)
{
    const auto cols = source.col_idxs().const_data();
    for (size_type r = 0; r < source.rows(); ++r) {
        I count = 0;
        for (size_type k = 0; k < source.width(); ++k) {
            count += cols[k * source.stride() + r] != invalid_index;
        }
        row_nnz.data()[r] = count;
    }
}

template <typename V, typename I>
void sellp_row_nnz(const ReferenceExecutor&, const Sellp<V, I>& source, Array<I>& row_nnz)
{
    const auto cols = source.col_idxs().const_data();
    const auto lengths = source.slice_lengths().const_data();
    const auto sets = source.slice_sets().const_data();
    for (size_type r = 0; r < source.rows(); ++r) {
        I count = 0;
        for (size_type k = 0; k < lengths[r / source.slice_size()]; ++k) {
            count += cols[sellp_slot(sets, source.slice_size(), r, k)] != invalid_index;
        }
        row_nnz.data()[r] = count;
    }
}

template <typename V, typename I>
void dense_row_nnz(const ReferenceExecutor&, const Dense<V>& source, Array<I>& row_nnz)
{
    for (size_type r = 0; r < source.rows(); ++r) {
        I count = 0;
        for (size_type c = 0; c < source.cols(); ++c) count += source.at(r, c) != V{};
        row_nnz.data()[r] = count;
    }
}

template <typename V, typename I>
void ell_to_csr(const ReferenceExecutor&, const Ell<V, I>& source, Csr<V, I>& result)
{
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    const auto row_ptrs = result.row_ptrs().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    for (size_type r = 0; r < source.rows(); ++r) {
        auto at = row_ptrs[r];
        for (size_type k = 0; k < source.width(); ++k) {
            const auto slot = k * source.stride() + r;
            if (cols[slot] != invalid_index) {
                out_cols[at] = cols[slot];
                out_values[at] = values[slot];
                ++at;
            }
        }
    }
}

template <typename V, typename I>
void sellp_to_csr(const ReferenceExecutor&, const Sellp<V, I>& source, Csr<V, I>& result)
{
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    const auto lengths = source.slice_lengths().const_data();
    const auto sets = source.slice_sets().const_data();
    const auto row_ptrs = result.row_ptrs().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    for (size_type r = 0; r < source.rows(); ++r) {
        auto at = row_ptrs[r];
        for (size_type k = 0; k < lengths[r / source.slice_size()]; ++k) {
            const auto slot = sellp_slot(sets, source.slice_size(), r, k);
            if (cols[slot] != invalid_index) {
                out_cols[at] = cols[slot];
                out_values[at] = values[slot];
                ++at;
            }
        }
    }
}

template <typename V, typename I>
void dense_to_csr(const ReferenceExecutor&, const Dense<V>& source, Csr<V, I>& result)
{
    const auto row_ptrs = result.row_ptrs().const_data();
    auto out_cols = result.col_idxs().data();
    auto out_values = result.values().data();
    for (size_type r = 0; r < source.rows(); ++r) {
        auto at = row_ptrs[r];
        for (size_type c = 0; c < source.cols(); ++c) {
            if (source.at(r, c) != V{}) {
                out_cols[at] = static_cast<I>(c);
                out_values[at] = source.at(r, c);
                ++at;
            }
        }
    }
}

template <typename V, typename I>
void csr_to_dense(const ReferenceExecutor&, const Csr<V, I>& source, Dense<V>& result)
{
    const auto row_ptrs = source.row_ptrs().const_data();
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    for (size_type r = 0; r < source.rows(); ++r) {
        for (auto k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) result.at(r, cols[k]) += values[k];
    }
}

template <typename V, typename I>
void ell_to_dense(const ReferenceExecutor&, const Ell<V, I>& source, Dense<V>& result)
{
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    for (size_type r = 0; r < source.rows(); ++r) {
        for (size_type k = 0; k < source.width(); ++k) {
            const auto slot = k * source.stride() + r;
            if (cols[slot] != invalid_index) result.at(r, cols[slot]) += values[slot];
        }
    }
}

template <typename V, typename I>
void sellp_to_dense(const ReferenceExecutor&, const Sellp<V, I>& source, Dense<V>& result)
{
    const auto cols = source.col_idxs().const_data();
    const auto values = source.values().const_data();
    const auto lengths = source.slice_lengths().const_data();
    const auto sets = source.slice_sets().const_data();
    for (size_type r = 0; r < source.rows(); ++r) {
        for (size_type k = 0; k < lengths[r / source.slice_size()]; ++k) {
            const auto slot = sellp_slot(sets, source.slice_size(), r, k);
            if (cols[slot] != invalid_index) result.at(r, cols[slot]) += values[slot];
        }
    }
}

#define LOOM_INSTANTIATE_REFERENCE_CONVERT(V, I) \
    LOOM_INSTANTIATE_CONVERT_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_REFERENCE_CONVERT)

}  // namespace loom::matrix::reference
