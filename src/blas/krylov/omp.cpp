// OpenMP fused Krylov steps. The reductions are blas/dense's (omp_column_sums.hpp), so a
// fused r^H r equals the unfused one bit for bit; the coefficients are formed once per
// column on the host (a division per element would cost more than the memory traffic).
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "blas/dense/omp_column_sums.hpp"
#include "blas/krylov/bicgstab_step.hpp"
#include "blas/krylov/host_step.hpp"
#include "blas/krylov/kernels.hpp"
#include "blas/krylov/step.hpp"

namespace loom::blas::omp {
namespace {

using loom::detail::kernel_matrix;

/// Two sums carried together through column_sums.
template <typename V>
struct SumPair {
    V first{};
    V second{};
    SumPair& operator+=(const SumPair& other)
    {
        first += other.first;
        second += other.second;
        return *this;
    }
    friend SumPair operator+(SumPair a, const SumPair& b) { return a += b; }
};

}  // namespace

template <typename V>
void conj_dot2(const OmpExecutor& exec, const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,
               matrix::Dense<V>& out1, const matrix::Dense<V>& x2, const matrix::Dense<V>& y2,
               matrix::Dense<V>& out2)
{
    const auto X1 = kernel_matrix(exec, x1);
    const auto Y1 = kernel_matrix(exec, y1);
    const auto X2 = kernel_matrix(exec, x2);
    const auto Y2 = kernel_matrix(exec, y2);
    std::vector<SumPair<V>> sums(static_cast<std::size_t>(x1.cols()));
    column_sums<SumPair<V>>(
        exec, x1.rows(), x1.cols(),
        [=](size_type i, size_type j) {
            return SumPair<V>{loom::conj(X1(i, j)) * Y1(i, j), loom::conj(X2(i, j)) * Y2(i, j)};
        },
        sums.data());
    for (size_type j = 0; j < x1.cols(); ++j) {
        out1.at(0, j) = sums[j].first;
        out2.at(0, j) = sums[j].second;
    }
}

template <typename V>
void cg_residual_step(const OmpExecutor& exec, const CgStepScalars<V>& s,
                      const matrix::Dense<V>& q, matrix::Dense<V>& r)
{
    const size_type k = q.cols();
    std::vector<V> minus_alpha(static_cast<std::size_t>(k));
    std::vector<char> running(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) {
        const V gate = s.gate->at(0, j);
        running[j] = gate != V{0};
        minus_alpha[j] = -krylov::cg_alpha(gate, s.rho_old->at(0, j), s.pq->at(0, j));
    }
    const V* a = minus_alpha.data();
    const char* on = running.data();
    const auto Q = kernel_matrix(exec, q);
    const auto R = kernel_matrix(exec, r);
    std::vector<V> sums(static_cast<std::size_t>(k));
    column_sums<V>(
        exec, q.rows(), k,
        [=](size_type i, size_type j) {
            V& ri = R(i, j);
            if (on[j]) ri += a[j] * Q(i, j);
            return loom::conj(ri) * ri;
        },
        sums.data());
    for (size_type j = 0; j < k; ++j) s.rr->at(0, j) = sums[j];
}

template <typename V>
void cg_direction_step(const OmpExecutor& exec, const CgStepScalars<V>& s,
                       const matrix::Dense<V>& z, matrix::Dense<V>& p, matrix::Dense<V>& x)
{
    const size_type k = z.cols();
    std::vector<V> alpha(static_cast<std::size_t>(k));
    std::vector<V> beta(static_cast<std::size_t>(k));
    std::vector<char> running(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) {
        const auto step = krylov::cg_column_step(s, j);
        running[j] = step.running;
        alpha[j] = step.alpha;
        beta[j] = step.beta;
    }
    const V* a = alpha.data();
    const V* b = beta.data();
    const char* on = running.data();
    const auto Z = kernel_matrix(exec, z);
    const auto P = kernel_matrix(exec, p);
    const auto X = kernel_matrix(exec, x);
    loom::detail::parallel_for(
        exec, z.rows(), k,
        [=](size_type i, size_type j) {
            if (!on[j]) return;
            V& pi = P(i, j);
            X(i, j) += a[j] * pi;
            pi = b[j] == V{0} ? Z(i, j) : Z(i, j) + b[j] * pi;
        },
        "loom::blas::cg_direction_step");
}

template <typename V>
void bicgstab_direction_step(const OmpExecutor& exec, const BicgstabStepScalars<V>& s,
                             const matrix::Dense<V>& r, const matrix::Dense<V>& v,
                             matrix::Dense<V>& p, matrix::Dense<V>& r_tld)
{
    const size_type k = r.cols();
    std::vector<krylov::BicgstabTop<V>> tops;
    tops.reserve(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) tops.push_back(krylov::bicgstab_column_top(s, j));
    const auto* top = tops.data();
    const bool first = s.first;
    const auto R = kernel_matrix(exec, r);
    const auto Vm = kernel_matrix(exec, v);
    const auto P = kernel_matrix(exec, p);
    const auto R_tld = kernel_matrix(exec, r_tld);
    loom::detail::parallel_for(
        exec, r.rows(), k,
        [=](size_type i, size_type j) {
            const auto& c = top[j];
            if (!c.goes_on) return;
            const V ri = R(i, j);
            if (c.restarted) R_tld(i, j) = ri;
            V& pi = P(i, j);
            pi = first || c.restarted ? ri : ri + c.beta * (pi + -c.omega_prev * Vm(i, j));
        },
        "loom::blas::bicgstab_direction_step");
}

template <typename V>
void bicgstab_half_step(const OmpExecutor& exec, const BicgstabStepScalars<V>& s,
                        const matrix::Dense<V>& v, matrix::Dense<V>& r)
{
    const size_type k = v.cols();
    std::vector<krylov::UsableCoefficient<V>> alphas;
    alphas.reserve(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) alphas.push_back(krylov::bicgstab_column_alpha(s, j));
    const auto* alpha = alphas.data();
    const auto Vm = kernel_matrix(exec, v);
    const auto R = kernel_matrix(exec, r);
    loom::detail::parallel_for(
        exec, v.rows(), k,
        [=](size_type i, size_type j) {
            if (alpha[j].usable) R(i, j) += -alpha[j].value * Vm(i, j);
        },
        "loom::blas::bicgstab_half_step");
}

template <typename V>
void bicgstab_final_step(const OmpExecutor& exec, const BicgstabStepScalars<V>& s,
                         const matrix::Dense<V>& p_hat, const matrix::Dense<V>& s_hat,
                         const matrix::Dense<V>& t, const matrix::Dense<V>& r_tld,
                         matrix::Dense<V>& r, matrix::Dense<V>& x)
{
    const size_type k = t.cols();
    std::vector<krylov::BicgstabFinal<V>> steps;
    steps.reserve(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) steps.push_back(krylov::bicgstab_column_final(s, j));
    const auto* step = steps.data();
    const auto P_hat = kernel_matrix(exec, p_hat);
    const auto S_hat = kernel_matrix(exec, s_hat);
    const auto T = kernel_matrix(exec, t);
    const auto R_tld = kernel_matrix(exec, r_tld);
    const auto R = kernel_matrix(exec, r);
    const auto X = kernel_matrix(exec, x);
    std::vector<SumPair<V>> sums(static_cast<std::size_t>(k));
    column_sums<SumPair<V>>(
        exec, t.rows(), k,
        [=](size_type i, size_type j) {
            const auto& c = step[j];
            V& ri = R(i, j);
            if (c.alpha.usable) {
                // s_hat may be r itself: read before r changes.
                const V si = S_hat(i, j);
                V& xi = X(i, j);
                xi += c.alpha.value * P_hat(i, j);
                if (c.omega.usable) {
                    xi += c.omega.value * si;
                    ri += -c.omega.value * T(i, j);
                }
            }
            return SumPair<V>{loom::conj(R_tld(i, j)) * ri, loom::conj(ri) * ri};
        },
        sums.data());
    for (size_type j = 0; j < k; ++j) {
        s.rho->at(0, j) = sums[j].first;
        s.rr->at(0, j) = sums[j].second;
    }
}

template <typename V>
void normalize(const OmpExecutor& exec, const matrix::Dense<V>& squares, matrix::Dense<V>& x)
{
    const size_type k = x.cols();
    std::vector<V> inverse(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) inverse[j] = krylov::inverse_norm(squares.at(0, j));
    const V* inv = inverse.data();
    const auto X = kernel_matrix(exec, x);
    loom::detail::parallel_for(
        exec, x.rows(), k, [=](size_type i, size_type j) { X(i, j) *= inv[j]; },
        "loom::blas::normalize");
}

}  // namespace loom::blas::omp

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, omp, OmpExecutor)
}  // namespace loom::blas
