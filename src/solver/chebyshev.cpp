#include "loom/solver/chebyshev.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/instantiate.hpp"
#include "solver/pseudo_random.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

enum Slot : int { rr_slot, b_slot, slot_count };  // start() uses slots 0 and 1
enum Vector : int { r_vec, d_vec, z_vec };

/// The symmetric tridiagonal matrix of diagonal `a` and off-diagonal `e`: how many of its
/// eigenvalues are below t (Sturm sequence of the LDL^T factorization).
size_type eigenvalues_below(const std::vector<double>& a, const std::vector<double>& e, double t)
{
    size_type count = 0;
    double d = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double off = i > 0 ? e[i - 1] * e[i - 1] : 0.0;
        d = a[i] - t - (i > 0 ? off / d : 0.0);
        // A zero pivot is moved off zero: the count stays right for all but that t.
        if (d == 0) d = -1e-300;
        if (d < 0) ++count;
    }
    return count;
}

/// Eigenvalue number `index` (ascending) of that matrix, by bisection on the Gershgorin
/// interval.
double tridiagonal_eigenvalue(const std::vector<double>& a, const std::vector<double>& e,
                              size_type index)
{
    double lo = a[0];
    double hi = a[0];
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double radius = (i > 0 ? std::abs(e[i - 1]) : 0.0) +
                              (i + 1 < a.size() ? std::abs(e[i]) : 0.0);
        lo = std::min(lo, a[i] - radius);
        hi = std::max(hi, a[i] + radius);
    }
    for (int step = 0; step < 200 && lo < hi; ++step) {
        const double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        (eigenvalues_below(a, e, mid) > index ? hi : lo) = mid;
    }
    return lo + (hi - lo) / 2;
}

}  // namespace

template <typename V>
Chebyshev<V>::Chebyshev(std::shared_ptr<const Executor> exec,
                        std::shared_ptr<const LinOp<V>> system,
                        const ChebyshevParameters<V>& params)
    : EnableIterativeSolver<Chebyshev<V>, V, ChebyshevParameters<V>>(std::move(exec),
                                                                     std::move(system), params)
{
    const std::string where = "loom::solver::chebyshev";
    if (params.lower == 0 && params.upper == 0) {
        if (params.estimation_steps < 1) {
            throw BadInput(where, "estimation_steps must be at least 1, got " +
                                      std::to_string(params.estimation_steps));
        }
        if (!(params.upper_safety_factor >= 1) || !std::isfinite(params.upper_safety_factor)) {
            throw BadInput(where, "upper_safety_factor must be finite and at least 1, got " +
                                      std::to_string(params.upper_safety_factor));
        }
        if (this->vector_space()->global_rows() > 0) {
            estimate_bounds(params.estimation_steps, params.upper_safety_factor);
        }
    } else {
        if (!(params.lower > 0 && params.lower < params.upper && std::isfinite(params.upper))) {
            throw BadInput(where, "eigenvalue bounds must satisfy 0 < lower < upper, got [" +
                                      std::to_string(params.lower) + ", " +
                                      std::to_string(params.upper) + "]");
        }
        bounds_ = {params.lower, params.upper};
    }
}

