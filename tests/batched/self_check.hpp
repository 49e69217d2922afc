// The self-check of the team launcher and of the batched routines, written once for every
// backend: self_check_test.cpp runs it on the host executors, self_check.cu on CUDA (with
// thrust::complex as the device complex type, layout-compatible with std::complex). It runs
// team launches of many shapes (rank coverage, the member's loops, barriers, reductions of
// several value types, scratch) and a sequence of batched routines in each mode (Serial one
// matrix per thread, Team, TeamVector; scalars, complex numbers and SIMD packs), comparing
// every result with the sequential one computed on the host. run_all returns one line per
// failure; empty when everything agrees.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/batched/routines.hpp"
#include "loom/config.hpp"
#include "loom/launch/team.hpp"

namespace loom::test::self_check {

using namespace loom::launch;

/// Sets bits in a team's error word (atomically on the GPU, where several threads may fail).
LOOM_HOST_DEVICE inline void flag_error(int* flag, int bits)
{
#ifdef __CUDA_ARCH__
    atomicOr(flag, bits);
#else
    *flag |= bits;
#endif
}

struct TeamShape {
    int team_size;
    int vector_length;
};

inline std::string describe(const TeamShape& s, size_type league)
{
    return "team " + std::to_string(s.team_size) + " x vector " + std::to_string(s.vector_length) +
           ", league " + std::to_string(league);
}

/// One team of the mechanics check: w holds the team's marks and loop targets, f its error word.
template <typename C>
struct MechanicsTeam {
    using Pack = batched::Simd<double, 4>;
    static constexpr int marks = 1024, as = 64, bs = 90, slots = marks + as + bs;
    int* w;
    int* f;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        const auto t = m.league_rank();
        int* mark = w + t * slots;
        int* a = mark + marks;
        int* b = a + as;
        int* flag = f + t;
        const int vl = m.vector_length();
        const int threads = m.team_size() * vl;
        const int flat = m.team_rank() * vl + m.vector_rank();
        // Ranks: every (team rank, lane) once; team_vector_for hands out the flat rank.
        if (m.team_rank() >= m.team_size() || m.vector_rank() >= vl) flag_error(flag, 1);
        mark[flat] += 1;
        m.team_vector_for(threads, [&](int i) {
            if (i != flat) flag_error(flag, 2);
        });
        m.team_barrier();
        m.team_single([&] {
            for (int i = 0; i < threads; ++i) {
                if (mark[i] != 1) flag_error(flag, 4);
            }
        });
        // Loops
        m.team_for(as, [&](int i) { a[i] = static_cast<int>(t) + i; });
        m.team_for(10, [&](int i) { m.vector_for(9, [&](int j) { b[i * 9 + j] = i * 9 + j + 1; }); });
        m.team_barrier();
        m.team_vector_for(as, [&](int i) {
            if (a[i] != static_cast<int>(t) + i) flag_error(flag, 8);
        });
        m.team_vector_for(bs, [&](int i) {
            if (b[i] != i + 1) flag_error(flag, 16);
        });
        // Reductions: every participant gets the total.
        const double s1 = m.team_reduce_sum(50, [](int i) { return double(i); });
        const int s2 = m.team_vector_reduce_sum(1000, [](int i) { return i; });
        const C s3 = m.team_vector_reduce_sum(33, [](int i) { return C(i, -i); });
        const Pack s4 = m.team_reduce_sum(7, [](int i) {
            Pack p(static_cast<double>(i));
            p[3] = 1;
            return p;
        });
        if (s1 != 1225.0) flag_error(flag, 32);
        if (s2 != 499500) flag_error(flag, 64);
        if (s3.real() != 528.0 || s3.imag() != -528.0) flag_error(flag, 128);
        if (s4[0] != 21.0 || s4[2] != 21.0 || s4[3] != 7.0) flag_error(flag, 256);
        m.team_for(5, [&](int i) {
            const double v = m.vector_reduce_sum(40 + i, [](int j) { return double(j); });
            if (v != (39.0 + i) * (40 + i) / 2) flag_error(flag, 512);
        });
        // Barriers, through the team scratch (one pointer for the whole team).
        int* shared = m.template team_scratch<int>(threads);
        int* first = m.template team_scratch<int>(1);
        if (shared == nullptr || first == nullptr) {
            flag_error(flag, 1024);
            return;
        }
        m.team_single([&] { *first = static_cast<int>(reinterpret_cast<std::uintptr_t>(shared) & 0xffffff); });
        m.team_barrier();
        if (*first != static_cast<int>(reinterpret_cast<std::uintptr_t>(shared) & 0xffffff)) {
            flag_error(flag, 2048);
        }
        for (int round = 0; round < 3; ++round) {
            shared[flat] = round * 10000 + static_cast<int>(t % 1000) * 10 + flat % 10;
            m.team_barrier();
            const int next = (flat + 1) % threads;
            if (shared[next] != round * 10000 + static_cast<int>(t % 1000) * 10 + next % 10) {
                flag_error(flag, 4096);
            }
            m.team_barrier();
        }
        shared[flat] = -flat;
        m.vector_barrier();
        const int neighbour = m.team_rank() * vl + (m.vector_rank() + 1) % vl;
        if (shared[neighbour] != -neighbour) flag_error(flag, 8192);
        m.team_barrier();
    }
};

