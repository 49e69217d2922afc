// The solvers run unchanged on a vector space other than the plain one: a space that
// simulates two ranks (each reduction sums the two halves of the rows separately, the second
// half only at finish_reductions, as an all-reduce would) gives the same iterates as the
// plain space and sees every reduction of the solve completed exactly once.
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/log/loggers.hpp"
#include "loom/solver/solvers.hpp"
#include "loom/solver/vector_space.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace {

using namespace loom;

/// Rows [0, rows/2) are rank 0's, the rest rank 1's. A reduction leaves rank 0's sum in its
/// output and keeps rank 1's aside until finish_reductions adds it: a value used before it
/// was finished is wrong, and one finished twice is wrong too (flagged).
template <typename V>
class TwoRankSpace final : public solver::VectorSpace<V> {
public:
    using Vector = matrix::Dense<V>;
    using solver::VectorSpace<V>::VectorSpace;

    void conj_dot(const Vector& x, const Vector& y, Vector& out) const override
    {
        ++dots;
        const auto half = this->rows() / 2;
        auto& second = pending_[out.data()];
        second.assign(static_cast<std::size_t>(out.cols()), V{0});
        for (size_type j = 0; j < out.cols(); ++j) {
            V first{0};
            for (size_type i = 0; i < half; ++i) first += loom::conj(x.at(i, j)) * y.at(i, j);
            for (size_type i = half; i < this->rows(); ++i) {
                second[j] += loom::conj(x.at(i, j)) * y.at(i, j);
            }
            out.at(0, j) = first;
        }
    }

    // The fused steps: their updates as the plain space's, their reductions split as above.
    void conj_dot2(const Vector& x1, const Vector& y1, Vector& out1, const Vector& x2,
                   const Vector& y2, Vector& out2) const override
    {
        conj_dot(x1, y1, out1);
        conj_dot(x2, y2, out2);
    }
    void multi_conj_dot(std::span<const Vector* const> x, const Vector& y,
                        Vector& out) const override
    {
        const auto k = y.cols();
        for (std::size_t i = 0; i < x.size(); ++i) {
            auto part = out.columns(static_cast<size_type>(i) * k, k);
            conj_dot(*x[i], y, part);
        }
    }
    void cg_residual_step(const blas::CgStepScalars<V>& s, const Vector& q,
                          Vector& r) const override
    {
        solver::VectorSpace<V>::cg_residual_step(s, q, r);
        conj_dot(r, r, *s.rr);
    }
    void bicgstab_final_step(const blas::BicgstabStepScalars<V>& s, const Vector& p_hat,
                             const Vector& s_hat, const Vector& t, const Vector& r_tld, Vector& r,
                             Vector& x) const override
    {
        solver::VectorSpace<V>::bicgstab_final_step(s, p_hat, s_hat, t, r_tld, r, x);
        conj_dot2(r_tld, r, *s.rho, r, r, *s.rr);
    }

    void finish_reductions(Vector& partials) const override
    {
        ++all_reduces;
        size_type covered = 0;
        const V* begin = partials.data();
        for (auto it = pending_.begin(); it != pending_.end();) {
            const auto offset = it->first - begin;
            if (offset < 0 || offset >= partials.cols()) {
                ++it;
                continue;
            }
            for (std::size_t j = 0; j < it->second.size(); ++j) {
                partials.at(0, offset + static_cast<size_type>(j)) += it->second[j];
            }
            covered += static_cast<size_type>(it->second.size());
            it = pending_.erase(it);
        }
        if (covered != partials.cols()) finished_twice = true;
    }

    bool all_finished() const { return pending_.empty(); }

    mutable int dots = 0;
    mutable int all_reduces = 0;
    mutable bool finished_twice = false;

private:
    mutable std::map<const V*, std::vector<V>> pending_;
};

/// A system matrix that supplies its vector space, as a distributed matrix would.
template <typename V>
class TwoRankMatrix final : public LinOp<V>, public solver::HasVectorSpace<V> {
public:
    explicit TwoRankMatrix(std::shared_ptr<const LinOp<V>> A)
        : LinOp<V>(A->executor(), A->size()),
          A_(std::move(A)),
          space_(std::make_shared<TwoRankSpace<V>>(this->executor(), this->size().rows))
    {}

    std::shared_ptr<const solver::VectorSpace<V>> vector_space() const override { return space_; }
    const TwoRankSpace<V>& space() const { return *space_; }

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override
    {
        A_->apply(b, x);
    }
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const override
    {
        A_->apply(alpha, b, beta, x);
    }

private:
    std::shared_ptr<const LinOp<V>> A_;
    std::shared_ptr<TwoRankSpace<V>> space_;
};

template <typename V>
class VectorSpaces : public ::testing::Test {
protected:
    struct Run {
        matrix::Dense<V> x;
        solver::SolveResult result;
        std::vector<std::vector<double>> history;
    };

