// Algebraic multigrid by smoothed aggregation: a hierarchy of ever smaller Galerkin operators
// built from a Csr matrix, applied as one multigrid cycle (x = M^-1 b, from a zero guess).
//
//     auto amg = solver::Multigrid<double>::build()
//                    .with_cycle(solver::MultigridCycle::v)
//                    .with_smoother(solver::MultigridSmoother::chebyshev)
//                    .on(exec);
//     auto cg = solver::Cg<double>::build().with_preconditioner(amg)...on(exec);
//
// As a solver on its own, with criteria, it is the inner solver of solver::Ir (stationary
// iteration x += M^-1 (b - A x)): Ir<V>::build().with_solver(amg).with_criteria(...).
//
// Setup, level by level until `coarse_size` rows or `max_levels` levels (src/multigrid/NOTES.md):
// strength filter (keep |a_ij| >= theta sqrt(|a_ii a_jj|); theta = 0 keeps A's pattern),
// MIS-2 (or pairwise: MultigridAggregation) aggregation of the filtered graph (of its nodes
// when a node has several unknowns: dofs_per_node), tentative prolongator (piecewise
// constant, or the near-null-space vectors orthonormalized per aggregate; for elasticity the
// rigid-body modes of the nodal coordinates, Builder::with_coordinates),
// P = (I - omega D^-1 A) P_tent with omega = prolongator_weight / rho(D^-1 A) by the
// Jacobi-fused SpGEMM (or P = P_tent: with_smoothing(false)), R = P^T and A_c = R (A P) by
// two SpGEMMs; the coarsest level is solved by dense LU. update() redoes the numeric part only
// (new values on the same pattern), reusing the aggregates and the SpGEMM analyses. The
// cycle's work vectors live in the hierarchy: one object must not be applied from two threads
// at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loom/base/names.hpp"
#include "loom/base/array.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/log/logger.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::solver {

/// V: one coarse visit per level; W: two; F: an F-cycle then a V-cycle on the coarse level.
enum class MultigridCycle { v, w, f };
LOOM_NAME_TABLE(MultigridCycle, multigrid_cycle_names, "multigrid cycle",
    {MultigridCycle::v, "v", "one coarse visit per level"},
    {MultigridCycle::w, "w", "two coarse visits per level"},
    {MultigridCycle::f, "f", "an F-cycle then a V-cycle on the coarse level"},
);
/// "v", "w" or "f"; BadInput otherwise.
MultigridCycle parse_multigrid_cycle(const std::string& text);

/// The smoother of every level but the coarsest. jacobi: x += (4/3) / rho(D^-1 A) D^-1 r;
/// l1_jacobi: x += D_l1^-1 r with D_l1 = diag(sum_j |a_ij|); chebyshev: the Chebyshev
/// polynomial of D^-1 A on [0.3, 1.1] rho of degree `sweeps`; gauss_seidel: `sweeps`
/// symmetric (forward, then backward) multicolor Gauss-Seidel sweeps (precond::GaussSeidel).
enum class MultigridSmoother { jacobi, l1_jacobi, chebyshev, gauss_seidel };
LOOM_NAME_TABLE(MultigridSmoother, multigrid_smoother_names, "multigrid smoother",
    {MultigridSmoother::jacobi, "jacobi", "damped Jacobi"},
    {MultigridSmoother::l1_jacobi, "l1-jacobi", "L1-Jacobi", {"l1_jacobi"}},
    {MultigridSmoother::chebyshev, "chebyshev", "Chebyshev polynomial of D^-1 A"},
    {MultigridSmoother::gauss_seidel, "gauss-seidel", "multicolor symmetric Gauss-Seidel",
     {"gauss_seidel", "sgs"}},
);
/// "jacobi", "l1-jacobi", "chebyshev" or "gauss-seidel"; BadInput otherwise.
MultigridSmoother parse_multigrid_smoother(const std::string& text);