/// Team mechanics: ranks, loops, reductions of several types, barriers, scratch. C is the
/// complex type usable on the executor.
template <typename Exec, typename C>
void team_mechanics(const std::shared_ptr<const Executor>& exec, std::vector<std::string>& failures)
{
    constexpr int slots = MechanicsTeam<C>::slots;
    // On the host every shape runs as teams of one thread: two shapes say as much as twelve.
    const bool host = exec->is_host();
    const std::vector<TeamShape> shapes =
        host ? std::vector<TeamShape>{{1, 1}, {4, 8}}
             : std::vector<TeamShape>{{1, 1}, {1, 4},  {2, 4},  {1, 32}, {4, 8},  {2, 16},
                                      {32, 1}, {3, 32}, {8, 4}, {16, 2}, {64, 1}, {1024, 1}};
    for (const auto& shape : shapes) {
        for (const size_type league : {size_type{1}, size_type{37}, size_type{host ? 300 : 1500}}) {
            const auto policy = TeamPolicy{league, shape.team_size, shape.vector_length}
                                    .set_scratch_bytes(4 * 1024 + 64);
            Array<int> work(exec, std::vector<int>(static_cast<std::size_t>(league * slots), 0));
            Array<int> flags(exec, std::vector<int>(static_cast<std::size_t>(league), 0));
            int* w = work.data();
            int* f = flags.data();
            try {
                team_parallel_for(static_cast<const Exec&>(*exec), policy, MechanicsTeam<C>{w, f});
            } catch (const BadInput&) {
                // Teams above 256 threads are refused when this functor needs more registers
                // than such a block may have: that refusal is the expected outcome.
                if (policy.team_threads() > 256) continue;
                throw;
            }
            exec->synchronize();
            const auto result = flags.to_host();
            int bits = 0, teams = 0;
            for (const int r : result) {
                bits |= r;
                teams += r != 0;
            }
            if (bits != 0) {
                failures.push_back("team launch, " + describe(shape, league) + ": " +
                                   std::to_string(teams) + " teams failed, error bits " +
                                   std::to_string(bits));
            }
        }
    }
}

/// Calls Routine::invoke with the member except in Serial mode.
template <typename Routine, typename ModeT, typename Member, typename... Args>
LOOM_HOST_DEVICE auto invoke(const Member& member, const Args&... args)
{
    if constexpr (std::is_same_v<ModeT, batched::Mode::Serial>) {
        return Routine::invoke(args...);
    } else {
        return Routine::invoke(member, args...);
    }
}

/// Values and ints of one problem of the routine sequence, size n.
struct Problem {
    int n;
    LOOM_HOST_DEVICE size_type values() const { return 8 * n * n + 11 * n + 2; }
    LOOM_HOST_DEVICE size_type ints() const { return 3 * n + 8; }
};

