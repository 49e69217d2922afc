// OpenMP dense LAPACK: the blocked drivers of algorithms.hpp on the OpenMP level-3 kernels.
// Panels and diagonal blocks are small and run on one thread; the trailing updates (gemm,
// trsm, trmm) and the row interchanges are parallel.
#include <algorithm>
#include <utility>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "blas/level3/kernels.hpp"
#include "lapack/algorithms.hpp"
#include "lapack/kernels.hpp"

namespace loom::lapack::omp {

using blas::detail::Strided;
using blas::detail::Triangle;

namespace {

/// The OpenMP kernels the blocked drivers are written against.
struct Kernels {
    static constexpr size_type panel_width = 64;
    static constexpr size_type block_width = 64;

    template <typename V>
    static void panel(const OmpExecutor&, Strided<V> P, int32* pivots, size_type offset,
                      int32* info)
    {
        detail::unblocked_getrf(P, pivots, offset, info);
    }
    template <typename V>
    static void diagonal_block(const OmpExecutor&, Triangle<V> T)
    {
        detail::unblocked_trtri(T);
    }
};

}  // namespace

template <typename V>
void getrf(const OmpExecutor& exec, Strided<V> A, int32* pivots, int32* info)
{
    detail::blocked_getrf<Kernels>(exec, A, pivots, info);
}

template <typename V>
void permute_rows(const OmpExecutor& exec, const int32* pivots, size_type first, size_type count,
                  Strided<V> B, bool reverse)
{
    // Columns are independent: each thread applies every interchange to its columns.
    constexpr size_type chunk = 64;
    loom::omp::parallel_for(exec, (B.cols + chunk - 1) / chunk, [&](size_type c) {
        const size_type j_end = std::min(B.cols, (c + 1) * chunk);
        for (size_type s = 0; s < count; ++s) {
            const size_type k = reverse ? first + count - 1 - s : first + s;
            const size_type p = pivots[k];
            if (p == k) continue;
            for (size_type j = c * chunk; j < j_end; ++j) std::swap(*B.ptr(k, j), *B.ptr(p, j));
        }
    });
}

template <typename V>
size_type first_zero_diagonal(const OmpExecutor&, Strided<const V> A)
{
    return detail::first_zero_diagonal(A);
}

template <typename V>
void trtri(const OmpExecutor& exec, Triangle<V> T)
{
    detail::blocked_trtri<Kernels>(exec, T);
}

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_LAPACK_KERNELS, OmpExecutor)

}  // namespace loom::lapack::omp
