// SIMD packs: the compact layout conversions, and every routine that takes packs giving, lane
// by lane, the same numbers as the scalar routine on that lane's matrix (bitwise: the lanes
// perform the same operations in the same order), with per-lane failure codes.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "loom/batched/front.hpp"
#include "loom/batched/routines.hpp"
#include "loom/config.hpp"
#include "loom/launch/host_team.hpp"
#include "loom/matrix/batch_dense.hpp"
#include "support/executors.hpp"

namespace {

using namespace loom::batched;
using loom::size_type;

/// Pack lanes and scalar runs perform the same operations in the same order, so they agree
/// bitwise, unless the compiler fuses multiply-adds in one and not the other (-march with FMA).
#if defined(__FMA__)
constexpr double lane_tolerance = 1e-5;
#else
constexpr double lane_tolerance = 0;
#endif

template <typename T>
bool lanes_agree(T a, T b)
{
    if (a == b || (std::isnan(a) && std::isnan(b))) return true;
    return std::abs(a - b) <= lane_tolerance * std::max<T>(1, std::abs(b));
}

TEST(SimdLayout, PackAndUnpackRoundTrip)
{
    constexpr int W = 4;
    const int rows = 3, cols = 5, batch = 10;  // not a multiple of W: the last pack is padded
    const size_type row_stride = cols + 1, batch_stride = rows * row_stride + 2;
    std::vector<double> plain(batch * batch_stride, -1.0);
    for (int b = 0; b < batch; ++b) {
        for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) plain[b * batch_stride + i * row_stride + j] = 100 * b + 10 * i + j;
        }
    }
    std::vector<Simd<double, W>> packs(pack_count(batch, W) * rows * cols);
    pack(plain.data(), batch, rows, cols, row_stride, batch_stride, packs.data());
    for (int b = 0; b < 12; ++b) {
        const auto v = lane_view(packs.data(), b, rows, cols);
        const int source = b < batch ? b : batch - 1;  // padding copies the last matrix
        for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) EXPECT_EQ(v(i, j), 100 * source + 10 * i + j);
        }
    }
    const auto p = pack_view(packs.data(), 1, rows, cols);
    EXPECT_EQ(p(2, 3)[1], 100 * 5 + 23);
    std::vector<double> back(plain.size(), -1.0);
    unpack(packs.data(), batch, rows, cols, back.data(), row_stride, batch_stride);
    for (int b = 0; b < batch; ++b) {
        for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) {
                const auto at = b * batch_stride + i * row_stride + j;
                EXPECT_EQ(back[at], plain[at]);
            }
        }
    }
    EXPECT_EQ(back[cols], -1.0);  // padding of the plain layout untouched
}

TEST(SimdArithmetic, LanewiseOperations)
{
    using P = Simd<double, 4>;
    P a, b;
    for (int l = 0; l < 4; ++l) {
        a[l] = l - 1.5;
        b[l] = 2.0 + l;
    }
    const P c = (a + b) * b / 2.0 - 1;
    const auto mask = a < P(0);
    const P s = math::select(mask, -a, a);
    for (int l = 0; l < 4; ++l) {
        EXPECT_EQ(c[l], (a[l] + b[l]) * b[l] / 2.0 - 1);
        EXPECT_EQ(mask[l], a[l] < 0);
        EXPECT_EQ(s[l], std::abs(a[l]));
        EXPECT_EQ(math::sqrt(b)[l], std::sqrt(b[l]));
        EXPECT_EQ(math::abs(a)[l], std::abs(a[l]));
    }
    EXPECT_TRUE(math::any(mask));
    EXPECT_FALSE(math::all(mask));
}

/// Named n × cols buffers of packs; the same buffers are seen as packs or as one lane's matrix.
template <typename R, int W>
struct Buffers {
    struct Buffer {
        int rows, cols;
        std::vector<Simd<R, W>> packs;
    };
    std::vector<Buffer> list;
    std::mt19937_64 rng{61};

    /// Random entries in [-1, 1], plus shift on the diagonal.
    int add(int rows, int cols, double shift = 0)
    {
        Buffer b{rows, cols, std::vector<Simd<R, W>>(rows * cols)};
        std::uniform_real_distribution<double> dist(-1, 1);
        for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) {
                for (int l = 0; l < W; ++l) b.packs[i * cols + j][l] = R(dist(rng) + (i == j ? shift : 0));
            }
        }
        list.push_back(std::move(b));
        return static_cast<int>(list.size()) - 1;
    }
    View<Simd<R, W>> packs(int k) { return pack_view(list[k].packs.data(), 0, list[k].rows, list[k].cols); }
    View<R> lane(int k, int l) { return lane_view(list[k].packs.data(), l, list[k].rows, list[k].cols); }
    bool same_as(const Buffers& other) const
    {
        for (std::size_t k = 0; k < list.size(); ++k) {
            for (std::size_t e = 0; e < list[k].packs.size(); ++e) {
                for (int l = 0; l < W; ++l) {
                    if (!lanes_agree(list[k].packs[e][l], other.list[k].packs[e][l])) {
                        ADD_FAILURE() << "buffer " << k << " entry " << e << " lane " << l;
                        return false;
                    }
                }
            }
        }
        return true;
    }
};

