// What the generic solver tests cannot see of pipe-cg, chebyshev, cb-gmres and mixed-precision
// IR: pipelined CG takes CG's iterations, Chebyshev's bounds (given or estimated) hold the
// spectrum, the compressed basis is float for double and still reaches double accuracy, IR
// with a float inner solve reaches double accuracy, and their own parameters are checked.
#include <cmath>
#include <memory>
#include <numbers>
#include <type_traits>
#include <vector>

#include <limits>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/config.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solvers.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


template <typename V>
class NewMethods : public ::testing::Test {
protected:
    std::shared_ptr<const Executor> ref = test::reference();

    std::shared_ptr<const stop::Criterion> criteria() const
    {
        return stop::max_iterations(3000) | stop::relative_residual(solve_tolerance<V>());
    }

    /// Solves A x = b from zero with `factory`; returns the solver (its result()).
    std::shared_ptr<solver::IterativeSolver<V>> solve(const LinOpFactory<V>& factory,
                                                      std::shared_ptr<const LinOp<V>> A,
                                                      const matrix::Dense<V>& b,
                                                      matrix::Dense<V>& x) const
    {
        x.fill(V{0});
        auto s = std::dynamic_pointer_cast<solver::IterativeSolver<V>>(factory.generate(A));
        s->apply(b, x);
        return s;
    }
};
TYPED_TEST_SUITE(NewMethods, loom::test::ValueTypes);

/// Extreme eigenvalues of the 5-point Laplacian on an n x n grid: 4 - 4 cos(pi / (n + 1))
/// and 4 + 4 cos(pi / (n + 1)).
std::pair<double, double> laplacian_spectrum(size_type n)
{
    const double c = 4 * std::cos(std::numbers::pi / static_cast<double>(n + 1));
    return {4 - c, 4 + c};
}

TYPED_TEST(NewMethods, PipelinedCgTakesCgsIterationsOnPoisson)
{
    using V = TypeParam;
    auto A = grid_matrix<V>(this->ref, 24);
    auto b = test::random_dense<V>(this->ref, {A->size().rows, 1}, 7);
    matrix::Dense<V> x(this->ref, b.size());
    const auto cg =
        this->solve(*solver::Cg<V>::build().with_criteria(this->criteria()).on(this->ref), A, b, x);
    const auto pipe = this->solve(
        *solver::PipeCg<V>::build().with_criteria(this->criteria()).on(this->ref), A, b, x);
    ASSERT_TRUE(pipe->result().converged()) << pipe->result().message();
    const auto expected = static_cast<double>(cg->result().iterations);
    EXPECT_NEAR(static_cast<double>(pipe->result().iterations), expected, 2 + 0.05 * expected);
    EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
}

TYPED_TEST(NewMethods, PipelinedCgWithResidualReplacementConverges)
{
    using V = TypeParam;
    auto A = grid_matrix<V>(this->ref, 16, 0.0, 0.2);
    auto M = test::inverse_diagonal(*A);
    auto b = test::random_dense<V>(this->ref, {A->size().rows, 2}, 8);
    matrix::Dense<V> x(this->ref, b.size());
    auto factory = solver::PipeCg<V>::build()
                       .with_preconditioner(std::shared_ptr<const LinOp<V>>(M))
                       .with_replacement_interval(5)
                       .with_criteria(this->criteria())
                       .on(this->ref);
    const auto s = this->solve(*factory, A, b, x);
    EXPECT_TRUE(s->result().converged()) << s->result().message();
    EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
}