// CG's coefficients give the Lanczos tridiagonal matrix of M^-1 A (Saad, section 6.7.3):
// diagonal 1/alpha_j + beta_{j-1}/alpha_{j-1}, off-diagonal sqrt(beta_j)/alpha_j.
template <typename V>
void Chebyshev<V>::estimate_bounds(size_type steps, double safety_factor)
{
    const auto& A = *this->system_matrix();
    const auto* M = this->preconditioner().get();
    const auto& space = *this->vector_space();
    enum : int { pq, rho, count };
    detail::Scalars<V> s(space, count, 1);
    auto r = space.create(1);
    auto p = space.create(1);
    auto q = space.create(1);
    auto z_store = M ? space.create(1) : matrix::Dense<V>{};
    auto& z = M ? z_store : r;
    const auto start = detail::pseudo_random_values<V>(space.rows(), -1.0, 2.0);
    space.copy(matrix::Dense<V>::from_host(space.executor(), {space.rows(), 1}, start), r);
    if (M) M->apply(r, z);
    space.copy(z, p);
    s.conj_dot(rho, r, z);
    s.fetch(rho);
    double rho_old = std::real(s.host(rho, 0));

    std::vector<double> diagonal;
    std::vector<double> off_diagonal;
    double alpha_old = 0;
    double beta_old = 0;
    for (size_type j = 0; j < steps && rho_old > 0 && std::isfinite(rho_old); ++j) {
        A.apply(p, q);
        s.conj_dot(pq, p, q);
        s.fetch(pq);
        const double curvature = std::real(s.host(pq, 0));
        if (!std::isfinite(curvature)) {
            estimate_failure_ = stop::Reason::not_finite;
            return;
        }
        if (!(curvature > 0)) {
            estimate_failure_ = stop::Reason::breakdown;
            return;
        }
        const double alpha = rho_old / curvature;
        diagonal.push_back(1 / alpha + (j > 0 ? beta_old / alpha_old : 0.0));
        space.axpy(static_cast<V>(-alpha), q, r);
        if (M) M->apply(r, z);
        s.conj_dot(rho, r, z);
        s.fetch(rho);
        const double rho_new = std::real(s.host(rho, 0));
        const double beta = rho_new / rho_old;
        off_diagonal.push_back(std::sqrt(std::max(beta, 0.0)) / alpha);
        space.axpby(V{1}, z, static_cast<V>(beta), p);
        alpha_old = alpha;
        beta_old = beta;
        rho_old = rho_new;
    }
    if (diagonal.empty()) {
        estimate_failure_ = std::isfinite(rho_old) ? stop::Reason::breakdown
                                                   : stop::Reason::not_finite;
        return;
    }
    const auto last = static_cast<size_type>(diagonal.size()) - 1;
    const double lower = tridiagonal_eigenvalue(diagonal, off_diagonal, 0);
    const double upper = tridiagonal_eigenvalue(diagonal, off_diagonal, last) * safety_factor;
    // One Ritz value (one step, or a Krylov space exhausted at once): widen to an interval.
    if (!std::isfinite(lower) || !std::isfinite(upper)) {
        estimate_failure_ = stop::Reason::not_finite;
        return;
    }
    bounds_ = {std::min(lower, upper / (1 + 1e-3)), upper};
}

template <typename V>
void Chebyshev<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    auto [st, A, M, space, s] = detail::begin_solve(
        *this, this->state(b.cols(), {this->preconditioner() ? 3 : 2, slot_count, 0}));
    auto& r = st.vector(r_vec);
    auto& d = st.vector(d_vec);
    auto& z = M ? st.vector(z_vec) : r;
    const double theta = (bounds_.upper + bounds_.lower) / 2;  // centre
    const double delta = (bounds_.upper - bounds_.lower) / 2;  // half width
    const double sigma = theta / delta;

    if (st.start(A, b, x, r)) return;
    if (estimate_failure_ != stop::Reason::running) {
        const char* detail = estimate_failure_ == stop::Reason::breakdown
                                 ? "eigenvalue estimate: p^H A p <= 0 or r^H M r <= 0"
                                 : "eigenvalue estimate";
        for (size_type j = 0; j < st.columns(); ++j) {
            if (st.running(j)) st.stop(j, estimate_failure_, detail, 0);
        }
        return;
    }
    if (M) M->apply(r, z);
    space.copy(z, d);
    space.scal(static_cast<V>(1 / theta), d);
    double rho = 1 / sigma;
    for (size_type it = 1;; ++it) {
        // Stopped columns keep being updated: their x is frozen by check().
        space.axpy(V{1}, d, x);
        A.apply(V{-1}, d, V{1}, r);
        if (st.check_residual(it, rr_slot, r, x)) return;
        if (M) M->apply(r, z);
        const double rho_new = 1 / (2 * sigma - rho);
        space.axpby(static_cast<V>(2 * rho_new / delta), z, static_cast<V>(rho_new * rho), d);
        rho = rho_new;
    }
}

#define LOOM_INSTANTIATE_CHEBYSHEV(V) template class Chebyshev<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_CHEBYSHEV)

}  // namespace loom::solver