/// How a level's rows are grouped into the next level's unknowns. mis2: MIS-2 roots and
/// their neighbours (aggregates of ~10-30 rows on 3D grids, few levels); pairwise: Notay's
/// pairwise aggregation as Ginkgo's PGM does it, `pairwise_passes` rounds of matching every
/// vertex with its unmatched neighbour of strongest negative coupling, a vertex left alone
/// joining a neighbouring pair (aggregates of about 2^passes rows, more levels). Meant with
/// plain aggregation (with_smoothing(false)): smoothing so small aggregates fills P and the
/// coarse operators several times over (operator complexity 5 on Poisson 3D).
enum class MultigridAggregation { mis2, pairwise };
LOOM_NAME_TABLE(MultigridAggregation, multigrid_aggregation_names, "multigrid aggregation",
    {MultigridAggregation::mis2, "mis2", "MIS-2 roots and their neighbours", {"mis-2"}},
    {MultigridAggregation::pairwise, "pairwise",
     "pairwise matching by strongest negative coupling (PGM)", {"pgm"}},
);
/// "mis2" or "pairwise" (aliases "mis-2", "pgm"); BadInput otherwise.
MultigridAggregation parse_multigrid_aggregation(const std::string& text);

/// What setup built on one level: rows, nonzeros, rho(D^-1 A), setup time (log/logger.hpp).
using MultigridLevelInfo = log::HierarchyLevel;

template <typename V>
struct MultigridParameters {
    /// theta of the strength filter, in [0, 1).
    double strength_threshold = 0.0;
    MultigridAggregation aggregation = MultigridAggregation::mis2;
    graph::Mis2Mode aggregation_mode = graph::Mis2Mode::quality;
    /// Matching passes of pairwise aggregation (aggregates of about 2^passes rows).
    int pairwise_passes = 2;
    /// Whether A's pattern is symmetric (skips the symmetrization in MIS-2).
    bool symmetric_pattern = false;
    /// Levels at most (>= 1), the finest included.
    size_type max_levels = 20;
    /// A level with at most this many rows is the coarsest (dense LU).
    size_type coarse_size = 300;
    /// omega * rho(D^-1 A) of the prolongator smoothing; 0 keeps P = P_tent.
    double prolongator_weight = 4.0 / 3.0;
    /// false: P = P_tent (plain aggregation, as PGM), whatever prolongator_weight says.
    bool smoothing = true;
    /// Power iterations of the estimate of rho(D^-1 A).
    int power_iterations = 15;
    MultigridCycle cycle = MultigridCycle::v;
    MultigridSmoother smoother = MultigridSmoother::chebyshev;
    /// Smoothing sweeps before and after the coarse correction (the Chebyshev degree).
    int pre_sweeps = 2;
    int post_sweeps = 2;
    /// n x m near-null-space vectors of A (rigid-body modes); none: the constant vector.
    std::shared_ptr<const matrix::Dense<V>> near_null_space;
    /// Unknowns per node, consecutive rows (3 for 3D elasticity): the finest level aggregates
    /// nodes (the graph where any entry couples two nodes), never splitting one; the coarse
    /// levels have nodes of m rows, one per near-null-space vector. Above 1 without
    /// near-null-space vectors, the dofs_per_node translations (1 on one component's rows).
    size_type dofs_per_node = 1;
    /// Attached to every generated hierarchy; told of its setup and every update()
    /// (log::Logger::on_hierarchy_built).
    std::vector<std::shared_ptr<log::Logger>> loggers;
};

template <typename V, typename I = int32>
class Multigrid final : public EnableGenerated<Multigrid<V, I>, V, MultigridParameters<V>> {
public:
    using index_type = I;
    using Parameters = MultigridParameters<V>;