TYPED_TEST(NewMethods, ChebyshevWithExactBoundsConverges)
{
    using V = TypeParam;
    const size_type n = 10;
    auto A = grid_matrix<V>(this->ref, n);
    const auto [lower, upper] = laplacian_spectrum(n);
    auto b = test::random_dense<V>(this->ref, {A->size().rows, 2}, 9);
    matrix::Dense<V> x(this->ref, b.size());
    auto factory = solver::Chebyshev<V>::build()
                       .with_eigenvalue_bounds(lower, upper)
                       .with_criteria(this->criteria())
                       .on(this->ref);
    const auto s = this->solve(*factory, A, b, x);
    EXPECT_TRUE(s->result().converged()) << s->result().message();
    EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    // The residual shrinks at least like the Chebyshev polynomial's bound:
    // 2 ((sqrt(kappa) - 1) / (sqrt(kappa) + 1))^k (relative in the A-norm; cond(A) more here).
    const double kappa = upper / lower;
    const double rate = (std::sqrt(kappa) - 1) / (std::sqrt(kappa) + 1);
    const double bound = std::log(solve_tolerance<V>() / (2 * kappa)) / std::log(rate);
    EXPECT_LE(static_cast<double>(s->result().iterations), bound + 1);
}

TYPED_TEST(NewMethods, ChebyshevEstimatesBoundsInsideTheSafeRange)
{
    using V = TypeParam;
    const size_type n = 10;
    auto A = grid_matrix<V>(this->ref, n);
    const auto [lower, upper] = laplacian_spectrum(n);
    auto s = solver::Chebyshev<V>::build()
                 .with_criteria(this->criteria())
                 .on(this->ref)
                 ->generate(A);
    const auto bounds = s->eigenvalue_bounds();
    // Ritz values lie inside the spectrum; the upper one is widened by 1.1.
    EXPECT_GE(bounds.lower, lower * (1 - 1e-6));
    EXPECT_LT(bounds.lower, 2 * lower);
    EXPECT_GE(bounds.upper, upper);
    EXPECT_LE(bounds.upper, 1.1 * upper * (1 + 1e-6));
}

TYPED_TEST(NewMethods, CbGmresStoresFloatAndReachesFullAccuracy)
{
    using V = TypeParam;
    if constexpr (std::is_same_v<V, double>) {
        static_assert(std::is_same_v<lower_precision_t<V>, float>);
    }
    auto A = grid_matrix<V>(this->ref, 14, 0.5, 0.2);
    auto b = test::random_dense<V>(this->ref, {A->size().rows, 2}, 10);
    matrix::Dense<V> x(this->ref, b.size());
    const auto gmres = this->solve(
        *solver::Gmres<V>::build().with_krylov_dim(20).with_criteria(this->criteria()).on(this->ref),
        A, b, x);
    const auto cb = this->solve(*solver::CbGmres<V>::build()
                                     .with_krylov_dim(20)
                                     .with_criteria(this->criteria())
                                     .on(this->ref),
                                A, b, x);
    ASSERT_TRUE(cb->result().converged()) << cb->result().message();
    EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
    for (size_type j = 0; j < 2; ++j) {
        const auto full = static_cast<double>(gmres->result().columns[j].iteration);
        EXPECT_LE(static_cast<double>(cb->result().columns[j].iteration), 1.5 * full + 5);
    }
}

TYPED_TEST(NewMethods, CompressionRoundsToTheLowerPrecision)
{
    using V = TypeParam;
    using S = lower_precision_t<V>;
    for (const auto& exec : test::backends()) {
        SCOPED_TRACE(exec->name());
        auto x = test::random_dense<V>(exec, {37, 3}, 11);
        solver::VectorSpace<V> space(exec, 37);
        auto packed = space.create_compressed(3);
        space.compress(x, packed);
        auto y = space.create(3);
        space.decompress(packed, y);
        const auto xh = x.to_host();
        const auto yh = y.to_host();
        // Each value is its rounding to S: within half a unit of S's last place (complex
        // parts are rounded one by one, so compare by magnitude).
        const double ulp = std::numeric_limits<remove_complex_t<S>>::epsilon();
        for (std::size_t i = 0; i < xh.size(); ++i) {
            EXPECT_LE(std::abs(yh[i] - V(S(xh[i]))), ulp * std::abs(xh[i])) << i;
        }
        auto wrong = space.create_compressed(2);
        EXPECT_THROW(space.compress(x, wrong), BadInput);
    }
}