/// Every pack-capable routine in a row, on the views get(k) (packs or one lane), in ModeT.
/// Returns the failure codes and reductions, one entry per lane.
template <typename ModeT, typename Member, typename Get>
auto routine_sequence(const Member& member, Get&& get, int n)
{
    auto call = [&](auto routine, const auto&... args) {
        using Routine = decltype(routine);
        if constexpr (std::is_same_v<ModeT, Mode::Serial>) {
            return Routine::invoke(args...);
        } else {
            return Routine::invoke(member, args...);
        }
    };
    using NT = Trans::NoTranspose;
    using TT = Trans::Transpose;
    using CT = Trans::ConjTranspose;
    auto A = get(0), B = get(1), C = get(2), LUm = get(3), Rhs = get(4), Hpd = get(5), Q = get(6),
         Q2 = get(7), G = get(8), T = get(9), Inv = get(10), Aux = get(11), D = get(16);
    auto x = get(12).col(0), y = get(13).col(0), tau = get(14).col(0), work = get(15).col(0);
    using V = typename decltype(A)::value_type;
    std::vector<decltype(call(Dot<ModeT>{}, x, y))> sums;
    std::vector<decltype(call(LU<ModeT>{}, LUm))> infos;
    call(Gemm<ModeT, NT, TT>{}, 1.5, A, C, -0.5, D);
    call(Gemv<ModeT, TT>{}, 2.0, A, x, 0.0, y);
    call(Trsm<ModeT, Side::Left, Uplo::Lower, NT, Diag::NonUnit>{}, 0.5, A, B);
    call(Trmm<ModeT, Side::Right, Uplo::Upper, CT, Diag::Unit>{}, 1.0, A, C);
    call(Trsv<ModeT, Uplo::Upper, TT, Diag::NonUnit>{}, 1.0, A, x);
    infos.push_back(call(Trtri<ModeT, Uplo::Lower>{}, T));
    infos.push_back(call(LU<ModeT>{}, LUm));
    call(Getrs<ModeT, NT, Pivot::None>{}, LUm, Rhs);
    call(Copy<ModeT>{}, LUm, Inv);
    infos.push_back(call(InverseLU<ModeT, Pivot::None>{}, Inv, work));
    infos.push_back(call(Gesv<ModeT, Pivot::None>{}, G, Aux));
    call(QR<ModeT>{}, Q, tau);
    call(ApplyQ<ModeT, Side::Left, CT>{}, Q, tau, Q2);
    infos.push_back(call(Potrf<ModeT, Uplo::Lower>{}, Hpd));
    call(Potrs<ModeT, Uplo::Lower>{}, Hpd, y);
    call(Syr<ModeT, Uplo::Upper, TT>{}, 0.25, x, Hpd);
    call(Axpy<ModeT>{}, -1.0, x, y);
    call(Scale<ModeT>{}, 3.0, B);
    call(AddRadial<ModeT>{}, 1e-3, C);
    sums.push_back(call(Dot<ModeT>{}, x, y));
    sums.push_back(V(call(Nrm2<ModeT>{}, y)));
    call(Set<ModeT>{}, 7.0, work);
    (void)n;
    return std::pair{infos, sums};
}

