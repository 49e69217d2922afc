// OpenMP fused Krylov steps. The reductions are blas/dense's (omp_column_sums.hpp), so a
// fused r^H r equals the unfused one bit for bit; the coefficients are formed once per
// column on the host (a division per element would cost more than the memory traffic).
#include <algorithm>
#include <cstring>
#include <span>
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

/// Vectors x_i per pass of the multi-vector kernels: y is read (and, by multi_axpy, written)
/// once for this many. Eight keep the sums and coefficients in registers (16 SSE ones).
constexpr size_type multi_group = 8;

/// Whether x_i and y are single contiguous columns: the loops below then run on raw
/// pointers, which the compiler vectorizes.
template <typename V>
bool unit_columns(std::span<const matrix::Dense<V>* const> x, const matrix::Dense<V>& y)
{
    if (y.cols() != 1 || y.stride() != 1) return false;
    for (const auto* v : x) {
        if (v->stride() != 1) return false;
    }
    return true;
}

/// 16 bytes of V as one SSE register (GCC's and clang's vector extension), for the real types.
template <typename V>
struct Pack {
    static constexpr bool exists = false;
};
template <>
struct Pack<double> {
    static constexpr bool exists = true;
    typedef double type __attribute__((vector_size(16)));
};
template <>
struct Pack<float> {
    static constexpr bool exists = true;
    typedef float type __attribute__((vector_size(16)));
};

/// out[g] = sum over rows [begin, end) of conj(x_g[i]) y[i] for the G vectors of `group`,
/// in a fixed order. Real types: one 16-byte sum per vector, lane l taking the rows
/// l (mod lanes), lanes added at the end, then the rows left over. Written with the vector
/// extension because GCC's own vectorization of this loop (scalar sums, two rows a step)
/// shuffled and spilled: 32 dots of 4960 rows took 32.5 us that way, 15.6 us this way
/// (one thread, groups of 8).
template <int G, typename V>
void unit_dots(std::span<const matrix::Dense<V>* const> group, const V* y, size_type begin,
               size_type end, V* out)
{
    const V* x[G];
    for (int g = 0; g < G; ++g) x[g] = group[g]->data();
    size_type i = begin;
    V sums[G] = {};
    if constexpr (Pack<V>::exists) {
        using P = typename Pack<V>::type;
        constexpr int lanes = sizeof(P) / sizeof(V);
        P acc[G];
        for (int g = 0; g < G; ++g) acc[g] = P{};
        for (; i + lanes <= end; i += lanes) {
            P yv;
            std::memcpy(&yv, y + i, sizeof(P));
            for (int g = 0; g < G; ++g) {
                P xv;
                std::memcpy(&xv, x[g] + i, sizeof(P));
                acc[g] += xv * yv;
            }
        }
        for (int g = 0; g < G; ++g) {
            for (int l = 0; l < lanes; ++l) sums[g] += acc[g][l];
        }
    }
    for (; i < end; ++i) {
        for (int g = 0; g < G; ++g) sums[g] += loom::conj(x[g][i]) * y[i];
    }
    for (int g = 0; g < G; ++g) out[g] = sums[g];
}

/// y[i] += sum_g alpha[g] x_g[i] over rows [begin, end), the terms in the order of g.
template <int G, typename V>
void unit_axpy(const V* alpha, std::span<const matrix::Dense<V>* const> group, V* y,
               size_type begin, size_type end)
{
    const V* x[G];
    V a[G];
    for (int g = 0; g < G; ++g) {
        x[g] = group[g]->data();
        a[g] = alpha[g];
    }
    // y shares no element with an x_g (checked by blas::multi_axpy).
#pragma omp simd
    for (size_type i = begin; i < end; ++i) {
        V yi = y[i];
        for (int g = 0; g < G; ++g) yi += a[g] * x[g][i];
        y[i] = yi;
    }
}

/// f.template operator()<G>() for the run-time group size g in 1 .. multi_group.
template <typename F>
void with_group_size(size_type g, F&& f)
{
    switch (g) {
    case 1: return f.template operator()<1>();
    case 2: return f.template operator()<2>();
    case 3: return f.template operator()<3>();
    case 4: return f.template operator()<4>();
    case 5: return f.template operator()<5>();
    case 6: return f.template operator()<6>();
    case 7: return f.template operator()<7>();
    default: return f.template operator()<8>();
    }
}
static_assert(multi_group == 8, "with_group_size covers 1 .. 8");

/// out[v k + j] = sum over rows [begin, end) of conj(x_v(i, j)) y(i, j): every vector of x
/// in groups of multi_group, one pass over y's rows a group.
template <typename V>
void multi_dot_rows(std::span<const matrix::Dense<V>* const> x, const matrix::Dense<V>& y,
                    bool unit, size_type begin, size_type end, V* out)
{
    const auto count = static_cast<size_type>(x.size());
    const size_type k = y.cols();
    for (size_type first = 0; first < count; first += multi_group) {
        const auto g = std::min(multi_group, count - first);
        const auto group = x.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(g));
        if (unit) {
            with_group_size(g, [&]<int G>() { unit_dots<G>(group, y.data(), begin, end, out + first); });
            continue;
        }
        V* sums = out + first * k;
        std::fill(sums, sums + g * k, V{});
        for (size_type i = begin; i < end; ++i) {
            for (size_type j = 0; j < k; ++j) {
                const V yij = y.at(i, j);
                for (size_type v = 0; v < g; ++v) sums[v * k + j] += loom::conj(group[v]->at(i, j)) * yij;
            }
        }
    }
}

}  // namespace

