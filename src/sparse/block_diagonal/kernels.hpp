// Per-backend entry points of the block-diagonal family (include/loom/sparse/block_diagonal.hpp),
// declared once with one signature for every backend. block_diagonal.cpp checks arguments,
// lays the blocks out and dispatches; reference.cpp, omp.cpp and cuda.cu define them.
// Arguments arrive checked and on the executor: A square, block pointers valid.
//
// Failures are reported through `failure`, a one-element array holding
// block_storage::no_failure on entry, which a kernel lowers to the smallest failure code it
// meets (block * failure_radix + elimination step for blocks, the row for the diagonal).
#pragma once

#include <cstdint>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_BLOCK_DIAGONAL_KERNELS(Exec)                                              \
    /* Gathers and inverts each block, writing it column-major in the working precision at  \
       its offset in storage, and its condition number. max_block_size bounds every block. */ \
    template <typename V, typename I>                                                         \
    void invert_blocks(const Exec& exec, const matrix::Csr<V, I>& A, const Array<I>& block_ptrs, \
                       size_type max_block_size, const Array<std::int64_t>& offsets,          \
                       Array<unsigned char>& storage, Array<remove_complex_t<V>>& conditions, \
                       Array<std::int64_t>& failure);                                         \
    /* Re-stores blocks held in the working precision at source_offsets in their chosen      \
       precisions at offsets, scaled by a power of two (written to scales) into (-1, 1). */  \
    template <typename V, typename I>                                                         \
    void compress_blocks(const Exec& exec, const Array<I>& block_ptrs,                        \
                         const Array<std::int64_t>& source_offsets,                           \
                         const Array<unsigned char>& source,                                  \
                         const Array<std::uint8_t>& precisions,                               \
                         const Array<std::int64_t>& offsets, Array<unsigned char>& storage,   \
                         Array<remove_complex_t<V>>& scales);                                 \
    template <typename V, typename I>                                                         \
    void apply_block_inverse(const Exec& exec, Mode mode, V alpha,                            \
                             const BlockDiagonalInverse<V, I>& inverse,                       \
                             const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);         \
    template <typename V, typename I>                                                         \
    void invert_diagonal(const Exec& exec, const matrix::Csr<V, I>& A, Array<V>& inverse,     \
                         Array<std::int64_t>& failure);                                       \
    template <typename V>                                                                     \
    void apply_diagonal(const Exec& exec, Mode mode, V alpha, const Array<V>& inverse,        \
                        const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_BLOCK_DIAGONAL_KERNELS)

/* Explicit instantiation of every kernel for one backend, inside its namespace */
#define LOOM_INSTANTIATE_BLOCK_DIAGONAL_KERNELS(Exec, V, I)                                    \
    template void invert_blocks(const Exec&, const matrix::Csr<V, I>&,                         \
                                const Array<I>&, size_type, const Array<std::int64_t>&,        \
                                Array<unsigned char>&, Array<remove_complex_t<V>>&,            \
                                Array<std::int64_t>&);                                         \
    template void compress_blocks<V, I>(const Exec&, const Array<I>&,                          \
                                        const Array<std::int64_t>&, const Array<unsigned char>&, \
                                        const Array<std::uint8_t>&, const Array<std::int64_t>&, \
                                        Array<unsigned char>&, Array<remove_complex_t<V>>&);   \
    template void apply_block_inverse(const Exec&, Mode, V,                                    \
                                      const BlockDiagonalInverse<V, I>&,                       \
                                      const matrix::Dense<V>&, V, matrix::Dense<V>&);          \
    template void invert_diagonal(const Exec&, const matrix::Csr<V, I>&,                       \
                                  Array<V>&, Array<std::int64_t>&);
#define LOOM_INSTANTIATE_APPLY_DIAGONAL_KERNELS(Exec, V)                                       \
    template void apply_diagonal(const Exec&, Mode, V, const Array<V>&,                        \
                                 const matrix::Dense<V>&, V, matrix::Dense<V>&);
