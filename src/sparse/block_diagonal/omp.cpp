// OpenMP block-diagonal kernels: the reference's per-block work, blocks (or rows) spread over
// the executor's threads. Blocks vary in size, so the loops over blocks are scheduled
// dynamically in chunks.
#include <algorithm>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "sparse/block_diagonal/host_blocks.hpp"
#include "sparse/block_diagonal/kernels.hpp"

namespace loom::sparse::omp {
namespace {

constexpr int blocks_per_chunk = 64;

}  // namespace

template <typename V, typename I>
void invert_blocks(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                   const Array<I>& block_ptrs, size_type, const Array<std::int64_t>& offsets,
                   Array<unsigned char>& storage, Array<remove_complex_t<V>>& conditions,
                   Array<std::int64_t>& failure)
{
    const size_type num_blocks = block_ptrs.size() - 1;
    std::int64_t first_failure = failure[0];
#pragma omp parallel for schedule(dynamic, blocks_per_chunk) num_threads(exec.num_threads()) \
    reduction(min : first_failure)
    for (size_type k = 0; k < num_blocks; ++k) {
        first_failure = std::min(
            first_failure, host_blocks::invert_block(A, block_ptrs.data(), k, offsets.data(),
                                                     storage.data(), conditions.data()));
    }
    failure[0] = first_failure;
}

template <typename V, typename I>
void compress_blocks(const OmpExecutor& exec, const Array<I>& block_ptrs,
                     const Array<std::int64_t>& source_offsets,
                     const Array<unsigned char>& source, const Array<std::uint8_t>& precisions,
                     const Array<std::int64_t>& offsets, Array<unsigned char>& storage,
                     Array<remove_complex_t<V>>& scales)
{
#pragma omp parallel for schedule(dynamic, blocks_per_chunk) num_threads(exec.num_threads())
    for (size_type k = 0; k < precisions.size(); ++k) {
        scales[k] = host_blocks::compress<V>(
            source.data() + source_offsets[k], block_ptrs[k + 1] - block_ptrs[k],
            static_cast<StoragePrecision>(precisions[k]), storage.data() + offsets[k]);
    }
}

template <typename V, typename I>
void apply_block_inverse(const OmpExecutor& exec, Mode mode, V alpha,
                         const BlockDiagonalInverse<V, I>& inverse, const matrix::Dense<V>& b,
                         V beta, matrix::Dense<V>& x)
{
    const auto apply_mode = host_blocks::apply_mode(mode);
    const auto apply_block = [&](size_type k) {
        host_blocks::apply_block(apply_mode, alpha, inverse, k, b, beta, x);
    };
    if (b.rows() * b.cols() < loom::omp::min_parallel_elements) {
        // Small: on this thread (see min_parallel_elements).
        for (size_type k = 0; k < inverse.num_blocks(); ++k) apply_block(k);
        return;
    }
#pragma omp parallel for schedule(dynamic, blocks_per_chunk) num_threads(exec.num_threads())
    for (size_type k = 0; k < inverse.num_blocks(); ++k) apply_block(k);
}

template <typename V, typename I>
void invert_diagonal(const OmpExecutor& exec, const matrix::Csr<V, I>& A, Array<V>& inverse,
                     Array<std::int64_t>& failure)
{
    std::int64_t first_failure = failure[0];
#pragma omp parallel for schedule(static) num_threads(exec.num_threads()) \
    reduction(min : first_failure)
    for (size_type row = 0; row < A.rows(); ++row) {
        bool ok = true;
        inverse[row] = host_blocks::inverse_diagonal_entry(
            A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), row, ok);
        if (!ok) first_failure = std::min<std::int64_t>(first_failure, row);
    }
    failure[0] = first_failure;
}

template <typename V>
void apply_diagonal(const OmpExecutor& exec, Mode mode, V alpha, const Array<V>& inverse,
                    const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const bool conjugates = host_blocks::apply_mode(mode).conjugates;
    const V* d = inverse.data();
    const V* bd = b.data();
    V* xd = x.data();
    const size_type cols = b.cols();
    const size_type b_stride = b.stride();
    const size_type x_stride = x.stride();
    loom::omp::parallel_for_elements(exec, b.rows(), b.rows() * cols, [&](size_type row) {
        host_blocks::scale_row(conjugates, alpha, d[row], bd + row * b_stride, beta,
                               xd + row * x_stride, cols);
    });
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BLOCK_DIAGONAL_KERNELS, OmpExecutor)

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_APPLY_DIAGONAL_KERNELS, OmpExecutor)

}  // namespace loom::sparse::omp
