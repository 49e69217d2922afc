// OpenMP fused Krylov steps. The reductions are blas/dense's (omp_column_sums.hpp), so a
// fused r^H r equals the unfused one bit for bit; the coefficients are formed once per
// column on the host (a division per element would cost more than the memory traffic).
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "blas/dense/omp_column_sums.hpp"
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

}  // namespace loom::blas::omp

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, omp, OmpExecutor)
}  // namespace loom::blas
