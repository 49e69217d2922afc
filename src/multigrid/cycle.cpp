// The multigrid cycle and the smoothers: everything apply() does, on public kernels only.
#include <cmath>

#include "base/instantiate.hpp"
#include "loom/blas/vector.hpp"
#include "loom/lapack/dense_lapack.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "loom/sparse/spmv.hpp"
#include "multigrid/level.hpp"
#include "solver/scaled_apply.hpp"

namespace loom::solver {
namespace {

constexpr auto none = sparse::Mode::none;

/// r = b - A x
template <typename V, typename I>
void residual(const matrix::Csr<V, I>& A, const matrix::Dense<V>& b, const matrix::Dense<V>& x,
              matrix::Dense<V>& r)
{
    blas::copy(b, r);
    sparse::spmv(none, V{-1}, A, x, V{1}, r);
}

/// `sweeps` steps x += weight D^-1 (b - A x); the first one skips the product from zero.
template <typename V, typename I>
void jacobi(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal, V weight, int sweeps,
            const matrix::Dense<V>& b, matrix::Dense<V>& x, matrix::Dense<V>& r, bool zero_guess)
{
    for (int s = 0; s < sweeps; ++s) {
        if (s == 0 && zero_guess) {
            sparse::apply_diagonal(none, weight, inverse_diagonal, b, V{0}, x);
        } else {
            residual(A, b, x, r);
            sparse::apply_diagonal(none, weight, inverse_diagonal, r, V{1}, x);
        }
    }
}

/// The Chebyshev polynomial of D^-1 A of degree `degree` on [lower, upper] (Saad, Iterative
/// Methods, algorithm 12.1, preconditioned by D): the error's components in that interval
/// shrink by the polynomial's minimax value, the smoother's whole purpose.
template <typename V, typename I>
void chebyshev(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal, double lower,
               double upper, int degree, const matrix::Dense<V>& b, matrix::Dense<V>& x,
               matrix::Dense<V>& r, matrix::Dense<V>& d, bool zero_guess)
{
    if (degree == 0) return;
    const double theta = (upper + lower) / 2;
    const double delta = (upper - lower) / 2;
    const double sigma = theta / delta;
    double rho = 1 / sigma;
    if (zero_guess) {
        sparse::apply_diagonal(none, static_cast<V>(1 / theta), inverse_diagonal, b, V{0}, d);
        blas::copy(d, x);
    } else {
        residual(A, b, x, r);
        sparse::apply_diagonal(none, static_cast<V>(1 / theta), inverse_diagonal, r, V{0}, d);
        blas::axpy(V{1}, d, x);
    }
    for (int k = 1; k < degree; ++k) {
        residual(A, b, x, r);
        sparse::apply_diagonal(none, V{1}, inverse_diagonal, r, V{0}, r);
        const double next = 1 / (2 * sigma - rho);
        blas::axpby(static_cast<V>(2 * next / delta), r, static_cast<V>(next * rho), d);
        blas::axpy(V{1}, d, x);
        rho = next;
    }
}

/// The interval of D^-1 A's spectrum Chebyshev damps: [0.3, 1.1] rho, the upper part with
/// 10% margin over the power iteration's (under)estimate; the lower 30% is the coarse
/// level's work. hypre's fraction: ML's rho / 30 damps less per sweep at degrees 1 to 3
/// (Poisson 2D 48^2, V(2,2): 37 instead of 23 stationary iterations).
constexpr double chebyshev_upper = 1.1;
constexpr double chebyshev_lower_fraction = 0.3;

/// The weight of damped Jacobi: 4/3 / rho(D^-1 A), which damps the upper part of the
/// spectrum of D^-1 A best (2/3 for the Laplacian's rho = 2).
constexpr double jacobi_weight = 4.0 / 3.0;

}  // namespace

template <typename V, typename I>
void Multigrid<V, I>::smooth(const Level& level, int sweeps, const matrix::Dense<V>& b,
                             matrix::Dense<V>& x, bool zero_guess) const
{
    if (sweeps == 0) {
        if (zero_guess) blas::fill(x, V{0});
        return;
    }
    const auto& A = *level.A;
    switch (this->parameters().smoother) {
    case MultigridSmoother::jacobi:
        jacobi(A, level.inverse_diagonal, static_cast<V>(jacobi_weight / level.rho), sweeps, b, x,
               level.r, zero_guess);
        break;
    case MultigridSmoother::l1_jacobi:
        jacobi(A, level.l1_inverse_diagonal, V{1}, sweeps, b, x, level.r, zero_guess);
        break;
    case MultigridSmoother::chebyshev: {
        const double upper = chebyshev_upper * level.rho;
        chebyshev(A, level.inverse_diagonal, chebyshev_lower_fraction * upper, upper, sweeps, b, x,
                  level.r, level.d, zero_guess);
        break;
    }
    case MultigridSmoother::gauss_seidel:
        if (zero_guess) blas::fill(x, V{0});
        level.gauss_seidel->smooth(b, x, sweeps);
        break;
    }
}

template <typename V, typename I>
void Multigrid<V, I>::cycle(size_type k, MultigridCycle kind, const matrix::Dense<V>& b,
                            matrix::Dense<V>& x, bool zero_guess) const
{
    const auto& params = this->parameters();
    const auto& level = *levels_[k];
    if (level.is_coarsest()) {
        if (!level.lu) {
            smooth(level, params.pre_sweeps + params.post_sweeps, b, x, zero_guess);
        } else if (zero_guess) {
            blas::copy(b, x);
            lapack::getrs(blas::Op::none, *level.lu, level.pivots, x);
        } else {
            residual(*level.A, b, x, level.r);
            lapack::getrs(blas::Op::none, *level.lu, level.pivots, level.r);
            blas::axpy(V{1}, level.r, x);
        }
        return;
    }
    smooth(level, params.pre_sweeps, b, x, zero_guess);
    residual(*level.A, b, x, level.r);
    auto& next = *levels_[k + 1];
    sparse::spmv(none, V{1}, level.R, level.r, V{0}, next.b);
    cycle(k + 1, kind, next.b, next.x, true);
    // A second visit refines the coarse correction; an exact coarse solve needs none.
    const bool exact = next.is_coarsest() && next.lu;
    if (kind == MultigridCycle::w && !exact) cycle(k + 1, kind, next.b, next.x, false);
    if (kind == MultigridCycle::f && !exact) {
        cycle(k + 1, MultigridCycle::v, next.b, next.x, false);
    }
    sparse::spmv(none, V{1}, level.P, next.x, V{1}, x);
    smooth(level, params.post_sweeps, b, x, false);
}

template <typename V, typename I>
void Multigrid<V, I>::prepare_workspace(size_type columns) const
{
    const auto& exec = this->executor();
    const bool chebyshev = this->parameters().smoother == MultigridSmoother::chebyshev;
    for (size_type k = 0; k < num_levels(); ++k) {
        auto& level = *levels_[k];
        const dim2 size{level.A->rows(), columns};
        if (level.r.size() == size) continue;
        level.r = matrix::Dense<V>(exec, size);
        if (chebyshev) level.d = matrix::Dense<V>(exec, size);
        if (k > 0) {
            level.b = matrix::Dense<V>(exec, size);
            level.x = matrix::Dense<V>(exec, size);
        }
    }
}

template <typename V, typename I>
void Multigrid<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    if (this->size().rows == 0) return;
    prepare_workspace(b.cols());
    cycle(0, this->parameters().cycle, b, x, true);
}

template <typename V, typename I>
void Multigrid<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                 matrix::Dense<V>& x) const
{
    loom::detail::scaled_apply(alpha, b, beta, x,
                               loom::detail::sized(scaled_, this->executor(), x.size()),
                               [this](const auto& in, auto& out) { apply_impl(in, out); });
}

#define LOOM_INSTANTIATE_MULTIGRID_CYCLE(V, I)                                                   \
    template void Multigrid<V, I>::smooth(const Level&, int, const matrix::Dense<V>&,            \
                                          matrix::Dense<V>&, bool) const;                        \
    template void Multigrid<V, I>::cycle(size_type, MultigridCycle, const matrix::Dense<V>&,     \
                                         matrix::Dense<V>&, bool) const;                         \
    template void Multigrid<V, I>::prepare_workspace(size_type) const;                           \
    template void Multigrid<V, I>::apply_impl(const matrix::Dense<V>&, matrix::Dense<V>&) const; \
    template void Multigrid<V, I>::apply_impl(V, const matrix::Dense<V>&, V, matrix::Dense<V>&)  \
        const;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_CYCLE)

}  // namespace loom::solver