    class Builder : public FactoryBuilder<Builder, Parameters, Multigrid> {
    public:
        /// BadInput outside [0, 1).
        Builder& with_strength_threshold(double theta);
        Builder& with_aggregation(MultigridAggregation aggregation)
        {
            return this->set(&Parameters::aggregation, aggregation);
        }
        /// Matching passes of pairwise aggregation; BadInput outside [1, 8].
        Builder& with_pairwise_passes(int passes);
        /// false: the tentative prolongator unsmoothed (plain aggregation).
        Builder& with_smoothing(bool smoothing = true)
        {
            return this->set(&Parameters::smoothing, smoothing);
        }
        Builder& with_aggregation_mode(graph::Mis2Mode mode)
        {
            return this->set(&Parameters::aggregation_mode, mode);
        }
        Builder& with_symmetric_pattern(bool symmetric = true)
        {
            return this->set(&Parameters::symmetric_pattern, symmetric);
        }
        /// BadInput below 1.
        Builder& with_max_levels(size_type levels);
        /// BadInput below 1.
        Builder& with_coarse_size(size_type rows);
        /// BadInput outside [0, 2).
        Builder& with_prolongator_weight(double weight);
        /// BadInput below 1.
        Builder& with_power_iterations(int iterations);
        Builder& with_cycle(MultigridCycle cycle) { return this->set(&Parameters::cycle, cycle); }
        Builder& with_smoother(MultigridSmoother smoother)
        {
            return this->set(&Parameters::smoother, smoother);
        }
        /// BadInput below 0 (pre), 1 (post: the cycle must smooth at least once).
        Builder& with_sweeps(int pre, int post);
        Builder& with_near_null_space(std::shared_ptr<const matrix::Dense<V>> vectors);
        /// BadInput below 1.
        Builder& with_dofs_per_node(size_type dofs);
        /// The rigid-body modes of these nodal coordinates (nodes x 2 or 3) as the near-null
        /// space, and dofs_per_node (multigrid::rigid_body_modes; its BadInput).
        Builder& with_coordinates(const matrix::Dense<V>& coordinates, size_type dofs_per_node);
        /// Adds a logger attached to every generated hierarchy (null: ignored).
        Builder& with_loggers(std::shared_ptr<log::Logger> logger);
    };

    /// Made by Factory::generate: the hierarchy of `system`, a square matrix::Csr<V, I>
    /// (copied to exec when it lives elsewhere). BadInput when null, NotSupported naming the
    /// type of any other operator, DimensionMismatch when not square, when the near-null
    /// space has another number of rows or dofs_per_node does not divide the rows, NumericalError naming the level and row of a zero
    /// diagonal entry (a zero row), or for a singular coarsest operator.
    Multigrid(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
              const Parameters& params);
    ~Multigrid() override;

    /// Numeric re-setup: the hierarchy of `A`, a matrix with the pattern of the one it was
    /// built for and new values. Keeps the aggregates and the SpGEMM analyses; gives the
    /// hierarchy a fresh setup with the same aggregates would give. BadInput when the size or
    /// pattern differs (the hierarchy is then untouched); NumericalError as generate.
    void update(std::shared_ptr<const matrix::Csr<V, I>> A);

    size_type num_levels() const noexcept;
    /// The operator of level k (0: the system matrix), on this executor.
    const matrix::Csr<V, I>& level_matrix(size_type k) const;
    /// The prolongator from level k + 1 to level k (k < num_levels() - 1).
    const matrix::Csr<V, I>& prolongator(size_type k) const;
    const MultigridLevelInfo& level_info(size_type k) const;
    /// The aggregates of level k's rows (k < num_levels() - 1), on this executor.
    const graph::Aggregation<I>& aggregation(size_type k) const;
    /// Sum of the levels' nonzeros over the finest level's.
    double operator_complexity() const noexcept;
    /// Sum of the levels' rows over the finest level's.
    double grid_complexity() const noexcept;
    /// Wall time of the whole setup (or of the last update()).
    double setup_seconds() const noexcept;
    /// One line per level and the complexities, for people.
    std::string report() const;

    struct Level;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const override;

private:
    void build_levels(std::shared_ptr<const matrix::Csr<V, I>> A);
    void cycle(size_type k, MultigridCycle kind, const matrix::Dense<V>& b, matrix::Dense<V>& x,
               bool zero_guess) const;
    void smooth(const Level& level, int sweeps, const matrix::Dense<V>& b, matrix::Dense<V>& x,
                bool zero_guess) const;
    void prepare_workspace(size_type columns) const;
    /// Tells the loggers the hierarchy's levels (after a setup or a numeric re-setup).
    void log_hierarchy(bool numeric_only) const;

    std::vector<std::unique_ptr<Level>> levels_;
    double setup_seconds_ = 0;
    mutable matrix::Dense<V> scaled_;  ///< the cycle's result when apply has alpha and beta
};

}  // namespace loom::solver

LOOM_PUBLIC_END
