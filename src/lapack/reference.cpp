// Reference dense LAPACK: unblocked textbook algorithms, the oracle for the other backends.
#include <utility>

#include "base/instantiate.hpp"
#include "lapack/algorithms.hpp"
#include "lapack/kernels.hpp"

namespace loom::lapack::reference {

using blas::detail::Strided;
using blas::detail::Triangle;

template <typename V>
void getrf(const ReferenceExecutor&, Strided<V> A, int32* pivots, int32* info)
{
    detail::unblocked_getrf(A, pivots, 0, info);
}

template <typename V>
void permute_rows(const ReferenceExecutor&, const int32* pivots, size_type first, size_type count,
                  Strided<V> B, bool reverse)
{
    for (size_type s = 0; s < count; ++s) {
        const size_type k = reverse ? first + count - 1 - s : first + s;
        const size_type p = pivots[k];
        if (p == k) continue;
        for (size_type j = 0; j < B.cols; ++j) std::swap(*B.ptr(k, j), *B.ptr(p, j));
    }
}

template <typename V>
size_type first_zero_diagonal(const ReferenceExecutor&, Strided<const V> A)
{
    return detail::first_zero_diagonal(A);
}

template <typename V>
void trtri(const ReferenceExecutor&, Triangle<V> T)
{
    detail::unblocked_trtri(T);
}

LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_LAPACK_KERNELS, ReferenceExecutor)

}  // namespace loom::lapack::reference