template <typename R, int W, typename ModeT>
void check_packs_match_lanes(int n)
{
    SCOPED_TRACE(std::to_string(W) + " lanes, n = " + std::to_string(n));
    Buffers<R, W> buffers;
    buffers.add(n, n, 2);      // 0 A
    buffers.add(n, 3);         // 1 B
    buffers.add(n, n);         // 2 C
    buffers.add(n, n, n);      // 3 LU
    buffers.add(n, 2);         // 4 Rhs
    buffers.add(n, n, 2 * n);  // 5 Hpd (symmetrized below)
    buffers.add(n + 2, n);     // 6 Q
    buffers.add(n + 2, 2);     // 7 Q2
    buffers.add(n, n, n);      // 8 G
    buffers.add(n, n, 2);      // 9 T
    buffers.add(n, n);         // 10 Inv
    buffers.add(n, 1);         // 11 Aux
    for (int k = 0; k < 4; ++k) buffers.add(n, 1);  // 12 x, 13 y, 14 tau, 15 work
    buffers.add(n, n);                              // 16 D
    auto hpd = buffers.packs(5);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < i; ++j) hpd(j, i) = hpd(i, j);
    }
    // Failures in chosen lanes: lane 1 of LU has a zero pivot at 0, lane W-1 of the Cholesky
    // input is indefinite at n - 1, lane 0 of T has a zero diagonal at n / 2.
    buffers.packs(3)(0, 0)[1] = 0;
    buffers.packs(5)(n - 1, n - 1)[W - 1] = -100;
    buffers.packs(9)(n / 2, n / 2)[0] = 0;
    auto lanes = buffers;
    const loom::launch::HostTeamMember member(0, 1, nullptr, 0);
    const auto [pack_infos, pack_sums] =
        routine_sequence<ModeT>(member, [&](int k) { return buffers.packs(k); }, n);
    for (int l = 0; l < W; ++l) {
        const auto [infos, sums] =
            routine_sequence<Mode::Serial>(member, [&](int k) { return lanes.lane(k, l); }, n);
        for (std::size_t i = 0; i < infos.size(); ++i) EXPECT_EQ(pack_infos[i][l], infos[i]) << "info " << i;
        // y went through the failed Cholesky lane W - 1, where scalar and pack differ.
        for (std::size_t i = 0; i < sums.size() && l != W - 1; ++i) {
            EXPECT_PRED2(lanes_agree<R>, pack_sums[i][l], sums[i]) << "sum " << i << " lane " << l;
        }
        EXPECT_EQ(infos[0], l == 0 ? n / 2 + 1 : 0);
        EXPECT_EQ(infos[1], l == 1 ? 1 : 0);
        EXPECT_EQ(infos[4], l == W - 1 ? n : 0);
    }
    // A scalar stops at a failure while its pack lane goes on: compare only healthy lanes.
    for (auto* b : {&buffers, &lanes}) {
        for (int k : {3, 5, 9, 10, 4, 13, 12}) {
            for (auto& p : b->list[k].packs) {
                p[0] = p[1] = p[W - 1] = 0;
            }
        }
    }
    EXPECT_TRUE(buffers.same_as(lanes));
}

TEST(SimdRoutines, PacksMatchScalarLanes)
{
    for (int n : {1, 2, 5, 8, 16}) {
        check_packs_match_lanes<double, 4, Mode::Serial>(n);
        check_packs_match_lanes<double, 8, Mode::Serial>(n);
        check_packs_match_lanes<float, 8, Mode::Serial>(n);
        check_packs_match_lanes<double, 4, Mode::Team>(n);
        check_packs_match_lanes<double, 4, Mode::TeamVector>(n);
    }
}

template <int M, int N, int K, typename T>
void check_gemm_fixed()
{
    SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
    std::mt19937_64 rng(62);
    std::uniform_real_distribution<double> dist(-1, 1);
    auto fill = [&](std::vector<T>& v) {
        for (auto& x : v) {
            if constexpr (is_simd_v<T>) {
                for (int l = 0; l < T::width; ++l) x[l] = dist(rng);
            } else if constexpr (loom::is_complex_v<T>) {
                x = T(dist(rng), dist(rng));
            } else {
                x = T(dist(rng));
            }
        }
    };
    std::vector<T> a(M * K), bt(N * K), c(M * N);
    fill(a);
    fill(bt);
    fill(c);
    auto c2 = c;
    const View<const T> A(a.data(), M, K);
    const View<const T> Bt(bt.data(), N, K);  // used transposed
    GemmFixed<M, N, K, Trans::NoTranspose, Trans::ConjTranspose>::invoke(2.0, A, Bt, -1.0, View<T>(c.data(), M, N));
    Gemm<Mode::Serial, Trans::NoTranspose, Trans::ConjTranspose>::invoke(2.0, A, Bt, -1.0, View<T>(c2.data(), M, N));
    for (int e = 0; e < M * N; ++e) {
        if constexpr (is_simd_v<T>) {
            for (int l = 0; l < T::width; ++l) EXPECT_PRED2(lanes_agree<double>, c[e][l], c2[e][l]);
        } else {
            EXPECT_LE(std::abs(c[e] - c2[e]), lane_tolerance * 10);
        }
    }
}

TEST(GemmFixed, MatchesSerialGemm)
{
    check_gemm_fixed<1, 1, 1, double>();
    check_gemm_fixed<3, 3, 3, double>();
    check_gemm_fixed<5, 4, 7, std::complex<double>>();
    check_gemm_fixed<8, 8, 8, Simd<double, 4>>();
    check_gemm_fixed<16, 16, 16, Simd<double, 8>>();
    check_gemm_fixed<2, 3, 0, double>();
}