    /// Solves A x = b from x0 with a solver of the given kind (Jacobi-preconditioned when
    /// asked), recording the residual history.
    Run solve(const std::string& name, std::shared_ptr<const LinOp<V>> A, const matrix::Dense<V>& b,
              const matrix::Dense<V>& x0, bool jacobi) const
    {
        auto criteria =
            stop::max_iterations(400) | stop::relative_residual(test::solve_tolerance<V>());
        std::shared_ptr<solver::IterativeSolver<V>> s;
        auto logger = std::make_shared<log::ConvergenceLogger>();
        std::shared_ptr<const LinOp<V>> M;
        if (jacobi) M = test::inverse_diagonal(*csr_);
        if (name == "cg") {
            s = solver::Cg<V>::build()
                    .with_criteria(criteria)
                    .with_preconditioner(M)
                    .on(ref)
                    ->generate(A);
        } else if (name == "bicgstab") {
            s = solver::Bicgstab<V>::build()
                    .with_criteria(criteria)
                    .with_preconditioner(M)
                    .on(ref)
                    ->generate(A);
        } else {
            s = solver::Gmres<V>::build()
                    .with_criteria(criteria)
                    .with_preconditioner(M)
                    .with_krylov_dim(8)
                    .with_orthogonalization(name == "gmres" ? solver::Orthogonalization::modified
                                                            : solver::Orthogonalization::classical)
                    .on(ref)
                    ->generate(A);
        }
        s->add_logger(logger);
        Run run{x0, {}, {}};
        s->apply(b, run.x);
        run.result = s->result();
        run.history = logger->residual_history();
        return run;
    }

    void compare(const std::string& name, size_type k, bool jacobi)
    {
        SCOPED_TRACE(name + (jacobi ? " + jacobi" : "") + ", " + std::to_string(k) + " rhs");
        const bool spd = name == "cg";
        csr_ = test::grid_matrix<V>(ref, 9, spd ? 0.0 : 0.5, 0.2);
        const auto n = csr_->size().rows;
        auto b = test::random_dense<V>(ref, {n, k}, 5);
        auto x0 = test::random_dense<V>(ref, {n, k}, 6);
        auto split = std::make_shared<TwoRankMatrix<V>>(csr_);

        const auto plain = solve(name, csr_, b, x0, jacobi);
        const auto two = solve(name, split, b, x0, jacobi);

        EXPECT_TRUE(plain.result.converged()) << plain.result.message();
        EXPECT_EQ(two.result.iterations, plain.result.iterations);
        ASSERT_EQ(two.history.size(), plain.history.size());
        for (std::size_t i = 0; i < plain.history.size(); ++i) {
            LOOM_EXPECT_NEAR_VECTORS(two.history[i], plain.history[i], 1e-6);
        }
        LOOM_EXPECT_NEAR_VECTORS(two.x.to_host(), plain.x.to_host(), 1e-8);

        const auto& space = split->space();
        EXPECT_TRUE(space.all_finished());
        EXPECT_FALSE(space.finished_twice);
        EXPECT_GT(space.dots, 0);
        last_dots_ = space.dots;
        last_all_reduces_ = space.all_reduces;
        last_iterations_ = plain.result.iterations;
    }

    std::shared_ptr<const Executor> ref = test::reference();
    std::shared_ptr<matrix::Csr<V>> csr_;
    int last_dots_ = 0;
    int last_all_reduces_ = 0;
    size_type last_iterations_ = 0;
};
// Double only: the point is the solver code path, and float's rounding would need looser
// bounds for the same check.
TYPED_TEST_SUITE(VectorSpaces, ::testing::Types<double>);

TYPED_TEST(VectorSpaces, CgGivesTheSameIteratesAndFusesItsReductions)
{
    for (const size_type k : {1, 3}) {
        for (const bool jacobi : {false, true}) this->compare("cg", k, jacobi);
    }
    // Preconditioned: ||b||, ||r0|| (one all-reduce), r^H z (one), then per iteration p^H A p
    // (one, needed on the executor at once) and r^H z with r^H r (one for both).
    const auto it = static_cast<int>(this->last_iterations_);
    EXPECT_EQ(this->last_dots_, 3 + 3 * it);
    EXPECT_EQ(this->last_all_reduces_, 2 + 2 * it);
}

TYPED_TEST(VectorSpaces, BicgstabGivesTheSameIteratesAndFusesItsReductions)
{
    for (const size_type k : {1, 3}) {
        for (const bool jacobi : {false, true}) this->compare("bicgstab", k, jacobi);
    }
    // Per iteration: r~^H v (one all-reduce), t^H t with t^H s (one), r~^H r with r^H r (one).
    const auto it = static_cast<int>(this->last_iterations_);
    EXPECT_EQ(this->last_dots_, 3 + 5 * it);
    EXPECT_EQ(this->last_all_reduces_, 2 + 3 * it);
}

TYPED_TEST(VectorSpaces, GmresGivesTheSameIterates)
{
    for (const std::string name : {"gmres", "gmres-classical"}) {
        for (const size_type k : {1, 3}) {
            for (const bool jacobi : {false, true}) this->compare(name, k, jacobi);
        }
    }
    // Classical Gram-Schmidt completes the j + 1 projections of step j and then ||w|| with
    // one all-reduce each.
    EXPECT_LT(this->last_all_reduces_, this->last_dots_);
}

}  // namespace