/// A sequence of batched routines on one problem (see fill_problem for the inputs), run by
/// the calling team in ModeT. Failure codes and reductions are stored at the end.
template <typename ModeT, typename Member, typename T>
LOOM_HOST_DEVICE void routine_sequence(const Member& m, T* data, int* ints, int n)
{
    using namespace loom::batched;
    using NT = Trans::NoTranspose;
    using TT = Trans::Transpose;
    using CT = Trans::ConjTranspose;
    auto square = [&](int k) { return View<T>(data + k * n * n, n, n); };
    const auto A = square(0), LUm = square(1), H = square(2), Q = square(3), C = square(4),
               U = square(5), V = square(6), R = square(7);
    T* rest = data + 8 * n * n;
    const View<T> Bm(rest, n, 2), X(rest + 2 * n, n, 2), AB(rest + 7 * n, 4, n);
    const VectorView<T> x(rest + 4 * n, n), tau(rest + 5 * n, n), work(rest + 6 * n, n);
    T* sums = rest + 11 * n;
    const VectorView<int> ipiv(ints, n), ipiv2(ints + n, n), jpiv(ints + 2 * n, n);
    int* info = ints + 3 * n;

    invoke<Gemm<ModeT, NT, CT>, ModeT>(m, 1.5, A, LUm, -0.5, C);
    const int lu = invoke<Getrf<ModeT>, ModeT>(m, LUm, ipiv);
    int inverse = -1;
    if (lu == 0) {
        invoke<Getrs<ModeT, TT>, ModeT>(m, LUm, ipiv, Bm);
        inverse = invoke<InverseLU<ModeT>, ModeT>(m, LUm, ipiv, work);
    }
    const auto cholesky = invoke<Potrf<ModeT, Uplo::Upper>, ModeT>(m, H);
    if (cholesky == 0) invoke<Potrs<ModeT, Uplo::Upper>, ModeT>(m, H, X);
    invoke<QR<ModeT>, ModeT>(m, Q, tau);
    invoke<ApplyQ<ModeT, Side::Left, CT>, ModeT>(m, Q, tau, C);
    invoke<Trsm<ModeT, Side::Right, Uplo::Upper, CT, Diag::NonUnit>, ModeT>(m, 0.5, A, X.transposed());
    invoke<Trmm<ModeT, Side::Left, Uplo::Lower, NT, Diag::Unit>, ModeT>(m, 2.0, A, Bm);
    const auto triangular = invoke<Trtri<ModeT, Uplo::Lower>, ModeT>(m, A);
    const int rank = invoke<UTV<ModeT>, ModeT>(m, R, jpiv, U, V, work);
    const int banded = invoke<Gbtrf<ModeT>, ModeT>(m, AB, ipiv2, 1, 1);
    if (banded == 0) invoke<Gbtrs<ModeT, CT>, ModeT>(m, AB, ipiv2, 1, 1, x);
    const T dot = invoke<Dot<ModeT>, ModeT>(m, x, tau);
    const auto norm = invoke<Nrm2<ModeT>, ModeT>(m, x);
    if (m.team_rank() == 0 && m.vector_rank() == 0) {
        info[0] = lu;
        info[1] = inverse;
        info[2] = cholesky;
        info[3] = triangular;
        info[4] = rank;
        info[5] = banded;
        sums[0] = dot;
        sums[1] = T(norm);
    }
}

