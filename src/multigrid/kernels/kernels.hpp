// Per-backend entry points of the smoothed-aggregation setup steps that are not a public
// kernel of their own (multigrid/setup.cpp checks the arguments, sizes the results, runs the
// prefix sums and turns a failure index into an error). The operands are on one executor.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

// A backend's entry points on executor type Exec; what follows Exec opens each template
// parameter list (the unified templates: `typename Exec,`).
#define LOOM_DECLARE_MULTIGRID_KERNELS(Exec, ...)                                                  \
    /* row_nnz[r] = entries of row r with |a_ij|^2 >= theta^2 |d_i d_j| or j == r, where d is      \
       the diagonal (rows x 1); rows + 1 entries, the last one left for the prefix sum */          \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void strength_row_nnz(const Exec& exec, const matrix::Csr<V, I>& A,                            \
                          const matrix::Dense<V>& diagonal, double theta, Array<I>& row_nnz);      \
    /* result: row_ptrs set from the counts above; fills those entries, in A's order */            \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void strength_fill(const Exec& exec, const matrix::Csr<V, I>& A,                               \
                       const matrix::Dense<V>& diagonal, double theta, matrix::Csr<V, I>& result); \
    /* inverse[r] = 1 / sum_j |a_ij| (0 for a zero row); returns the first zero row, or rows */    \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    size_type l1_inverse_diagonal(const Exec& exec, const matrix::Csr<V, I>& A,                    \
                                  Array<V>& inverse);                                              \
    /* P (n x count m, nnz n m): row r holds columns aggregate_of[r] m + 0..m-1, values 1 */       \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void tentative_pattern(const Exec& exec, const Array<I>& aggregate_of, size_type m,            \
                           matrix::Csr<V, I>& P);                                                  \
    /* Per aggregate a (members: count x n, row a = its rows, sorted): B's rows of a = Q R by      \
       modified Gram-Schmidt, Q into P's values (pattern from tentative_pattern), R into rows      \
       a m .. a m + m - 1 of coarse (count m x m). Returns the first aggregate whose rows          \
       cannot represent B's columns independently, or count */                                     \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    size_type orthonormalize_aggregates(const Exec& exec, const matrix::Csr<V, I>& members,        \
                                        const matrix::Dense<V>& B, matrix::Csr<V, I>& P,           \
                                        matrix::Dense<V>& coarse);                                 \
    /* One handshake round of pairwise matching: proposal[v] = the unmatched neighbour with        \
       the strongest negative coupling of every unmatched v (-1: none, or v matched);              \
       diagonal: S's (rows x 1) */                                                                 \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void pairwise_propose(const Exec& exec, const matrix::Csr<V, I>& S,                            \
                          const matrix::Dense<V>& diagonal, const Array<I>& partner,               \
                          Array<I>& proposal);                                                     \
    /* joined[v] = the matched neighbour with the strongest negative coupling of every             \
       unmatched v (-1: none, or v matched): where a vertex left alone joins */                    \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void pairwise_join(const Exec& exec, const matrix::Csr<V, I>& S,                               \
                       const matrix::Dense<V>& diagonal, const Array<I>& partner,                  \
                       Array<I>& joined);                                                          \
    /* partner[v] = proposal[v] where the two proposed to each other; returns 1 when a pair        \
       formed, else 0 */                                                                           \
    template <__VA_ARGS__ typename I>                                                              \
    size_type pairwise_accept(const Exec& exec, const Array<I>& proposal, Array<I>& partner);      \
    /* flags[v] = 1 where v is its aggregate's root (setup_rows::pair_root; rows + 1               \
       entries, the last left for the scan) */                                                     \
    template <__VA_ARGS__ typename I>                                                              \
    void pair_root_flags(const Exec& exec, const Array<I>& partner, const Array<I>& joined,        \
                         Array<I>& flags);                                                         \
    /* aggregate_of[v] = positions[root of v]; roots[positions[v]] = v for every root */           \
    template <__VA_ARGS__ typename I>                                                              \
    void pair_aggregates(const Exec& exec, const Array<I>& partner, const Array<I>& joined,        \
                         const Array<I>& positions, Array<I>& aggregate_of, Array<I>& roots);      \
    /* positions[k] = the index in R = P^H (as transposed by sparse::conj_transpose: rows          \
       sorted) of P's entry k */                                                                   \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void transpose_positions(const Exec& exec, const matrix::Csr<V, I>& P,                         \
                             const matrix::Csr<V, I>& R, Array<I>& positions);                     \
    /* R's values = conj(P's values) at those positions: P^H for P's new values */                 \
    template <__VA_ARGS__ typename V, typename I>                                                  \
    void conj_transpose_values(const Exec& exec, const matrix::Csr<V, I>& P,                       \
                               const Array<I>& positions, matrix::Csr<V, I>& R);                   \
    /* x(i, 0) = setup_rows::start_value(i) (x: n x 1) */                                          \
    template <__VA_ARGS__ typename V>                                                              \
    void start_vector(const Exec& exec, matrix::Dense<V>& x);                                      \
    /* out[k] = table[indices[k]] */                                                               \
    template <__VA_ARGS__ typename I>                                                              \
    void gather_indices(const Exec& exec, const Array<I>& table, const Array<I>& indices,          \
                        Array<I>& out);                                                            \
    /* out[v] = values[v / block] * scale for every entry of out; values empty: v / block */       \
    template <__VA_ARGS__ typename I>                                                              \
    void spread_blocks(const Exec& exec, const Array<I>& values, size_type block, I scale,         \
                       Array<I>& out)

