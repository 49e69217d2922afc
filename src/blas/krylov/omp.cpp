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
    const V* x1d = x1.data();
    const V* y1d = y1.data();
    const V* x2d = x2.data();
    const V* y2d = y2.data();
    const size_type x1s = x1.stride(), y1s = y1.stride(), x2s = x2.stride(), y2s = y2.stride();
    std::vector<SumPair<V>> sums(static_cast<std::size_t>(x1.cols()));
    column_sums<SumPair<V>>(
        exec, x1.rows(), x1.cols(),
        [=](size_type i, size_type j) {
            return SumPair<V>{loom::conj(x1d[i * x1s + j]) * y1d[i * y1s + j],
                              loom::conj(x2d[i * x2s + j]) * y2d[i * y2s + j]};
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
    const V* qd = q.data();
    V* rd = r.data();
    const size_type qs = q.stride();
    const size_type rs = r.stride();
    std::vector<V> sums(static_cast<std::size_t>(k));
    column_sums<V>(
        exec, q.rows(), k,
        [=](size_type i, size_type j) {
            V& ri = rd[i * rs + j];
            if (on[j]) ri += a[j] * qd[i * qs + j];
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
    const V* zd = z.data();
    V* pd = p.data();
    V* xd = x.data();
    const size_type zs = z.stride(), ps = p.stride(), xs = x.stride();
    loom::detail::parallel_for(
        exec, z.rows(), k,
        [=](size_type i, size_type j) {
            if (!on[j]) return;
            V& pi = pd[i * ps + j];
            xd[i * xs + j] += a[j] * pi;
            pi = b[j] == V{0} ? zd[i * zs + j] : zd[i * zs + j] + b[j] * pi;
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
    const V* rd = r.data();
    const V* vd = v.data();
    V* pd = p.data();
    V* td = r_tld.data();
    const size_type rs = r.stride(), vs = v.stride(), ps = p.stride(), ts = r_tld.stride();
    loom::detail::parallel_for(
        exec, r.rows(), k,
        [=](size_type i, size_type j) {
            const auto& c = top[j];
            if (!c.goes_on) return;
            const V ri = rd[i * rs + j];
            if (c.restarted) td[i * ts + j] = ri;
            V& pi = pd[i * ps + j];
            pi = first || c.restarted ? ri : ri + c.beta * (pi + -c.omega_prev * vd[i * vs + j]);
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
    const V* vd = v.data();
    V* rd = r.data();
    const size_type vs = v.stride(), rs = r.stride();
    loom::detail::parallel_for(
        exec, v.rows(), k,
        [=](size_type i, size_type j) {
            if (alpha[j].usable) rd[i * rs + j] += -alpha[j].value * vd[i * vs + j];
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
    const V* pd = p_hat.data();
    const V* sd = s_hat.data();
    const V* tdata = t.data();
    const V* rt = r_tld.data();
    V* rd = r.data();
    V* xd = x.data();
    const size_type ps = p_hat.stride(), ss = s_hat.stride(), tstride = t.stride(),
                    rts = r_tld.stride(), rs = r.stride(), xs = x.stride();
    std::vector<SumPair<V>> sums(static_cast<std::size_t>(k));
    column_sums<SumPair<V>>(
        exec, t.rows(), k,
        [=](size_type i, size_type j) {
            const auto& c = step[j];
            V& ri = rd[i * rs + j];
            if (c.alpha.usable) {
                // s_hat may be r itself: read before r changes.
                const V si = sd[i * ss + j];
                V& xi = xd[i * xs + j];
                xi += c.alpha.value * pd[i * ps + j];
                if (c.omega.usable) {
                    xi += c.omega.value * si;
                    ri += -c.omega.value * tdata[i * tstride + j];
                }
            }
            return SumPair<V>{loom::conj(rt[i * rts + j]) * ri, loom::conj(ri) * ri};
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
    V* xd = x.data();
    const size_type xs = x.stride();
    loom::detail::parallel_for(
        exec, x.rows(), k, [=](size_type i, size_type j) { xd[i * xs + j] *= inv[j]; },
        "loom::blas::normalize");
}

}  // namespace loom::blas::omp

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, omp, OmpExecutor)
}  // namespace loom::blas