/// The same for SIMD packs (the routines without pivoting), one info per lane.
template <typename ModeT, typename Member, typename P>
LOOM_HOST_DEVICE void pack_sequence(const Member& m, P* data, int* ints, int n)
{
    using namespace loom::batched;
    using NT = Trans::NoTranspose;
    using TT = Trans::Transpose;
    auto square = [&](int k) { return View<P>(data + k * n * n, n, n); };
    const auto A = square(0), LUm = square(1), H = square(2), Q = square(3), C = square(4);
    P* rest = data + 8 * n * n;
    const View<P> Bm(rest, n, 2), X(rest + 2 * n, n, 2);
    const VectorView<P> x(rest + 4 * n, n), tau(rest + 5 * n, n), work(rest + 6 * n, n);
    P* sums = rest + 11 * n;
    int* info = ints + 3 * n;
    constexpr int W = P::width;

    invoke<Gemm<ModeT, TT, NT>, ModeT>(m, 1.5, A, LUm, -0.5, C);
    const auto lu = invoke<LU<ModeT>, ModeT>(m, LUm);
    invoke<Getrs<ModeT, NT, Pivot::None>, ModeT>(m, LUm, Bm);
    const auto cholesky = invoke<Potrf<ModeT, Uplo::Lower>, ModeT>(m, H);
    invoke<Potrs<ModeT, Uplo::Lower>, ModeT>(m, H, X);
    invoke<QR<ModeT>, ModeT>(m, Q, tau);
    invoke<ApplyQ<ModeT, Side::Right, NT>, ModeT>(m, Q, tau, C);
    invoke<Trsv<ModeT, Uplo::Upper, TT, Diag::NonUnit>, ModeT>(m, 1.0, A, x);
    const auto triangular = invoke<Trtri<ModeT, Uplo::Upper>, ModeT>(m, A);
    invoke<Copy<ModeT>, ModeT>(m, A, LUm);
    const auto inverse = invoke<InverseLU<ModeT, Pivot::None>, ModeT>(m, LUm, work);
    const P dot = invoke<Dot<ModeT>, ModeT>(m, x, tau);
    if (m.team_rank() == 0 && m.vector_rank() == 0) {
        for (int l = 0; l < W; ++l) {
            info[0 * W + l] = lu[l];
            info[1 * W + l] = cholesky[l];
            info[2 * W + l] = triangular[l];
        }
        (void)inverse;
        sums[0] = dot;
    }
}

/// One team per problem of the routine (or pack) sequence. A functor class rather than a
/// lambda: nvcc does not take generic __host__ __device__ lambdas.
template <typename ModeT, typename T, bool Packs>
struct SequenceTeam {
    T* data;
    int* ints;
    size_type values_per_problem;
    size_type ints_per_problem;
    int n;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        const auto b = m.league_rank();
        if constexpr (Packs) {
            pack_sequence<ModeT>(m, data + b * values_per_problem, ints + b * ints_per_problem, n);
        } else {
            routine_sequence<ModeT>(m, data + b * values_per_problem, ints + b * ints_per_problem, n);
        }
    }
};

/// Random inputs for one problem: see routine_sequence. Problem b fails on purpose in one
/// routine when b % 7 is 3 (a zero column for LU), 5 (indefinite for Cholesky) or 6 (a zero
/// diagonal for Trtri).
template <typename H>
void fill_problem(std::vector<H>& values, std::vector<int>& ints, size_type b, int n)
{
    using Rl = remove_complex_t<H>;
    std::mt19937_64 rng(1000 + b * 7919 + n);
    std::uniform_real_distribution<double> dist(-1, 1);
    auto random = [&] {
        if constexpr (is_complex_v<H>) {
            return H(Rl(dist(rng)), Rl(dist(rng)));
        } else {
            return H(Rl(dist(rng)));
        }
    };
    const Problem p{n};
    H* d = values.data() + b * p.values();
    for (size_type e = 0; e < p.values(); ++e) d[e] = random();
    auto at = [&](int k, int i, int j) -> H& { return d[k * n * n + i * n + j]; };
    for (int i = 0; i < n; ++i) at(0, i, i) += H(Rl(2));  // A: triangular solves stay tame
    // H: X Xᴴ + n I from its own random entries.
    std::vector<H> x(d + 2 * n * n, d + 3 * n * n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            H s = i == j ? H(Rl(n)) : H(0);
            for (int k = 0; k < n; ++k) s += x[i * n + k] * loom::conj(x[j * n + k]);
            at(2, i, j) = s;
        }
    }
    // R: rank n / 2 (at least 1), the product of n × r and r × n random factors.
    const int r = std::max(1, n / 2);
    std::vector<H> left(n * r), right(r * n);
    for (auto& v : left) v = random();
    for (auto& v : right) v = random();
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            H s = 0;
            for (int k = 0; k < r; ++k) s += left[i * r + k] * right[k * n + j];
            at(7, i, j) = s;
        }
    }
    H* ab = d + 8 * n * n + 7 * n;  // 4 × n band storage of a tridiagonal matrix
    for (int j = 0; j < n; ++j) ab[2 * n + j] += H(Rl(2));
    if (b % 7 == 3 && n >= 2) {
        for (int i = 0; i < n; ++i) at(1, i, 1) = H(0);
    }
    if (b % 7 == 5) at(2, n - 1, n - 1) = H(Rl(-1000));
    if (b % 7 == 6) at(0, n / 2, n / 2) = H(0);
    int* in = ints.data() + b * p.ints();
    std::fill(in, in + p.ints(), -7);
}

