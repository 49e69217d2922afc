// Ilu / Ic preconditioners (include/loom/precond/ilu.hpp).
#include "loom/precond/ilu.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/graph/amd.hpp"
#include "loom/graph/rcm.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/isai.hpp"
#include "loom/sparse/spgemm.hpp"
#include "precond/system_matrix.hpp"
#include "sparse/ilu/profile.hpp"
#include "solver/scaled_apply.hpp"

namespace loom::precond {
namespace {

/// x = T^-1 b approximately: x = D^-1 b, then `sweeps` times x += D^-1 (b - T x).
template <typename V, typename I>
class JacobiSweeps final : public loom::detail::PlainApplyLinOp<V> {
public:
    JacobiSweeps(std::shared_ptr<const matrix::Csr<V, I>> T, int sweeps)
        : loom::detail::PlainApplyLinOp<V>(T->executor(), T->size()),
          t_(T),
          sweeps_(sweeps),
          inverse_diagonal_(
              Jacobi<V, I>::build().with_max_block_size(1).on(T->executor())->generate(T))
    {}

protected:
    using loom::detail::PlainApplyLinOp<V>::apply_impl;
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override
    {
        inverse_diagonal_->apply(b, x);
        auto& residual = loom::detail::sized(residual_, this->executor(), b.size());
        for (int s = 0; s < sweeps_; ++s) {
            blas::axpby(V{1}, b, V{0}, residual);
            t_->apply(V{-1}, x, V{1}, residual);
            inverse_diagonal_->apply(V{1}, residual, V{1}, x);
        }
    }

private:
    std::shared_ptr<const matrix::Csr<V, I>> t_;
    int sweeps_;
    std::shared_ptr<const Jacobi<V, I>> inverse_diagonal_;
    mutable matrix::Dense<V> residual_;
};

/// x = op(T)^-1 b by SpTRSV, analysed with the level schedule the factorization handed over
/// (IluHandle::lower_levels / reversed_levels; empty: found by the analysis). On CUDA the
/// triangular solvers' analyses were most of the preconditioner's setup, each finding its
/// levels again (7-point 100^3: 32 ms of LowerTrs + UpperTrs).
template <typename V, typename I>
class FactorSolve final : public loom::detail::PlainApplyLinOp<V> {
public:
    FactorSolve(std::shared_ptr<const matrix::Csr<V, I>> T, const sparse::SptrsvOptions& options,
                const sparse::SptrsvLevels<I>& levels)
        : loom::detail::PlainApplyLinOp<V>(T->executor(), T->size()),
          t_(std::move(T)),
          handle_(options)
    {
        sparse::sptrsv_symbolic(handle_, *t_, levels);
    }

protected:
    using loom::detail::PlainApplyLinOp<V>::apply_impl;
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override
    {
        sparse::sptrsv_solve(handle_, *t_, b, x);
    }

private:
    std::shared_ptr<const matrix::Csr<V, I>> t_;
    sparse::SptrsvHandle<V, I> handle_;
};

/// P with P(i, permutation[i]) = 1; BadInput unless permutation is one of 0 .. n - 1.
template <typename V, typename I>
matrix::Csr<V, I> permutation_matrix(const std::shared_ptr<const Executor>& exec,
                                     const std::vector<I>& permutation, size_type n)
{
    constexpr const char* where = "loom::precond::Ilu::Factory::generate";
    if (static_cast<size_type>(permutation.size()) != n) {
        throw BadInput(where, "the permutation has " + std::to_string(permutation.size()) +
                                  " entries for a system of " + std::to_string(n) + " rows");
    }
    std::vector<bool> seen(n, false);
    for (const auto p : permutation) {
        if (p < 0 || static_cast<size_type>(p) >= n || seen[p]) {
            throw BadInput(where, "the permutation is not one of 0 .. " + std::to_string(n - 1) +
                                      " (entry " + std::to_string(p) + ")");
        }
        seen[p] = true;
    }
    std::vector<I> ptrs(n + 1);
    for (size_type i = 0; i <= n; ++i) ptrs[i] = static_cast<I>(i);
    return matrix::Csr<V, I>::from_host(exec, dim2{n, n}, ptrs, permutation,
                                        std::vector<V>(n, V{1}));
}

/// The permutation the parameters ask for: the explicit one, or the reordering of A's graph;
/// empty for none.
template <typename V, typename I, typename Parameters>
std::vector<I> chosen_permutation(const matrix::Csr<V, I>& A, const Parameters& params)
{
    if (params.reordering == Reordering::none) return params.permutation;
    if (!params.permutation.empty()) {
        throw BadInput("loom::precond::Ilu::Factory::generate",
                       std::string("both a permutation and the reordering ") +
                           names_of(params.reordering).to_string(params.reordering) +
                           " were given (choose one)");
    }
    return (params.reordering == Reordering::rcm ? graph::rcm(A) : graph::amd(A)).to_host();
}

template <bool cholesky>
void check_kind(sparse::IluKind kind)
{
    if (sparse::is_cholesky(kind) == cholesky) return;
    throw BadInput(cholesky ? "loom::precond::Ic::Builder" : "loom::precond::Ilu::Builder",
                   std::string("kind ") + sparse::to_string(kind) +
                       (cholesky ? " is not an incomplete Cholesky (use ic0, ick, paric or "
                                   "parict, or precond::Ilu)"
                                 : " is an incomplete Cholesky (use ilu0, iluk, parilu or "
                                   "parilut, or precond::Ic)"));
}

}  // namespace

TriangularSolve parse_triangular_solve(const std::string& text)
{
    return names_of(TriangularSolve{}).parse(text, "loom::precond::parse_triangular_solve");
}

template <typename V, typename I, bool cholesky>
auto IncompleteFactorization<V, I, cholesky>::Builder::with_kind(sparse::IluKind kind)
    -> Builder&
{
    check_kind<cholesky>(kind);
    return this->set(&Parameters::factorization, &sparse::IluOptions::kind, kind);
}

template <typename V, typename I, bool cholesky>
auto IncompleteFactorization<V, I, cholesky>::Builder::with_factorization(
    const sparse::IluOptions& options) -> Builder&
{
    check_kind<cholesky>(options.kind);
    return this->set(&Parameters::factorization, options);
}

template <typename V, typename I, bool cholesky>
auto IncompleteFactorization<V, I, cholesky>::Builder::with_triangular_solve(
    TriangularSolve solve, int sweeps) -> Builder&
{
    if (sweeps < 1) {
        throw BadInput("loom::precond::Ilu::Builder::with_triangular_solve",
                       "sweeps must be at least 1, got " + std::to_string(sweeps));
    }
    this->params_.triangular_solve = solve;
    this->params_.triangular_sweeps = sweeps;
    return *this;
}

template <typename V, typename I, bool cholesky>
IncompleteFactorization<V, I, cholesky>::IncompleteFactorization(
    std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system_matrix,
    const Parameters& params)
    : EnableGenerated<IncompleteFactorization, V, Parameters>(exec, {}, params)
{
    auto A = detail::square_csr_system<V, I>(
        cholesky ? "loom::precond::Ic" : "loom::precond::Ilu", system_matrix, exec);
    this->set_size(A->size());
    if (const auto permutation = chosen_permutation(*A, params); !permutation.empty()) {
        p_ = std::make_shared<const matrix::Csr<V, I>>(
            permutation_matrix<V>(this->executor(), permutation, A->rows()));
        p_transposed_ = std::make_shared<const matrix::Csr<V, I>>(sparse::transpose(*p_));
        A = std::make_shared<const matrix::Csr<V, I>>(
            sparse::spgemm(sparse::spgemm(*p_, *A), *p_transposed_));
    }
    const auto& system = *A;
    sparse::detail::IluProfile profile(*this->executor(), "precond setup");
    sparse::IluHandle<V, I> handle(params.factorization);
    // The factors are made where they stay: a move would drop the pattern fingerprints
    // ilu_symbolic cached in them, and the triangular solves' analyses hash them again
    // (38 us a hash on add32, one thread).
    const auto L = std::make_shared<matrix::Csr<V, I>>();
    const auto U = std::make_shared<matrix::Csr<V, I>>();
    sparse::ilu_symbolic(handle, system, *L, *U);
    sparse::ilu_numeric(handle, system, *L, *U);
    shift_ = handle.shift();
    l_ = L;
    u_ = U;
    if (params.triangular_solve != TriangularSolve::exact) {
        // Sweeps and ISAI work on the factor itself, so IC needs L^H stored.
        const auto upper =
            cholesky ? std::make_shared<const matrix::Csr<V, I>>(sparse::conj_transpose(*l_))
                     : u_;
        if (params.triangular_solve == TriangularSolve::jacobi) {
            lower_solve_ = std::make_shared<JacobiSweeps<V, I>>(l_, params.triangular_sweeps);
            upper_solve_ = std::make_shared<JacobiSweeps<V, I>>(upper, params.triangular_sweeps);
        } else {
            lower_solve_ = std::make_shared<const matrix::Csr<V, I>>(
                sparse::isai(*l_, {.kind = sparse::IsaiKind::lower}));
            upper_solve_ = std::make_shared<const matrix::Csr<V, I>>(
                sparse::isai(*upper, {.kind = sparse::IsaiKind::upper}));
        }
        return;
    }
    profile.lap("factorization");
    // L's schedule is the factorization's; its reverse serves L^H (IC) and U where F's
    // pattern is symmetric (checked by the analysis, which otherwise finds U's levels).
    // Only the device analysis takes a schedule (the host one finds its own, cheaply).
    const bool hand_over = this->executor()->kind() == ExecKind::cuda;
    const auto levels = hand_over ? handle.lower_levels() : sparse::SptrsvLevels<I>{};
    const auto reversed = hand_over ? handle.reversed_levels() : sparse::SptrsvLevels<I>{};
    // ILU's L has its unit diagonal stored: solving it as unit skips a division by 1 per row,
    // which sat on the solve's critical path (perf on add32: the store after divsd held 43%
    // of the row-order loop's samples).
    lower_solve_ = std::make_shared<FactorSolve<V, I>>(
        l_,
        sparse::SptrsvOptions{.algorithm = params.algorithm,
                              .uplo = blas::Uplo::lower,
                              .diag = cholesky ? blas::Diag::non_unit : blas::Diag::unit},
        levels);
    profile.lap("lower solver");
    upper_solve_ =
        cholesky ? std::make_shared<FactorSolve<V, I>>(
                       l_,
                       sparse::SptrsvOptions{.algorithm = params.algorithm,
                                             .uplo = blas::Uplo::lower,
                                             .op = blas::Op::conj_transpose},
                       reversed)
                 : std::make_shared<FactorSolve<V, I>>(
                       u_,
                       sparse::SptrsvOptions{.algorithm = params.algorithm,
                                             .uplo = blas::Uplo::upper},
                       reversed);
    profile.lap("upper solver");
}

template <typename V, typename I, bool cholesky>
void IncompleteFactorization<V, I, cholesky>::apply_impl(const matrix::Dense<V>& b,
                                                         matrix::Dense<V>& x) const
{
    auto& intermediate = loom::detail::sized(intermediate_, this->executor(), b.size());
    if (!p_) {
        lower_solve_->apply(b, intermediate);
        upper_solve_->apply(intermediate, x);
        return;
    }
    auto& permuted = loom::detail::sized(permuted_, this->executor(), b.size());
    p_->apply(b, permuted);
    lower_solve_->apply(permuted, intermediate);
    upper_solve_->apply(intermediate, permuted);
    p_transposed_->apply(permuted, x);
}

template <typename V, typename I, bool cholesky>
void IncompleteFactorization<V, I, cholesky>::apply_impl(V alpha, const matrix::Dense<V>& b,
                                                         V beta, matrix::Dense<V>& x) const
{
    loom::detail::scaled_apply(alpha, b, beta, x,
                               loom::detail::sized(scaled_, this->executor(), x.size()),
                               [this](const auto& in, auto& out) { apply_impl(in, out); });
}

#define LOOM_INSTANTIATE_INCOMPLETE_FACTORIZATION(V, I) \
    template class IncompleteFactorization<V, I, false>;  \
    template class IncompleteFactorization<V, I, true>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_INCOMPLETE_FACTORIZATION)

}  // namespace loom::precond
