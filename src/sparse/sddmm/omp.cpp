// OpenMP SDDMM: every stored entry is a dot product of two rows of length k (vectorized
// along k), independent of the others, so the entries are cut into equal chunks whatever
// their rows (a dense row is shared by all threads). Row i of X stays in L1 while the row's
// entries walk the rows of Y.
#include <omp.h>

#include <algorithm>
#include <utility>

#include "base/instantiate_storage.hpp"
#include "base/omp/arithmetic.hpp"
#include "sparse/sddmm/kernels.hpp"

namespace loom::sparse::omp {
namespace {

using loom::omp::mul;

/// Below this many multiply-adds one thread does all the work.
constexpr size_type min_parallel_work = size_type{1} << 15;

/// x_r . y_c in the compute type (float for the 16-bit storage types).
template <bool RowMajor, typename V, typename T = compute_type_t<V>>
T dot(const DenseOperand<const V>& X, size_type r, const DenseOperand<const V>& Y, size_type c,
      size_type k)
{
    const V* x = X.data + r * X.row_step;
    const V* y = Y.data + c * Y.row_step;
    const size_type x_step = RowMajor ? 1 : X.col_step;
    const size_type y_step = RowMajor ? 1 : Y.col_step;
    T sum{};
    if constexpr (is_complex_v<V>) {
        for (size_type j = 0; j < k; ++j) sum += mul(x[j * x_step], y[j * y_step]);
    } else {
#pragma omp simd reduction(+ : sum)
        for (size_type j = 0; j < k; ++j) {
            sum += static_cast<T>(x[j * x_step]) * static_cast<T>(y[j * y_step]);
        }
    }
    return sum;
}

template <bool RowMajor, typename V, typename I, typename T = compute_type_t<V>>
void sddmm_chunks(const OmpExecutor& exec, T alpha, const DenseOperand<const V>& X,
                  const DenseOperand<const V>& Y, size_type k, T beta, matrix::Csr<V, I>& S)
{
    // Through a const view: the non-const pattern accessors would drop S's cached plans.
    const auto& pattern = std::as_const(S);
    const I* row_ptrs = pattern.row_ptrs().data();
    const I* cols = pattern.col_idxs().data();
    V* values = S.values().data();
    const size_type rows = S.rows();
    const size_type nnz = S.nnz();
    // Entries [first, last), whatever their rows: every entry is its own dot product.
    const auto chunk = [&](size_type first, size_type last) {
        size_type r = std::upper_bound(row_ptrs, row_ptrs + rows + 1, static_cast<I>(first)) -
                      row_ptrs - 1;
        for (size_type e = first; e < last; ++e) {
            while (row_ptrs[r + 1] <= e) ++r;
            const T sum = dot<RowMajor>(X, r, Y, cols[e], k);
            values[e] = static_cast<V>(beta == T{0} ? mul(alpha, sum)
                                                    : mul(alpha, sum) +
                                                          mul(beta, static_cast<T>(values[e])));
        }
    };
    const int threads = nnz * k < min_parallel_work ? 1 : std::max(exec.num_threads(), 1);
    if (threads == 1) {
        chunk(0, nnz);
        return;
    }
    const size_type chunks = std::min<size_type>(nnz, 32 * static_cast<size_type>(threads));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (size_type c = 0; c < chunks; ++c) chunk(c * nnz / chunks, (c + 1) * nnz / chunks);
}

}  // namespace

template <typename V, typename I>
void sddmm_csr(const OmpExecutor& exec, compute_type_t<V> alpha, DenseOperand<const V> X,
               DenseOperand<const V> Y, size_type k, compute_type_t<V> beta, matrix::Csr<V, I>& S,
               SddmmAlgorithm)
{
    if (X.row_major() && Y.row_major()) {
        sddmm_chunks<true>(exec, alpha, X, Y, k, beta, S);
    } else {
        sddmm_chunks<false>(exec, alpha, X, Y, k, beta, S);
    }
}

#define LOOM_INSTANTIATE_SDDMM_OMP(V, I) LOOM_INSTANTIATE_SDDMM_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_OMP)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SDDMM_OMP)

}  // namespace loom::sparse::omp
