// One level of a Multigrid hierarchy: its operator, what its smoother needs, the transfer to
// the next level with the SpGEMM analyses that update() reuses, and the cycle's work vectors.
#pragma once

#include <memory>
#include <optional>

#include "loom/base/array.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/precond/gauss_seidel.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/sparse/spgemm.hpp"

namespace loom::solver {

template <typename V, typename I>
struct Multigrid<V, I>::Level {
    std::shared_ptr<const matrix::Csr<V, I>> A;
    /// D^-1 of A: prolongator smoothing, Jacobi and Chebyshev.
    Array<V> inverse_diagonal;
    /// D_l1^-1 of the L1-Jacobi smoother (empty otherwise).
    Array<V> l1_inverse_diagonal;
    double rho = 0;  ///< rho(D^-1 A)
    /// The symmetric multicolor Gauss-Seidel sweeps of A (only for that smoother).
    std::shared_ptr<const precond::GaussSeidel<V, I>> gauss_seidel;
    MultigridLevelInfo info;

    // Transfer to level k + 1 (all but the coarsest level).
    std::optional<graph::Aggregation<I>> aggregation;
    matrix::Csr<V, I> tentative;  ///< P_tent
    matrix::Csr<V, I> P;
    matrix::Csr<V, I> R;  ///< P^H
    Array<I> transpose_positions;  ///< where P's entries sit in R (update() rewrites R's values)
    matrix::Csr<V, I> AP;
    std::shared_ptr<matrix::Csr<V, I>> coarse;  ///< R A P, the next level's A
    sparse::SpgemmHandle<V, I> smooth_handle;
    sparse::SpgemmHandle<V, I> ap_handle;
    sparse::SpgemmHandle<V, I> rap_handle;

    // The coarsest level: LU factors of A (none: smoothed instead, see NOTES.md).
    std::optional<matrix::Dense<V>> lu;
    Array<int32> pivots;

    // Work vectors of the cycle, rows x (right-hand sides): b and x of coarse levels, the
    // residual r and the Chebyshev direction d of every level.
    mutable matrix::Dense<V> b, x, r, d;

    bool is_coarsest() const noexcept { return coarse == nullptr; }
};

}  // namespace loom::solver
