// Multicolor Gauss-Seidel sweeps: the numerical kernel of precond::GaussSeidel, public so a
// multigrid smoother can drive it with its own orders.
//
// A sweep visits the colors one after the other; the rows (point variant) or clusters
// (cluster variant) of one color share no edge, so they are relaxed in parallel, and a
// cluster's rows are relaxed one after the other inside:
//
//     x_i += omega (b_i - sum_j a_ij x_j) / a_ii      for every column of b and x
//
// A forward sweep takes the colors ascending (and a cluster's rows ascending); a backward one
// is its exact reverse, so forward then backward is a symmetric operator for symmetric A.
// Every backend relaxes the same rows with the same sums in the same order: the reference
// backend, which runs the order sequentially, is the exact oracle of the parallel ones.
#pragma once

#include <vector>

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::sparse {

enum class SweepDirection { forward, backward };

/// The order of a multicolor sweep, on the matrix's executor (precond::GaussSeidel builds it
/// from a coloring of A's graph; any order whose colors are independent sets will do).
template <typename I>
struct SweepOrder {
    /// Every row once, grouped by cluster, the clusters grouped by color.
    Array<I> rows;
    /// Cluster k holds rows[cluster_ptrs[k] .. cluster_ptrs[k + 1]); empty: a cluster per row.
    Array<I> cluster_ptrs;
    /// Color c holds clusters [color_ptrs[c], color_ptrs[c + 1]) (host memory).
    std::vector<size_type> color_ptrs;

    size_type num_colors() const noexcept { return color_ptrs.empty() ? 0 : color_ptrs.size() - 1; }
    bool is_point() const noexcept { return cluster_ptrs.size() == 0; }
};

/// One sweep over `order` updating x in place. inverse_diagonal = 1 / a_ii
/// (sparse::invert_diagonal). DimensionMismatch for sizes that do not fit A; BadInput when
/// the order does not belong to A (size, executor).
template <typename V, typename I>
LOOM_EXPORT void gauss_seidel_sweep(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal,
                        const SweepOrder<I>& order, SweepDirection direction, V omega,
                        const matrix::Dense<V>& b, matrix::Dense<V>& x);

}  // namespace loom::sparse

LOOM_PUBLIC_END
