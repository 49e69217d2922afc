// Per-backend entry points of the Gauss-Seidel family (include/loom/sparse/gauss_seidel.hpp),
// and the row relaxation they all share. Arguments arrive checked and on the executor.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/gauss_seidel.hpp"
#include "base/dispatch.hpp"

namespace loom::sparse::gauss_seidel {

/// Raw pointers of one sweep, so host and device code relax rows through the same function.
template <typename D, typename I>
struct SweepData {
    const I* row_ptrs;
    const I* cols;
    const D* values;
    const D* inverse_diagonal;
    const I* rows;
    const I* cluster_ptrs;  ///< nullptr: a cluster per row
    const D* b;
    D* x;
    long long num_rhs;
    long long b_stride;
    long long x_stride;
    D omega;
};

/// The sweep's pointers, values seen as D (V itself on the host, its device twin in CUDA code,
/// which has the same layout).
template <typename D, typename V, typename I>
SweepData<D, I> sweep_data(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal,
                           const SweepOrder<I>& order, V omega, const matrix::Dense<V>& b,
                           matrix::Dense<V>& x)
{
    static_assert(sizeof(D) == sizeof(V));
    return {A.row_ptrs().data(),
            A.col_idxs().data(),
            reinterpret_cast<const D*>(A.values().data()),
            reinterpret_cast<const D*>(inverse_diagonal.data()),
            order.rows.data(),
            order.is_point() ? nullptr : order.cluster_ptrs.data(),
            reinterpret_cast<const D*>(b.data()),
            reinterpret_cast<D*>(x.data()),
            static_cast<long long>(b.cols()),
            static_cast<long long>(b.stride()),
            static_cast<long long>(x.stride()),
            *reinterpret_cast<const D*>(&omega)};
}

/// x_row += omega (b_row - A(row, :) x) / a_row,row for every right-hand side.
template <typename D, typename I>
LOOM_HOST_DEVICE LOOM_INLINE void relax_row(const SweepData<D, I>& s, I row)
{
    const auto begin = s.row_ptrs[row];
    const auto end = s.row_ptrs[row + 1];
    for (long long c = 0; c < s.num_rhs; ++c) {
        D sum = s.b[row * s.b_stride + c];
        for (auto p = begin; p < end; ++p) sum -= s.values[p] * s.x[s.cols[p] * s.x_stride + c];
        s.x[row * s.x_stride + c] += s.omega * sum * s.inverse_diagonal[row];
    }
}

/// Relaxes cluster k's rows in order (reversed for a backward sweep).
template <typename D, typename I>
LOOM_HOST_DEVICE LOOM_INLINE void relax_cluster(const SweepData<D, I>& s, long long k,
                                                bool backward)
{
    if (s.cluster_ptrs == nullptr) {
        relax_row(s, s.rows[k]);
        return;
    }
    const long long begin = s.cluster_ptrs[k];
    const long long end = s.cluster_ptrs[k + 1];
    for (long long t = 0; t < end - begin; ++t) {
        relax_row(s, s.rows[backward ? end - 1 - t : begin + t]);
    }
}

}  // namespace loom::sparse::gauss_seidel

#define LOOM_DECLARE_GAUSS_SEIDEL_KERNELS(Exec)                                           \
    template <typename V, typename I>                                                     \
    void gauss_seidel_sweep(const Exec& exec, const matrix::Csr<V, I>& A,                 \
                            const Array<V>& inverse_diagonal, const SweepOrder<I>& order, \
                            SweepDirection direction, V omega, const matrix::Dense<V>& b, \
                            matrix::Dense<V>& x)

#define LOOM_INSTANTIATE_GAUSS_SEIDEL_KERNELS(Exec, V, I)                                    \
    template void gauss_seidel_sweep(const Exec&, const matrix::Csr<V, I>&, const Array<V>&, \
                                     const SweepOrder<I>&, SweepDirection, V,                \
                                     const matrix::Dense<V>&, matrix::Dense<V>&)

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_GAUSS_SEIDEL_KERNELS)