/// Whether lower_precision_t<V> is a lower precision that this build has.
template <typename V>
constexpr bool has_built_lower_precision()
{
    if constexpr (std::is_same_v<V, double>) return LOOM_HAS_FLOAT;
    if constexpr (std::is_same_v<V, std::complex<double>>) return LOOM_HAS_COMPLEX_FLOAT_;
    return false;
}

TYPED_TEST(NewMethods, MixedPrecisionIrReachesWorkingAccuracy)
{
    using V = TypeParam;
    const std::string config = R"({"solver": "ir", "inner_precision": "lower",
        "inner": {"solver": "cg", "criteria": {"max_iters": 40, "residual_reduction": 1e-3}},
        "criteria": {"max_iters": 200, "relative_residual": 1e-10}})";
    if constexpr (!has_built_lower_precision<V>()) {
        // No lower precision (float types) or not built: refused, clearly. (The lower type's
        // solvers do not link here, so the builder path is tested where they are built.)
        EXPECT_THROW(solver::from_config<V>(config, this->ref), BadInput);
    } else {
        using S = lower_precision_t<V>;
        auto A = grid_matrix<V>(this->ref, 12, 0.0, 0.2);
        auto b = test::random_dense<V>(this->ref, {A->size().rows, 2}, 12);
        matrix::Dense<V> x(this->ref, b.size());
        auto inner = solver::Cg<S>::build()
                         .with_criteria(stop::max_iterations(40) | stop::residual_reduction(1e-3))
                         .with_initial_guess(solver::InitialGuess::zero)
                         .on(this->ref);
        auto factory = solver::Ir<V>::build()
                           .with_lower_precision_solver(inner)
                           .with_criteria(this->criteria())
                           .on(this->ref);
        const auto s = this->solve(*factory, A, b, x);
        EXPECT_NE(std::dynamic_pointer_cast<solver::Ir<V>>(s)->lower_precision_solver(), nullptr);
        EXPECT_TRUE(s->result().converged()) << s->result().message();
        EXPECT_LE(true_relative_residual(*A, b, x), 20 * solve_tolerance<V>());
        // Each float inner solve gains about 3 digits: a handful of refinement steps.
        EXPECT_LE(s->result().iterations, 12);
        const auto from_json = this->solve(*solver::from_config<V>(config, this->ref), A, b, x);
        EXPECT_TRUE(from_json->result().converged()) << from_json->result().message();
        // A matrix-free system cannot be rounded.
        auto matrix_free =
            std::make_shared<matrix::Dense<V>>(test::random_dense<V>(this->ref, {4, 4}, 13));
        EXPECT_THROW(factory->generate(matrix_free), BadInput);
    }
}

TYPED_TEST(NewMethods, BadParametersAreRejected)
{
    using V = TypeParam;
    auto A = grid_matrix<V>(this->ref, 4);
    auto c = this->criteria();
    EXPECT_THROW(
        solver::PipeCg<V>::build().with_replacement_interval(-1).with_criteria(c).on(this->ref)->generate(A),
        BadInput);
    EXPECT_THROW(solver::CbGmres<V>::build().with_krylov_dim(0).with_criteria(c).on(this->ref)->generate(A),
                 BadInput);
    auto chebyshev = [&](double lower, double upper, size_type steps, double factor) {
        return solver::Chebyshev<V>::build()
            .with_eigenvalue_bounds(lower, upper)
            .with_estimation_steps(steps)
            .with_upper_safety_factor(factor)
            .with_criteria(c)
            .on(this->ref)
            ->generate(A);
    };
    EXPECT_THROW(chebyshev(2, 1, 20, 1.1), BadInput);
    EXPECT_THROW(chebyshev(0, 1, 20, 1.1), BadInput);
    EXPECT_THROW(chebyshev(-1, 1, 20, 1.1), BadInput);
    EXPECT_THROW(chebyshev(0, 0, 0, 1.1), BadInput);
    EXPECT_THROW(chebyshev(0, 0, 20, 0.5), BadInput);
    EXPECT_NO_THROW(chebyshev(1, 9, 0, 0.5));  // given bounds: the estimate's are unused
}

}  // namespace
}  // namespace loom::test
