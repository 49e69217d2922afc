// Incomplete factorization preconditioners: M = (L U)^-1 (precond::Ilu) or (L L^H)^-1
// (precond::Ic) for factors from any incomplete factorization of loom/sparse/ilu.hpp.
//
//     auto ilu = precond::Ilu<double>::build()
//                    .with_kind(sparse::IluKind::parilut)
//                    .with_fill_limit(3.0)
//                    .on(exec);
//     auto gmres = solver::Gmres<double>::build().with_preconditioner(ilu)...on(exec);
//
//     auto ic = precond::Ic<double>::build().on(exec);    // IC(0), shifting where needed
//     auto cg = solver::Cg<double>::build().with_preconditioner(ic)...on(exec);
//
// An apply solves with L, then with U (L^H): exactly, by SpTRSV analysed once at generation
// (any SptrsvAlgorithm), or approximately, by a number of Jacobi sweeps
// x <- x + D^-1 (b - T x) from x = D^-1 b, or by an SpMV with the factor's ISAI; the two
// approximate ones cost SpMVs only and run in parallel whatever the levels of the factors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loom/base/names.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/ilu.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::precond {

/// How an apply solves with a triangular factor.
enum class TriangularSolve {
    /// Exactly, by SpTRSV.
    exact,
    /// Approximately, by Parameters::triangular_sweeps Jacobi sweeps.
    jacobi,
    /// Approximately, by an SpMV with an ISAI of the factor on its own pattern
    /// (loom/sparse/isai.hpp).
    isai
};

LOOM_NAME_TABLE(TriangularSolve, triangular_solve_names, "triangular solve",
    {TriangularSolve::exact, "exact", "SpTRSV", {"sptrsv"}},
    {TriangularSolve::jacobi, "jacobi", "Jacobi sweeps"},
    {TriangularSolve::isai, "isai", "an SpMV with the factor's ISAI"},
);

TriangularSolve parse_triangular_solve(const std::string& text);

/// A symmetric fill- or bandwidth-reducing reordering computed at generation from the
/// system's graph (loom/graph/rcm.hpp, loom/graph/amd.hpp) and applied as the permutation.
enum class Reordering {
    none,
    /// Reverse Cuthill-McKee: a small bandwidth, so fewer and more local dropped entries.
    rcm,
    /// Approximate minimum degree (SuiteSparse AMD; NotCompiled without it): little fill.
    amd
};

LOOM_NAME_TABLE(Reordering, reordering_names, "reordering",
    {Reordering::none, "none", "the system's own order", {"natural"}},
    {Reordering::rcm, "rcm", "reverse Cuthill-McKee"},
    {Reordering::amd, "amd", "approximate minimum degree (SuiteSparse)"},
);

template <typename I, bool cholesky>
struct IncompleteFactorizationParameters {
    /// The factorization; its kind must be an ILU kind for Ilu and an IC kind for Ic.
    sparse::IluOptions factorization{.kind = cholesky ? sparse::IluKind::ic0
                                                      : sparse::IluKind::ilu0};
    TriangularSolve triangular_solve = TriangularSolve::exact;
    /// Jacobi sweeps per triangular solve (TriangularSolve::jacobi).
    int triangular_sweeps = 3;
    /// The SpTRSV algorithm of exact solves.
    sparse::SptrsvAlgorithm algorithm = sparse::SptrsvAlgorithm::automatic;
    /// A symmetric reordering: row and column i of the factored matrix are row and column
    /// permutation[i] of the system (P A P^T), and an apply is P^T M P. Empty: none, or
    /// the one `reordering` computes.
    std::vector<I> permutation;
    /// A reordering computed from the system at generation; BadInput together with an
    /// explicit permutation.
    Reordering reordering = Reordering::none;
};

