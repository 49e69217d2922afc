// CUDA fused Krylov steps: one kernel per step (plus the combining pass of a reduction over
// many blocks), every coefficient formed per element from the scalars in device memory, so a
// step needs nothing from the host. The reductions are blas/dense's deterministic column sums.
#include <algorithm>
#include <span>

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

using loom::detail::kernel_matrix;
template <typename D>
using Rows = loom::detail::KernelMatrix<D>;

template <typename D>
struct Dot2Term {
    Rows<const D> x1;
    Rows<const D> y1;
    Rows<const D> x2;
    Rows<const D> y2;
    __device__ SumPair<D> operator()(long long i, long long j) const
    {
        return {conj_dev(x1(i, j)) * y1(i, j), conj_dev(x2(i, j)) * y2(i, j)};
    }
};

/// r -= alpha q where the column runs, then the term of r^H r.
template <typename D>
struct ResidualStepTerm {
    const D* gate;
    const D* rho_old;
    const D* pq;
    Rows<const D> q;
    Rows<D> r;
    __device__ D operator()(long long i, long long j) const
    {
        D& ri = r(i, j);
        const D g = gate[j];
        if (g != D{}) ri += -krylov::cg_alpha(g, rho_old[j], pq[j]) * q(i, j);
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
    Rows<const D> p_hat;
    Rows<const D> s_hat;
    Rows<const D> t;
    Rows<const D> r_tld;
    Rows<D> r;
    Rows<D> x;
    __device__ SumPair<D> operator()(long long i, long long j) const
    {
        D& ri = r(i, j);
        const D g = gate_half[j];
        if (g != D{}) {
            // s_hat may be r itself: read before r changes.
            const D si = s_hat(i, j);
            D& xi = x(i, j);
            xi += krylov::bicgstab_alpha(g, rho_old[j], sigma[j]).value * p_hat(i, j);
            const auto omega = krylov::bicgstab_omega(g, tt[j], ts[j]);
            if (omega.usable) {
                xi += omega.value * si;
                ri += -omega.value * t(i, j);
            }
        }
        return {conj_dev(r_tld(i, j)) * ri, conj_dev(ri) * ri};
    }
};

/// Vectors x_i per launch of multi_conj_dot (G sums per thread: registers and the
/// reduction's shared memory grow with it) and of multi_axpy.
constexpr int multi_dot_group = 4;
constexpr int multi_axpy_group = 8;

/// G sums carried together through column_sums.
template <typename D, int G>
struct SumGroup {
    D v[G];
    __device__ SumGroup()
    {
        for (int g = 0; g < G; ++g) v[g] = D{};
    }
    __device__ SumGroup& operator+=(const SumGroup& other)
    {
        for (int g = 0; g < G; ++g) v[g] += other.v[g];
        return *this;
    }
};

template <typename D, int G>
__device__ SumGroup<D, G> shuffle_down(SumGroup<D, G> value, int offset)
{
    for (int g = 0; g < G; ++g) value.v[g] = loom::blas::cuda::shuffle_down(value.v[g], offset);
    return value;
}

/// Writes a SumGroup's first `count` sums of column j to result(0, g k + j).
template <typename D, int G>
struct GroupResult {
    D* out;
    long long k;
    int count;
    struct Element {
        D* out;
        long long k;
        int count;
        __device__ void operator=(const SumGroup<D, G>& value) const
        {
            for (int g = 0; g < count; ++g) out[g * k] = value.v[g];
        }
    };
    __device__ Element operator[](long long j) const { return {out + j, k, count}; }
};

/// The terms conj(x_g(i, j)) y(i, j) of up to G vectors (the others' sums stay 0).
template <typename D, int G>
struct MultiDotTerm {
    Rows<const D> x[G];
    int count;
    Rows<const D> y;
    __device__ SumGroup<D, G> operator()(long long i, long long j) const
    {
        SumGroup<D, G> sums;
        const D yij = y(i, j);
#pragma unroll
        for (int g = 0; g < G; ++g) {
            if (g < count) sums.v[g] = conj_dev(x[g](i, j)) * yij;
        }
        return sums;
    }
};

/// Up to G vectors and their coefficients' row (alpha(0, g k + j) for column j).
template <typename D, int G>
struct AxpyGroup {
    Rows<const D> x[G];
    const D* alpha;
    int count;
};

}  // namespace

