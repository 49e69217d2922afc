// Sequential block-diagonal kernels, the oracle: one block (or row) after the other.
#include <algorithm>

#include "base/instantiate.hpp"
#include "sparse/block_diagonal/host_blocks.hpp"
#include "sparse/block_diagonal/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void invert_blocks(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                   const Array<I>& block_ptrs, size_type, const Array<std::int64_t>& offsets,
                   Array<unsigned char>& storage, Array<remove_complex_t<V>>& conditions,
                   Array<std::int64_t>& failure)
{
    for (size_type k = 0; k + 1 < block_ptrs.size(); ++k) {
        const auto code = host_blocks::invert_block(A, block_ptrs.data(), k, offsets.data(),
                                                    storage.data(), conditions.data());
        failure[0] = std::min(failure[0], code);
    }
}

template <typename V, typename I>
void compress_blocks(const ReferenceExecutor&, const Array<I>& block_ptrs,
                     const Array<std::int64_t>& source_offsets,
                     const Array<unsigned char>& source, const Array<std::uint8_t>& precisions,
                     const Array<std::int64_t>& offsets, Array<unsigned char>& storage,
                     Array<remove_complex_t<V>>& scales)
{
    for (size_type k = 0; k < precisions.size(); ++k) {
        scales[k] = host_blocks::compress<V>(
            source.data() + source_offsets[k], block_ptrs[k + 1] - block_ptrs[k],
            static_cast<StoragePrecision>(precisions[k]), storage.data() + offsets[k]);
    }
}

template <typename V, typename I>
void apply_block_inverse(const ReferenceExecutor&, Mode mode, V alpha,
                         const BlockDiagonalInverse<V, I>& inverse, const matrix::Dense<V>& b,
                         V beta, matrix::Dense<V>& x)
{
    for (size_type k = 0; k < inverse.num_blocks(); ++k) {
        host_blocks::apply_block(host_blocks::apply_mode(mode), alpha, inverse, k, b, beta, x);
    }
}

template <typename V, typename I>
void invert_diagonal(const ReferenceExecutor&, const matrix::Csr<V, I>& A, Array<V>& inverse,
                     Array<std::int64_t>& failure)
{
    for (size_type row = 0; row < A.rows(); ++row) {
        bool ok = true;
        inverse[row] = host_blocks::inverse_diagonal_entry(
            A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), row, ok);
        if (!ok) failure[0] = std::min<std::int64_t>(failure[0], row);
    }
}

template <typename V>
void apply_diagonal(const ReferenceExecutor&, Mode mode, V alpha, const Array<V>& inverse,
                    const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const bool conjugates = host_blocks::apply_mode(mode).conjugates;
    for (size_type row = 0; row < b.rows(); ++row) {
        host_blocks::scale_row(conjugates, alpha, inverse[row], b.data() + row * b.stride(),
                               beta, x.data() + row * x.stride(), b.cols());
    }
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BLOCK_DIAGONAL_KERNELS, ReferenceExecutor)

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_APPLY_DIAGONAL_KERNELS, ReferenceExecutor)

}  // namespace loom::sparse::reference