#define LOOM_INSTANTIATE_MULTIGRID_KERNELS(Exec, V, I)                                             \
    template void strength_row_nnz(const Exec&, const matrix::Csr<V, I>&, const matrix::Dense<V>&, \
                                   double, Array<I>&);                                             \
    template void strength_fill(const Exec&, const matrix::Csr<V, I>&, const matrix::Dense<V>&,    \
                                double, matrix::Csr<V, I>&);                                       \
    template size_type l1_inverse_diagonal(const Exec&, const matrix::Csr<V, I>&, Array<V>&);      \
    template void tentative_pattern(const Exec&, const Array<I>&, size_type, matrix::Csr<V, I>&);  \
    template size_type orthonormalize_aggregates(const Exec&, const matrix::Csr<V, I>&,            \
                                                 const matrix::Dense<V>&, matrix::Csr<V, I>&,      \
                                                 matrix::Dense<V>&);                               \
    template void pairwise_propose(const Exec&, const matrix::Csr<V, I>&, const matrix::Dense<V>&, \
                                   const Array<I>&, Array<I>&);                                    \
    template void pairwise_join(const Exec&, const matrix::Csr<V, I>&, const matrix::Dense<V>&,    \
                                const Array<I>&, Array<I>&);                                       \
    template void transpose_positions(const Exec&, const matrix::Csr<V, I>&,                       \
                                      const matrix::Csr<V, I>&, Array<I>&);                        \
    template void conj_transpose_values(const Exec&, const matrix::Csr<V, I>&, const Array<I>&,    \
                                        matrix::Csr<V, I>&);

#define LOOM_INSTANTIATE_MULTIGRID_VALUE_KERNELS(Exec, V) \
    template void start_vector(const Exec&, matrix::Dense<V>&);

#define LOOM_INSTANTIATE_MULTIGRID_INDEX_KERNELS(Exec, I)                                         \
    template void spread_blocks(const Exec&, const Array<I>&, size_type, I, Array<I>&);           \
    template size_type pairwise_accept(const Exec&, const Array<I>&, Array<I>&);                  \
    template void pair_root_flags(const Exec&, const Array<I>&, const Array<I>&, Array<I>&);      \
    template void pair_aggregates(const Exec&, const Array<I>&, const Array<I>&, const Array<I>&, \
                                  Array<I>&, Array<I>&);                                          \
    template void gather_indices(const Exec&, const Array<I>&, const Array<I>&, Array<I>&);

/// Every kernel of the family on Exec, for each built type (base/instantiate.hpp).
#define LOOM_INSTANTIATE_MULTIGRID_ALL_KERNELS(Exec)                                \
    LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_MULTIGRID_KERNELS, Exec) \
    LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_MULTIGRID_VALUE_KERNELS, Exec)     \
    LOOM_FOR_EACH_INDEX_TYPE_ON(LOOM_INSTANTIATE_MULTIGRID_INDEX_KERNELS, Exec)

namespace loom::multigrid {
namespace reference {
LOOM_DECLARE_MULTIGRID_KERNELS(ReferenceExecutor);
}
/// OpenMP and CUDA share one body per kernel, a template over the executor (unified.hpp);
/// omp.cpp and cuda.cu instantiate it for theirs.
namespace unified {
LOOM_DECLARE_MULTIGRID_KERNELS(Exec, typename Exec, );
}
namespace omp = unified;
namespace cuda = unified;
}  // namespace loom::multigrid