template <typename V>
void multi_conj_dot(const CudaExecutor& exec, std::span<const matrix::Dense<V>* const> x,
                    const matrix::Dense<V>& y, matrix::Dense<V>& result)
{
    using D = device_type_t<V>;
    constexpr int G = multi_dot_group;
    const long long k = y.cols();
    const auto count = static_cast<long long>(x.size());
    for (long long first = 0; first < count; first += G) {
        MultiDotTerm<D, G> term{};
        term.count = static_cast<int>(std::min<long long>(G, count - first));
        for (int g = 0; g < term.count; ++g) term.x[g] = kernel_matrix(exec, *x[first + g]);
        term.y = kernel_matrix(exec, y);
        column_sums<SumGroup<D, G>>(
            exec, y.rows(), k, term,
            GroupResult<D, G>{as_device(result.data()) + first * k, k, term.count}, Identity{},
            "loom::blas::multi_conj_dot");
    }
}

template <typename V>
void multi_axpy(const CudaExecutor& exec, const matrix::Dense<V>& alpha,
                std::span<const matrix::Dense<V>* const> x, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    constexpr int G = multi_axpy_group;
    const long long k = y.cols();
    const auto count = static_cast<long long>(x.size());
    const auto Y = kernel_matrix(exec, y);
    for (long long first = 0; first < count; first += G) {
        AxpyGroup<D, G> group{};
        group.count = static_cast<int>(std::min<long long>(G, count - first));
        for (int g = 0; g < group.count; ++g) group.x[g] = kernel_matrix(exec, *x[first + g]);
        group.alpha = as_device(alpha.data()) + first * k;
        loom::detail::parallel_for(
            exec, y.rows(), k,
            [=] __device__(long long i, long long j) {
                D yij = Y(i, j);
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    if (g < group.count) yij += group.alpha[g * k + j] * group.x[g](i, j);
                }
                Y(i, j) = yij;
            },
            "loom::blas::multi_axpy");
    }
}

template <typename V>
void conj_dot2(const CudaExecutor& exec, const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,
               matrix::Dense<V>& out1, const matrix::Dense<V>& x2, const matrix::Dense<V>& y2,
               matrix::Dense<V>& out2)
{
    using D = device_type_t<V>;
    const Dot2Term<D> term{kernel_matrix(exec, x1), kernel_matrix(exec, y1),
                           kernel_matrix(exec, x2), kernel_matrix(exec, y2)};
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
                                   as_device(s.pq->data()), kernel_matrix(exec, q),
                                   kernel_matrix(exec, r)};
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
    const auto Z = kernel_matrix(exec, z);
    const auto P = kernel_matrix(exec, p);
    const auto X = kernel_matrix(exec, x);
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
            D& pi = P(i, j);
            X(i, j) += alpha * pi;
            pi = next.beta == D{} ? Z(i, j) : Z(i, j) + next.beta * pi;
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
    const auto R = kernel_matrix(exec, r);
    const auto Vm = kernel_matrix(exec, v);
    const auto P = kernel_matrix(exec, p);
    const auto R_tld = kernel_matrix(exec, r_tld);
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
            const D ri = R(i, j);
            if (top.restarted) R_tld(i, j) = ri;
            D& pi = P(i, j);
            pi = first || top.restarted ? ri : ri + top.beta * (pi + -top.omega_prev * Vm(i, j));
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
    const auto Vm = kernel_matrix(exec, v);
    const auto R = kernel_matrix(exec, r);
    const long long rows = v.rows();
    loom::detail::parallel_for(
        exec, rows > 0 ? rows : 1, v.cols(),
        [=] __device__(long long i, long long j) {
            const auto alpha = krylov::bicgstab_alpha(gate[j], rho_old[j], sigma[j]);
            if (i == 0) gate_half[j] = alpha.usable ? D(1) : D(0);
            if (i < rows && alpha.usable) R(i, j) += -alpha.value * Vm(i, j);
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
        as_device(s.tt->data()),        as_device(s.ts->data()),      kernel_matrix(exec, p_hat),
        kernel_matrix(exec, s_hat),     kernel_matrix(exec, t),       kernel_matrix(exec, r_tld),
        kernel_matrix(exec, r),         kernel_matrix(exec, x)};
    column_sums<SumPair<D>>(exec, t.rows(), t.cols(), term,
                            SplitResult<D>{as_device(s.rho->data()), as_device(s.rr->data())},
                            Identity{}, "loom::blas::bicgstab_final_step");
}

template <typename V>
void normalize(const CudaExecutor& exec, const matrix::Dense<V>& squares, matrix::Dense<V>& x)
{
    const auto sq = as_device(squares.data());
    const auto X = kernel_matrix(exec, x);
    loom::detail::parallel_for(
        exec, x.rows(), x.cols(),
        [=] __device__(long long i, long long j) { X(i, j) *= krylov::inverse_norm(sq[j]); },
        "loom::blas::normalize");
}

}  // namespace loom::blas::cuda

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, cuda, CudaExecutor)
}  // namespace loom::blas
