// CHOLMOD's supernodal Cholesky factorization (include/loom/sparse/cholmod.hpp). CMake
// defines LOOM_HAS_CHOLMOD for this file alone when it finds CHOLMOD, so that the rest of
// the library neither sees its headers nor rebuilds when it appears.
#include "loom/sparse/cholmod.hpp"

#include <string>
#include <type_traits>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"

#ifndef LOOM_HAS_CHOLMOD
#define LOOM_HAS_CHOLMOD 0
#endif
#if LOOM_HAS_CHOLMOD
#include <cholmod.h>
#endif

namespace loom::sparse {
namespace {

constexpr const char* where = "loom::sparse::cholmod_cholesky";

#if LOOM_HAS_CHOLMOD
/// cholmod_start and cholmod_finish around one factorization.
class Common {
public:
    Common() { cholmod_start(&common_); }
    ~Common() { cholmod_finish(&common_); }
    Common(const Common&) = delete;
    Common& operator=(const Common&) = delete;
    cholmod_common* get() { return &common_; }

private:
    cholmod_common common_{};
};

template <typename V, typename I>
CholeskyFactor<V, I> factor(const matrix::Csr<V, I>& A)
{
    const auto n = A.rows();
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    Common common;
    auto* c = common.get();
    c->supernodal = CHOLMOD_SUPERNODAL;
    // A's rows are the columns of A^T = A: CHOLMOD reads the upper triangle of that CSC.
    cholmod_sparse* a = cholmod_allocate_sparse(n, n, values.size(), /*sorted=*/0, /*packed=*/1,
                                                /*stype=*/1, CHOLMOD_REAL, c);
    if (a == nullptr) throw Error(where, "cholmod_allocate_sparse failed");
    auto* ap = static_cast<int*>(a->p);
    auto* ai = static_cast<int*>(a->i);
    auto* ax = static_cast<double*>(a->x);
    for (size_type k = 0; k <= n; ++k) ap[k] = static_cast<int>(ptrs[k]);
    for (size_type k = 0; k < static_cast<size_type>(values.size()); ++k) {
        ai[k] = static_cast<int>(cols[k]);
        ax[k] = static_cast<double>(values[k]);
    }
    cholmod_factor* f = cholmod_analyze(a, c);
    const bool factored = f != nullptr && cholmod_factorize(a, f, c) != 0;
    cholmod_free_sparse(&a, c);
    if (!factored || c->status == CHOLMOD_NOT_POSDEF) {
        const auto minor = f == nullptr ? 0 : static_cast<size_type>(f->minor);
        cholmod_free_factor(&f, c);
        throw NumericalError(where, "A is not positive definite (CHOLMOD stopped at column " +
                                        std::to_string(minor) + " of the permuted matrix)");
    }
    CholeskyFactor<V, I> result;
    const auto* perm = static_cast<const int*>(f->Perm);
    result.permutation.assign(perm, perm + n);
    const auto* super = static_cast<const int*>(f->super);
    if (f->is_super) result.supernodes.assign(super, super + f->nsuper + 1);
    // L as CSC (columns sorted), then its rows by a counting sort by row.
    cholmod_sparse* l = cholmod_factor_to_sparse(f, c);
    cholmod_free_factor(&f, c);
    if (l == nullptr) throw Error(where, "cholmod_factor_to_sparse failed");
    const auto* lp = static_cast<const int*>(l->p);
    const auto* li = static_cast<const int*>(l->i);
    const auto* lx = static_cast<const double*>(l->x);
    const size_type nnz = lp[n];
    std::vector<I> row_ptrs(n + 1, 0), col_idxs(nnz);
    std::vector<V> l_values(nnz);
    for (size_type k = 0; k < nnz; ++k) ++row_ptrs[li[k] + 1];
    for (size_type r = 0; r < n; ++r) row_ptrs[r + 1] += row_ptrs[r];
    auto next = row_ptrs;
    for (size_type j = 0; j < n; ++j) {
        for (auto k = lp[j]; k < lp[j + 1]; ++k) {
            const auto slot = next[li[k]]++;
            col_idxs[slot] = static_cast<I>(j);
            l_values[slot] = static_cast<V>(lx[k]);
        }
    }
    cholmod_free_sparse(&l, c);
    result.L = matrix::Csr<V, I>::from_host(A.executor(), {n, n}, row_ptrs, col_idxs, l_values);
    return result;
}
#endif

}  // namespace

bool cholmod_available() { return LOOM_HAS_CHOLMOD; }

template <typename V, typename I>
CholeskyFactor<V, I> cholmod_cholesky(const matrix::Csr<V, I>& A)
{
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(where, "A", A.size(), "A", A.size(),
                                "a Cholesky factorization needs a square matrix");
    }
    if constexpr (!std::is_floating_point_v<V>) {
        throw NotSupported(where, "complex values (this interface factors real matrices)");
    } else {
#if LOOM_HAS_CHOLMOD
        return factor(A);
#else
        throw NotSupported(where,
                           "this build of Loom has no CHOLMOD (install SuiteSparse, "
                           "Debian libsuitesparse-dev, and configure again)");
#endif
    }
}

#define LOOM_INSTANTIATE(V, I) \
    template CholeskyFactor<V, I> cholmod_cholesky(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::sparse