template <typename V>
void multi_conj_dot(const OmpExecutor& exec, std::span<const matrix::Dense<V>* const> x,
                    const matrix::Dense<V>& y, matrix::Dense<V>& result)
{
    const size_type n = y.rows();
    const auto values = static_cast<size_type>(x.size()) * y.cols();
    const bool unit = unit_columns(x, y);
    V* out = result.data();  // one row: values contiguous
    if (values * n < min_parallel_elements || exec.num_threads() == 1) {
        multi_dot_rows(x, y, unit, 0, n, out);
        return;
    }
    // Each thread's sums over its chunk of rows, added in thread order (deterministic).
    std::vector<V> partials(static_cast<std::size_t>(exec.num_threads() * values));
    int team_size = 1;
    for_row_chunks(exec, n, values * n, [&](size_type begin, size_type end, int thread, int threads) {
        if (thread == 0) team_size = threads;
        multi_dot_rows(x, y, unit, begin, end, partials.data() + thread * values);
    });
    for (size_type v = 0; v < values; ++v) {
        V sum{};
        for (int t = 0; t < team_size; ++t) sum += partials[t * values + v];
        out[v] = sum;
    }
}

template <typename V>
void multi_axpy(const OmpExecutor& exec, const matrix::Dense<V>& alpha,
                std::span<const matrix::Dense<V>* const> x, matrix::Dense<V>& y)
{
    const auto count = static_cast<size_type>(x.size());
    const size_type k = y.cols();
    const V* a = alpha.data();  // one row: values contiguous
    const bool unit = unit_columns(x, y);
    for_row_chunks(exec, y.rows(), count * y.rows() * k, [&](size_type begin, size_type end, int, int) {
        for (size_type first = 0; first < count; first += multi_group) {
            const auto g = std::min(multi_group, count - first);
            const auto group = x.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(g));
            if (unit) {
                with_group_size(g, [&]<int G>() { unit_axpy<G>(a + first, group, y.data(), begin, end); });
                continue;
            }
            for (size_type i = begin; i < end; ++i) {
                for (size_type j = 0; j < k; ++j) {
                    V yij = y.at(i, j);
                    for (size_type v = 0; v < g; ++v) yij += a[(first + v) * k + j] * group[v]->at(i, j);
                    y.at(i, j) = yij;
                }
            }
        }
    });
}

template <typename V>
void conj_dot2(const OmpExecutor& exec, const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,
               matrix::Dense<V>& out1, const matrix::Dense<V>& x2, const matrix::Dense<V>& y2,
               matrix::Dense<V>& out2)
{
    const auto X1 = kernel_matrix(exec, x1);
    const auto Y1 = kernel_matrix(exec, y1);
    const auto X2 = kernel_matrix(exec, x2);
    const auto Y2 = kernel_matrix(exec, y2);
    PerColumn<SumPair<V>> sums(x1.cols());
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
    PerColumn<V> minus_alpha(k);
    PerColumn<char> running(k);
    for (size_type j = 0; j < k; ++j) {
        const V gate = s.gate->at(0, j);
        running[j] = gate != V{0};
        minus_alpha[j] = -krylov::cg_alpha(gate, s.rho_old->at(0, j), s.pq->at(0, j));
    }
    const V* a = minus_alpha.data();
    const char* on = running.data();
    const auto Q = kernel_matrix(exec, q);
    const auto R = kernel_matrix(exec, r);
    PerColumn<V> sums(k);
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
    PerColumn<V> alpha(k);
    PerColumn<V> beta(k);
    PerColumn<char> running(k);
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
    PerColumn<krylov::BicgstabTop<V>> tops(k);
    for (size_type j = 0; j < k; ++j) tops[j] = krylov::bicgstab_column_top(s, j);
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
    PerColumn<krylov::UsableCoefficient<V>> alphas(k);
    for (size_type j = 0; j < k; ++j) alphas[j] = krylov::bicgstab_column_alpha(s, j);
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
    PerColumn<krylov::BicgstabFinal<V>> steps(k);
    for (size_type j = 0; j < k; ++j) steps[j] = krylov::bicgstab_column_final(s, j);
    const auto* step = steps.data();
    const auto P_hat = kernel_matrix(exec, p_hat);
    const auto S_hat = kernel_matrix(exec, s_hat);
    const auto T = kernel_matrix(exec, t);
    const auto R_tld = kernel_matrix(exec, r_tld);
    const auto R = kernel_matrix(exec, r);
    const auto X = kernel_matrix(exec, x);
    PerColumn<SumPair<V>> sums(k);
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
    PerColumn<V> inverse(k);
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
