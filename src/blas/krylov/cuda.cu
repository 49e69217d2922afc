// CUDA fused Krylov steps: one kernel per step (plus the combining pass of a reduction over
// many blocks), every coefficient formed per element from the scalars in device memory, so a
// step needs nothing from the host. The reductions are blas/dense's deterministic column sums.
#include "base/cuda/helpers.cuh"
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "blas/dense/cuda_column_sums.cuh"
#include "blas/krylov/bicgstab_step.hpp"
#include "blas/krylov/kernels.hpp"
#include "blas/krylov/step.hpp"

namespace loom::blas::cuda {
namespace {

/// Two sums carried together through column_sums.
template <typename D>
struct SumPair {
    D first;
    D second;
    __device__ SumPair() : first{}, second{} {}
    __device__ SumPair(D a, D b) : first(a), second(b) {}
    __device__ SumPair& operator+=(const SumPair& other)
    {
        first += other.first;
        second += other.second;
        return *this;
    }
};

template <typename D>
__device__ SumPair<D> shuffle_down(SumPair<D> value, int offset)
{
    return {loom::blas::cuda::shuffle_down(value.first, offset),
            loom::blas::cuda::shuffle_down(value.second, offset)};
}

/// Writes a SumPair's halves to two result rows.
template <typename D>
struct SplitResult {
    D* first;
    D* second;
    struct Element {
        D* first;
        D* second;
        __device__ void operator=(const SumPair<D>& value) const
        {
            *first = value.first;
            *second = value.second;
        }
    };
    __device__ Element operator[](long long j) const { return {first + j, second + j}; }
};

template <typename D>
struct Dot2Term {
    const D* x1;
    long long x1s;
    const D* y1;
    long long y1s;
    const D* x2;
    long long x2s;
    const D* y2;
    long long y2s;
    __device__ SumPair<D> operator()(long long i, long long j) const
    {
        return {conj_dev(x1[i * x1s + j]) * y1[i * y1s + j],
                conj_dev(x2[i * x2s + j]) * y2[i * y2s + j]};
    }
};

/// r -= alpha q where the column runs, then the term of r^H r.
template <typename D>
struct ResidualStepTerm {
    const D* gate;
    const D* rho_old;
    const D* pq;
    const D* q;
    long long qs;
    D* r;
    long long rs;
    __device__ D operator()(long long i, long long j) const
    {
        D& ri = r[i * rs + j];
        const D g = gate[j];
        if (g != D{}) ri += -krylov::cg_alpha(g, rho_old[j], pq[j]) * q[i * qs + j];
        return conj_dev(ri) * ri;
    }
};

/// BiCGSTAB's final step on one element (x and r updated where the column goes on), then the
/// terms of r~^H r and r^H r.
template <typename D>
struct BicgstabFinalTerm {
    const D* gate_half;
    const D* rho_old;
    const D* sigma;
    const D* tt;
    const D* ts;
    const D* p_hat;
    long long ps;
    const D* s_hat;
    long long ss;
    const D* t;
    long long tstride;
    const D* r_tld;
    long long rts;
    D* r;
    long long rs;
    D* x;
    long long xs;
    __device__ SumPair<D> operator()(long long i, long long j) const
    {
        D& ri = r[i * rs + j];
        const D g = gate_half[j];
        if (g != D{}) {
            // s_hat may be r itself: read before r changes.
            const D si = s_hat[i * ss + j];
            D& xi = x[i * xs + j];
            xi += krylov::bicgstab_alpha(g, rho_old[j], sigma[j]).value * p_hat[i * ps + j];
            const auto omega = krylov::bicgstab_omega(g, tt[j], ts[j]);
            if (omega.usable) {
                xi += omega.value * si;
                ri += -omega.value * t[i * tstride + j];
            }
        }
        return {conj_dev(r_tld[i * rts + j]) * ri, conj_dev(ri) * ri};
    }
};

}  // namespace

template <typename V>
void conj_dot2(const CudaExecutor& exec, const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,
               matrix::Dense<V>& out1, const matrix::Dense<V>& x2, const matrix::Dense<V>& y2,
               matrix::Dense<V>& out2)
{
    using D = device_type_t<V>;
    const Dot2Term<D> term{as_device(x1.data()), x1.stride(), as_device(y1.data()), y1.stride(),
                           as_device(x2.data()), x2.stride(), as_device(y2.data()), y2.stride()};
    column_sums<SumPair<D>>(exec, x1.rows(), x1.cols(), term,
                            SplitResult<D>{as_device(out1.data()), as_device(out2.data())},
                            Identity{}, "loom::blas::conj_dot2");
}

template <typename V>
void cg_residual_step(const CudaExecutor& exec, const CgStepScalars<V>& s,
                      const matrix::Dense<V>& q, matrix::Dense<V>& r)
{
    using D = device_type_t<V>;
    const ResidualStepTerm<D> term{as_device(s.gate->data()), as_device(s.rho_old->data()),
                                   as_device(s.pq->data()),   as_device(q.data()),
                                   q.stride(),                as_device(r.data()),
                                   r.stride()};
    column_sums<D>(exec, q.rows(), q.cols(), term, as_device(s.rr->data()), Identity{},
                   "loom::blas::cg_residual_step");
}

template <typename V>
void cg_direction_step(const CudaExecutor& exec, const CgStepScalars<V>& s,
                       const matrix::Dense<V>& z, matrix::Dense<V>& p, matrix::Dense<V>& x)
{
    using D = device_type_t<V>;
    const auto gate = as_device(s.gate->data());
    const auto rho_old = as_device(s.rho_old->data());
    const auto pq = as_device(s.pq->data());
    const auto rr = as_device(s.rr->data());
    const auto rho_new = as_device(s.rho_new->data());
    const auto qz = s.qz ? as_device(s.qz->data()) : nullptr;
    const auto threshold = as_device(s.threshold->data());
    const auto gate_new = as_device(s.gate_new->data());
    const auto zd = as_device(z.data());
    const auto pd = as_device(p.data());
    const auto xd = as_device(x.data());
    const long long zs = z.stride(), ps = p.stride(), xs = x.stride();
    const long long rows = z.rows();
    // At least one row, so that gate_new is written for empty vectors too.
    loom::detail::parallel_for(
        exec, rows > 0 ? rows : 1, z.cols(),
        [=] __device__(long long i, long long j) {
            const D g = gate[j];
            const auto next = krylov::cg_next(g, rho_old[j], pq[j], rr[j], rho_new[j],
                                              qz ? qz + j : nullptr,
                                              krylov::real_part(threshold[j]));
            if (i == 0) gate_new[j] = next.goes_on ? D(1) : D(0);
            if (i >= rows || g == D{}) return;
            const D alpha = krylov::cg_alpha(g, rho_old[j], pq[j]);
            D& pi = pd[i * ps + j];
            xd[i * xs + j] += alpha * pi;
            pi = next.beta == D{} ? zd[i * zs + j] : zd[i * zs + j] + next.beta * pi;
        },
        "loom::blas::cg_direction_step");
}

template <typename V>
void bicgstab_direction_step(const CudaExecutor& exec, const BicgstabStepScalars<V>& s,
                             const matrix::Dense<V>& r, const matrix::Dense<V>& v,
                             matrix::Dense<V>& p, matrix::Dense<V>& r_tld)
{
    using D = device_type_t<V>;
    const bool first = s.first;
    const double max_restarts = s.max_restarts;
    const auto gate_prev = as_device(s.gate_prev->data());
    const auto rho_prev = as_device(s.rho_prev->data());
    const auto rr_prev = as_device(s.rr_prev->data());
    const auto rho_old_prev = as_device(s.rho_old_prev->data());
    const auto sigma_prev = as_device(s.sigma_prev->data());
    const auto tt_prev = as_device(s.tt_prev->data());
    const auto ts_prev = as_device(s.ts_prev->data());
    const auto restarts_prev = as_device(s.restarts_prev->data());
    const auto threshold = as_device(s.threshold->data());
    const auto gate = as_device(s.gate->data());
    const auto rho_old = as_device(s.rho_old->data());
    const auto restarts = as_device(s.restarts->data());
    const auto rd = as_device(r.data());
    const auto vd = as_device(v.data());
    const auto pd = as_device(p.data());
    const auto td = as_device(r_tld.data());
    const long long rs = r.stride(), vs = v.stride(), ps = p.stride(), ts = r_tld.stride();
    const long long rows = r.rows();
    // At least one row, so that the scalars are written for empty vectors too.
    loom::detail::parallel_for(
        exec, rows > 0 ? rows : 1, r.cols(),
        [=] __device__(long long i, long long j) {
            const auto top = krylov::bicgstab_top(
                first, gate_prev[j], rho_prev[j], rr_prev[j], rho_old_prev[j], sigma_prev[j],
                tt_prev[j], ts_prev[j], restarts_prev[j], krylov::real_part(threshold[j]),
                max_restarts);
            if (i == 0) {
                gate[j] = top.goes_on ? D(1) : D(0);
                rho_old[j] = top.rho;
                restarts[j] = top.restarts;
            }
            if (i >= rows || !top.goes_on) return;
            const D ri = rd[i * rs + j];
            if (top.restarted) td[i * ts + j] = ri;
            D& pi = pd[i * ps + j];
            pi = first || top.restarted
                     ? ri
                     : ri + top.beta * (pi + -top.omega_prev * vd[i * vs + j]);
        },
        "loom::blas::bicgstab_direction_step");
}

template <typename V>
void bicgstab_half_step(const CudaExecutor& exec, const BicgstabStepScalars<V>& s,
                        const matrix::Dense<V>& v, matrix::Dense<V>& r)
{
    using D = device_type_t<V>;
    const auto gate = as_device(s.gate->data());
    const auto rho_old = as_device(s.rho_old->data());
    const auto sigma = as_device(s.sigma->data());
    const auto gate_half = as_device(s.gate_half->data());
    const auto vd = as_device(v.data());
    const auto rd = as_device(r.data());
    const long long vs = v.stride(), rs = r.stride();
    const long long rows = v.rows();
    loom::detail::parallel_for(
        exec, rows > 0 ? rows : 1, v.cols(),
        [=] __device__(long long i, long long j) {
            const auto alpha = krylov::bicgstab_alpha(gate[j], rho_old[j], sigma[j]);
            if (i == 0) gate_half[j] = alpha.usable ? D(1) : D(0);
            if (i < rows && alpha.usable) rd[i * rs + j] += -alpha.value * vd[i * vs + j];
        },
        "loom::blas::bicgstab_half_step");
}

template <typename V>
void bicgstab_final_step(const CudaExecutor& exec, const BicgstabStepScalars<V>& s,
                         const matrix::Dense<V>& p_hat, const matrix::Dense<V>& s_hat,
                         const matrix::Dense<V>& t, const matrix::Dense<V>& r_tld,
                         matrix::Dense<V>& r, matrix::Dense<V>& x)
{
    using D = device_type_t<V>;
    const BicgstabFinalTerm<D> term{
        as_device(s.gate_half->data()), as_device(s.rho_old->data()), as_device(s.sigma->data()),
        as_device(s.tt->data()),        as_device(s.ts->data()),      as_device(p_hat.data()),
        p_hat.stride(),                 as_device(s_hat.data()),      s_hat.stride(),
        as_device(t.data()),            t.stride(),                   as_device(r_tld.data()),
        r_tld.stride(),                 as_device(r.data()),          r.stride(),
        as_device(x.data()),            x.stride()};
    column_sums<SumPair<D>>(exec, t.rows(), t.cols(), term,
                            SplitResult<D>{as_device(s.rho->data()), as_device(s.rr->data())},
                            Identity{}, "loom::blas::bicgstab_final_step");
}

template <typename V>
void normalize(const CudaExecutor& exec, const matrix::Dense<V>& squares, matrix::Dense<V>& x)
{
    const auto sq = as_device(squares.data());
    const auto xd = as_device(x.data());
    const long long xs = x.stride();
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] __device__(long long i, long long j) { xd[i * xs + j] *= krylov::inverse_norm(sq[j]); },
        "loom::blas::normalize");
}

}  // namespace loom::blas::cuda

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, cuda, CudaExecutor)
}  // namespace loom::blas