template <typename H>
bool same(const H& a, const H& b, double tol, double scale)
{
    // Non-finite values come from the problems made to fail (a zero pivot divides by zero),
    // and complex division by zero gives (inf, nan) on one library, (nan, nan) on another:
    // both sides non-finite is agreement.
    const bool finite_a = std::isfinite(std::abs(a));
    const bool finite_b = std::isfinite(std::abs(b));
    if (!finite_a || !finite_b) return !finite_a && !finite_b;
    if (a == b) return true;
    return std::abs(a - b) <= tol * scale;
}

/// Compares the problems computed on the executor with the host's; appends failures.
template <typename H>
void compare(const std::vector<H>& got, const std::vector<int>& got_ints,
             const std::vector<H>& expected, const std::vector<int>& expected_ints,
             size_type problems, size_type values, size_type ints, const std::string& what,
             std::vector<std::string>& failures)
{
    const double tol = std::is_same_v<remove_complex_t<H>, float> ? 1e-3 : 1e-9;
    for (size_type b = 0; b < problems; ++b) {
        double scale = 1;
        for (size_type e = 0; e < values; ++e) {
            const double v = std::abs(expected[b * values + e]);
            if (!std::isnan(v)) scale = std::max(scale, v);
        }
        size_type bad_values = 0, bad_ints = 0;
        for (size_type e = 0; e < values; ++e) {
            bad_values += !same(got[b * values + e], expected[b * values + e], tol, scale);
        }
        for (size_type e = 0; e < ints; ++e) {
            bad_ints += got_ints[b * ints + e] != expected_ints[b * ints + e];
        }
        if (bad_values + bad_ints > 0) {
            failures.push_back(what + ", problem " + std::to_string(b) + ": " +
                               std::to_string(bad_values) + " values and " +
                               std::to_string(bad_ints) + " ints differ from the host");
            return;  // one line per configuration is enough
        }
    }
}

/// The routine sequence on exec in ModeT with the given team shape, against the host.
template <typename Exec, typename ModeT, typename H, typename D>
void routines_in_mode(const std::shared_ptr<const Executor>& exec, int n, TeamShape shape,
                      std::vector<std::string>& failures)
{
    constexpr size_type problems = 40;
    const Problem p{n};
    std::vector<H> values(problems * p.values());
    std::vector<int> ints(problems * p.ints());
    for (size_type b = 0; b < problems; ++b) fill_problem(values, ints, b, n);
    auto expected = values;
    auto expected_ints = ints;
    const HostTeamMember host(0, 1, nullptr, 0);
    for (size_type b = 0; b < problems; ++b) {
        routine_sequence<batched::Mode::Serial>(host, expected.data() + b * p.values(),
                                                expected_ints.data() + b * p.ints(), n);
    }
    Array<H> data(exec, values);
    Array<int> int_data(exec, ints);
    D* d = reinterpret_cast<D*>(data.data());
    int* in = int_data.data();
    const size_type nv = p.values();
    const size_type ni = p.ints();
    team_parallel_for(static_cast<const Exec&>(*exec),
                      TeamPolicy{problems, shape.team_size, shape.vector_length},
                      SequenceTeam<ModeT, D, false>{d, in, nv, ni, n});
    exec->synchronize();
    const char* mode = std::is_same_v<ModeT, batched::Mode::Serial> ? "Serial"
                       : std::is_same_v<ModeT, batched::Mode::Team>  ? "Team"
                                                                     : "TeamVector";
    compare(data.to_host(), int_data.to_host(), expected, expected_ints, problems, nv, ni,
            std::string("routines ") + mode + " " + type_name<H>() + " n " + std::to_string(n) +
                ", " + describe(shape, problems),
            failures);
}