template <typename V, typename I, bool cholesky>
class IncompleteFactorization final
    : public EnableGenerated<IncompleteFactorization<V, I, cholesky>, V,
                             IncompleteFactorizationParameters<I, cholesky>> {
public:
    using index_type = I;
    using Parameters = IncompleteFactorizationParameters<I, cholesky>;

    class Builder : public FactoryBuilder<Builder, Parameters, IncompleteFactorization> {
    public:
        /// BadInput for a kind of the other family (an IC kind for Ilu, an ILU kind for Ic).
        Builder& with_kind(sparse::IluKind kind);
        /// The level of fill of iluk / ick.
        Builder& with_level(int level)
        {
            return this->set(&Parameters::factorization, &sparse::IluOptions::level, level);
        }
        /// Sweeps of parilu / paric, steps of parilut / parict.
        Builder& with_sweeps(int sweeps)
        {
            return this->set(&Parameters::factorization, &sparse::IluOptions::sweeps, sweeps);
        }
        Builder& with_fill_limit(double limit)
        {
            return this->set(&Parameters::factorization, &sparse::IluOptions::fill_limit, limit);
        }
        Builder& with_drop_tolerance(double tolerance)
        {
            return this->set(&Parameters::factorization, &sparse::IluOptions::drop_tolerance,
                             tolerance);
        }
        Builder& with_diagonal_shift(sparse::DiagonalShift shift)
        {
            return this->set(&Parameters::factorization, &sparse::IluOptions::diagonal_shift,
                             shift);
        }
        /// All factorization options at once (the kind checked as by with_kind).
        Builder& with_factorization(const sparse::IluOptions& options);
        /// BadInput for fewer than 1 sweep.
        Builder& with_triangular_solve(TriangularSolve solve, int sweeps = 3);
        Builder& with_algorithm(sparse::SptrsvAlgorithm algorithm)
        {
            return this->set(&Parameters::algorithm, algorithm);
        }
        /// Checked at generation: BadInput unless a permutation of 0 .. n - 1.
        Builder& with_permutation(std::vector<I> permutation)
        {
            return this->set(&Parameters::permutation, std::move(permutation));
        }
        Builder& with_reordering(Reordering reordering)
        {
            return this->set(&Parameters::reordering, reordering);
        }
    };

    /// Made by Factory::generate: the factors of `system`, which must be a square
    /// matrix::Csr<V, I> (copied to exec when it lives elsewhere). BadInput when null,
    /// NotSupported naming the type of any other operator, DimensionMismatch when not square,
    /// and the errors of ilu_symbolic / ilu_numeric (NumericalError naming the row of a
    /// pivot).
    IncompleteFactorization(std::shared_ptr<const Executor> exec,
                            std::shared_ptr<const LinOp<V>> system, const Parameters& params);

    /// L (unit diagonal stored for ILU kinds), of the permuted system P A P^T when permuted.
    const matrix::Csr<V, I>& lower_factor() const noexcept { return *l_; }
    /// U; an empty matrix for IC (whose solves use L^H).
    const matrix::Csr<V, I>& upper_factor() const noexcept { return *u_; }
    /// The diagonal shift the factorization needed (0: none).
    double shift() const noexcept { return shift_; }

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    std::shared_ptr<const matrix::Csr<V, I>> l_;
    std::shared_ptr<const matrix::Csr<V, I>> u_;
    /// The permutation P and P^T as matrices (an SpMV permutes on every backend); null
    /// without a permutation.
    std::shared_ptr<const matrix::Csr<V, I>> p_;
    std::shared_ptr<const matrix::Csr<V, I>> p_transposed_;
    /// x = L^-1 b and x = U^-1 b (L^-H b for IC).
    std::shared_ptr<const LinOp<V>> lower_solve_;
    std::shared_ptr<const LinOp<V>> upper_solve_;
    double shift_ = 0;
    /// Work vectors kept across applies (a preconditioner is applied in every iteration):
    /// L^-1 b, P b, and op(b) of a scaled apply.
    mutable matrix::Dense<V> intermediate_;
    mutable matrix::Dense<V> permuted_;
    mutable matrix::Dense<V> scaled_;
};

/// (L U)^-1 for an incomplete LU (ILU(0) unless told otherwise).
template <typename V, typename I = int32>
using Ilu = IncompleteFactorization<V, I, false>;
/// (L L^H)^-1 for an incomplete Cholesky (IC(0), shifting the diagonal where a pivot would
/// break down, unless told otherwise).
template <typename V, typename I = int32>
using Ic = IncompleteFactorization<V, I, true>;

}  // namespace loom::precond

LOOM_PUBLIC_END