// The host's vectorized GEMM (Launch::simd and automatic on OpenMP): every order 1..33, square
// and rectangular, every transpose, beta = 0 on C full of NaN, on padded batches whose matrix
// count is no multiple of the kernel's chunk, against the reference backend. The padding must
// come back untouched. (Where the CPU lacks AVX2+FMA, these check the fallback launches.)
/// Random matrices, padded between rows and between matrices; NaN in the matrices (not in the
/// padding) when `nan`.
template <typename V>
loom::matrix::BatchDense<V> padded_batch(size_type count, loom::dim2 size, std::mt19937_64& rng,
                                         bool nan = false)
{
    loom::matrix::BatchDense<V> batch(loom::test::reference(), count, size, size.cols + 1,
                                      size.rows * (size.cols + 1) + 3);
    std::uniform_real_distribution<V> dist(-1, 1);
    auto& values = batch.values();
    for (size_type i = 0; i < values.size(); ++i) values[i] = dist(rng);
    for (size_type b = 0; nan && b < count; ++b) {
        for (size_type i = 0; i < size.rows; ++i) {
            for (size_type j = 0; j < size.cols; ++j) {
                batch.at(b, i, j) = std::numeric_limits<V>::quiet_NaN();
            }
        }
    }
    return batch;
}

template <typename V>
double max_difference(const std::vector<V>& actual, const std::vector<V>& expected)
{
    if (actual.size() != expected.size()) return std::numeric_limits<double>::infinity();
    double diff = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double d = std::abs(static_cast<double>(actual[i]) - expected[i]);
        if (std::isnan(d)) return std::numeric_limits<double>::infinity();
        diff = std::max(diff, d);
    }
    return diff;
}

template <typename V>
void check_host_vector_gemm()
{
    using loom::blas::Op;
    using loom::matrix::BatchDense;
    std::shared_ptr<const loom::Executor> omp;
    for (const auto& exec : loom::test::backends()) {
        if (exec->kind() == loom::ExecKind::omp) omp = exec;
    }
    if (!omp) GTEST_SKIP() << "no OpenMP backend";
    const size_type count = 37;
    const double eps = std::numeric_limits<V>::epsilon();
    std::mt19937_64 rng(7);
    struct Scaling {
        V alpha, beta;
    };
    for (int n = 1; n <= 33; ++n) {
        // Square, then three different extents.
        for (const loom::dim2 mk : {loom::dim2{n, n}, loom::dim2{(n * 7) % 33 + 1, n % 5}}) {
            const size_type m = mk.rows, k = mk.cols, cols = n;
            for (const Op op_a : {Op::none, Op::transpose}) {
                for (const Op op_b : {Op::none, Op::transpose}) {
                    const auto A = padded_batch<V>(
                        count, op_a == Op::none ? loom::dim2{m, k} : loom::dim2{k, m}, rng);
                    const auto B = padded_batch<V>(
                        count, op_b == Op::none ? loom::dim2{k, cols} : loom::dim2{cols, k}, rng);
                    for (const auto s : {Scaling{1, 1}, Scaling{-0.5, 0}, Scaling{2, -1.5}}) {
                        auto expected = padded_batch<V>(count, {m, cols}, rng, s.beta == V(0));
                        const auto C0 = expected;
                        loom::batched::gemm(op_a, op_b, s.alpha, A, B, s.beta, expected);
                        for (const auto launch : {Launch::simd, Launch::automatic}) {
                            BatchDense<V> C(omp, C0);
                            loom::batched::gemm(op_a, op_b, s.alpha, BatchDense<V>(omp, A),
                                                BatchDense<V>(omp, B), s.beta, C, launch);
                            // |alpha| sum_k |a b| + |beta c| <= 2 k + 2: k + 2 roundings each.
                            EXPECT_LE(
                                max_difference(C.values().to_host(), expected.values().to_host()),
                                4 * (k + 2) * (k + 2) * eps)
                                << to_string(launch) << " m=" << m << " n=" << cols << " k=" << k
                                << " " << loom::blas::to_string(op_a) << " "
                                << loom::blas::to_string(op_b) << " beta=" << s.beta;
                        }
                    }
                }
            }
        }
    }
}

TEST(HostVectorGemm, EveryOrderTransposeAndScalingMatchReference)
{
#if LOOM_HAS_FLOAT
    check_host_vector_gemm<float>();
#endif
#if LOOM_HAS_DOUBLE
    check_host_vector_gemm<double>();
#endif
}

}  // namespace