/// The pack sequence on exec, against the host; packs of 4 doubles.
template <typename Exec, typename ModeT>
void packs_in_mode(const std::shared_ptr<const Executor>& exec, int n, TeamShape shape,
                   std::vector<std::string>& failures)
{
    using Pack = batched::Simd<double, 4>;
    constexpr size_type problems = 10;
    const Problem p{n};
    const size_type nv = p.values();
    const size_type ni = p.ints() + 8;  // three infos per lane
    std::vector<double> scalars(problems * 4 * nv);
    std::vector<int> ignored(problems * 4 * p.ints());
    std::vector<Pack> packs(problems * nv);
    for (size_type b = 0; b < problems * 4; ++b) fill_problem(scalars, ignored, b, n);
    for (size_type b = 0; b < problems * 4; ++b) {
        for (size_type e = 0; e < nv; ++e) packs[(b / 4) * nv + e][b % 4] = scalars[b * nv + e];
    }
    std::vector<int> ints(problems * ni, -7);
    auto expected = packs;
    auto expected_ints = ints;
    const HostTeamMember host(0, 1, nullptr, 0);
    for (size_type b = 0; b < problems; ++b) {
        pack_sequence<batched::Mode::Serial>(host, expected.data() + b * nv,
                                             expected_ints.data() + b * ni, n);
    }
    Array<double> data(exec, std::vector<double>(reinterpret_cast<const double*>(packs.data()),
                                                 reinterpret_cast<const double*>(packs.data()) + packs.size() * 4));
    Array<int> int_data(exec, ints);
    Pack* d = reinterpret_cast<Pack*>(data.data());
    int* in = int_data.data();
    team_parallel_for(static_cast<const Exec&>(*exec),
                      TeamPolicy{problems, shape.team_size, shape.vector_length},
                      SequenceTeam<ModeT, Pack, true>{d, in, nv, ni, n});
    exec->synchronize();
    const auto got = data.to_host();
    const auto* flat = reinterpret_cast<const double*>(expected.data());
    compare(got, int_data.to_host(), std::vector<double>(flat, flat + got.size()), expected_ints,
            problems, nv * 4, ni,
            std::string("packs ") +
                (std::is_same_v<ModeT, batched::Mode::Serial> ? "Serial"
                 : std::is_same_v<ModeT, batched::Mode::Team> ? "Team"
                                                              : "TeamVector") +
                " n " + std::to_string(n) + ", " + describe(shape, problems),
            failures);
}

/// Everything, on exec of type Exec; D is the device twin of std::complex<double>.
template <typename Exec, typename D>
std::vector<std::string> run_all(const std::shared_ptr<const Executor>& exec)
{
    using namespace loom::batched;
    std::vector<std::string> failures;
    team_mechanics<Exec, D>(exec, failures);
    const TeamShape one{1, 1};
    const std::vector<TeamShape> shapes =
        exec->is_host() ? std::vector<TeamShape>{{1, 1}}
                        : std::vector<TeamShape>{{2, 4}, {4, 8}, {3, 32}, {64, 1}};
    for (int n : {1, 4, 16, 33}) {
        routines_in_mode<Exec, Mode::Serial, double, double>(exec, n, one, failures);
        routines_in_mode<Exec, Mode::Serial, std::complex<double>, D>(exec, n, one, failures);
        packs_in_mode<Exec, Mode::Serial>(exec, n, one, failures);
        for (const auto& shape : shapes) {
            routines_in_mode<Exec, Mode::Team, double, double>(exec, n, shape, failures);
            routines_in_mode<Exec, Mode::TeamVector, double, double>(exec, n, shape, failures);
            routines_in_mode<Exec, Mode::TeamVector, std::complex<double>, D>(exec, n, shape, failures);
            packs_in_mode<Exec, Mode::TeamVector>(exec, n, shape, failures);
        }
        routines_in_mode<Exec, Mode::Team, std::complex<double>, D>(exec, n, {4, 8}, failures);
        routines_in_mode<Exec, Mode::TeamVector, float, float>(exec, n, {8, 4}, failures);
        packs_in_mode<Exec, Mode::Team>(exec, n, {2, 16}, failures);
    }
    return failures;
}

#if LOOM_HAS_CUDA
/// run_all on a CudaExecutor (self_check.cu, compiled by nvcc).
std::vector<std::string> run_all_cuda(const std::shared_ptr<const Executor>& exec);
#endif

}  // namespace loom::test::self_check
