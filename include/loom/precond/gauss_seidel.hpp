// Multicolor Gauss-Seidel / SOR preconditioner and smoother for a square Csr matrix.
//
//     auto sgs = precond::GaussSeidel<double>::build()
//                    .with_direction(precond::GaussSeidelDirection::symmetric)
//                    .with_relaxation(1.0)        // omega; 1 is Gauss-Seidel, else SOR
//                    .with_sweeps(1)
//                    .on(exec);
//     auto cg = solver::Cg<double>::build().with_preconditioner(sgs)...on(exec);
//
// Setup colors A's symmetrized pattern at distance 1 (graph::color) and groups the rows by
// color; a sweep relaxes the colors in turn, each color's rows in parallel (see
// sparse::gauss_seidel_sweep). The cluster variant relaxes MIS-2 aggregates instead of rows:
// a cluster's rows one after the other, the clusters of a color (of the coarse graph) in
// parallel; it converges faster per sweep at the price of less parallelism.
//
// As a LinOp it applies M^-1 b: `sweeps` sweeps from x = 0. The symmetric direction (forward,
// then the exact reverse backward) gives a symmetric M for symmetric A, positive definite for
// SPD A and omega in (0, 2): a valid CG preconditioner. smooth() runs sweeps from a given x,
// as a multigrid smoother does.
#pragma once

#include <memory>
#include <string>

#include "loom/base/names.hpp"
#include "loom/base/array.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/graph/coloring.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/gauss_seidel.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::precond {

enum class GaussSeidelDirection { forward, backward, symmetric };
enum class GaussSeidelVariant { point, cluster };

LOOM_NAME_TABLE(GaussSeidelDirection, gauss_seidel_direction_names, "Gauss-Seidel direction",
    {GaussSeidelDirection::forward, "forward", "colors ascending"},
    {GaussSeidelDirection::backward, "backward", "colors descending"},
    {GaussSeidelDirection::symmetric, "symmetric", "forward, then backward"},
);
LOOM_NAME_TABLE(GaussSeidelVariant, gauss_seidel_variant_names, "Gauss-Seidel variant",
    {GaussSeidelVariant::point, "point", "a row at a time"},
    {GaussSeidelVariant::cluster, "cluster", "MIS-2 aggregates solved sequentially"},
);

struct GaussSeidelParameters {
    GaussSeidelDirection direction = GaussSeidelDirection::forward;
    GaussSeidelVariant variant = GaussSeidelVariant::point;
    /// The relaxation factor omega, in (0, 2).
    double relaxation = 1.0;
    /// Sweeps per apply, at least 1 (a symmetric sweep counts once).
    size_type sweeps = 1;
    /// How the rows (or clusters) are colored.
    graph::ColoringAlgorithm coloring = graph::ColoringAlgorithm::automatic;
};

template <typename V, typename I = int32>
class GaussSeidel final : public EnableGenerated<GaussSeidel<V, I>, V, GaussSeidelParameters> {
public:
    using index_type = I;
    using Parameters = GaussSeidelParameters;

    class Builder : public FactoryBuilder<Builder, Parameters, GaussSeidel> {
    public:
        Builder& with_direction(GaussSeidelDirection direction)
        {
            return this->set(&Parameters::direction, direction);
        }
        Builder& with_variant(GaussSeidelVariant variant)
        {
            return this->set(&Parameters::variant, variant);
        }
        /// BadInput outside (0, 2).
        Builder& with_relaxation(double omega);
        /// BadInput for 0.
        Builder& with_sweeps(size_type sweeps);
        Builder& with_coloring(graph::ColoringAlgorithm algorithm)
        {
            return this->set(&Parameters::coloring, algorithm);
        }
    };

    /// Made by Factory::generate: the sweeps of `system`, a square matrix::Csr<V, I> (shared
    /// when it lives in exec's memory, else copied there). BadInput when null, NotSupported
    /// for other operators, DimensionMismatch when not square, NumericalError naming the row
    /// of a zero, missing or non-finite diagonal entry.
    GaussSeidel(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
                const Parameters& params);

    size_type num_colors() const noexcept { return order_.num_colors(); }
    const sparse::SweepOrder<I>& order() const noexcept { return order_; }

    /// `sweeps` sweeps in the configured direction on x, from its current value.
    /// DimensionMismatch / BadInput when b or x do not fit the operator.
    void smooth(const matrix::Dense<V>& b, matrix::Dense<V>& x, size_type sweeps) const;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const override;

private:
    std::shared_ptr<const matrix::Csr<V, I>> matrix_;
    Array<V> inverse_diagonal_;
    sparse::SweepOrder<I> order_;
};

/// "forward", "backward", "symmetric"; BadInput otherwise.
GaussSeidelDirection parse_gauss_seidel_direction(const std::string& text);

}  // namespace loom::precond

LOOM_PUBLIC_END
