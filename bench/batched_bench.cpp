#include "bench/batched_bench.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/front.hpp"
#include "loom/batched/vendor_peer.hpp"
#include "loom/config.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_batched";

using batched::Launch;
using matrix::BatchDense;

/// Distinct matrices generated on the host; the batch repeats them (the cost of every
/// routine here depends on the order, not on the values).
constexpr size_type pool_size = 2048;

template <typename V>
V random_entry(std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    if constexpr (is_complex_v<V>) {
        using R = remove_complex_t<V>;
        const auto re = static_cast<R>(dist(rng));
        return V(re, static_cast<R>(dist(rng)));
    } else {
        return static_cast<V>(dist(rng));
    }
}

/// How the inputs of a routine look: random, triangular with a dominant diagonal (trsm,
/// trmm, trtri), or Hermitian positive definite (potrf).
enum class Shape { general, triangular, spd };

Shape shape_of(BatchedRoutine routine)
{
    switch (routine) {
    case BatchedRoutine::trsm:
    case BatchedRoutine::trmm:
    case BatchedRoutine::trtri: return Shape::triangular;
    case BatchedRoutine::potrf: return Shape::spd;
    default: return Shape::general;
    }
}

template <typename V>
BatchDense<V> host_pool(size_type count, size_type n, Shape shape, std::uint64_t seed)
{
    using R = remove_complex_t<V>;
    BatchDense<V> pool(detail::host_executor(), count, {n, n});
    std::mt19937_64 rng(seed);
    for (size_type b = 0; b < count; ++b) {
        for (size_type i = 0; i < n; ++i) {
            for (size_type j = 0; j < n; ++j) {
                V v = random_entry<V>(rng);
                if (shape == Shape::triangular && j > i) v = V{};
                if (shape == Shape::spd && j < i) v = loom::conj(pool.at(b, j, i));
                if (i == j && shape != Shape::general) v = V(static_cast<R>(n + 1));
                pool.at(b, i, j) = v;
            }
        }
    }
    return pool;
}

/// A batch of `count` matrices on exec that repeats the host pool.
template <typename V>
BatchDense<V> replicate(const std::shared_ptr<const Executor>& exec, const BatchDense<V>& pool,
                        size_type count)
{
    const BatchDense<V> source(exec, pool);
    BatchDense<V> batch(exec, count, pool.size());
    for (size_type first = 0; first < count; first += pool.batch_count()) {
        const size_type here = std::min(pool.batch_count(), count - first);
        exec->copy_from(*exec, sizeof(V) * here * pool.size().count(), source.data(),
                        batch.data() + first * pool.size().count());
    }
    return batch;
}

/// The operands of one benchmarked call on one executor.
template <typename V>
struct Operands {
    BatchDense<V> A;
    BatchDense<V> B;       ///< gemm's B, trsm/trmm's right-hand sides
    BatchDense<V> C;       ///< gemm's C
    BatchDense<V> tau;     ///< qr
    Array<int32> pivots;
    Array<int32> info;
};

/// Runs the routine (the benchmarked variant, or the peer).
template <typename V>
void call(BatchedRoutine routine, Operands<V>& o, Launch launch, bool raw_cublas_peer)
{
    using blas::Diag;
    using blas::Op;
    using blas::Side;
    using blas::Uplo;
    switch (routine) {
    case BatchedRoutine::gemm:
        return batched::gemm(Op::none, Op::none, V{1}, o.A, o.B, V{1}, o.C, launch);
    case BatchedRoutine::getrf:
        if (raw_cublas_peer) {
            if (o.pivots.size() != o.A.batch_count() * o.A.rows()) {
                o.pivots = Array<int32>(o.A.executor(), o.A.batch_count() * o.A.rows());
                o.info = Array<int32>(o.A.executor(), o.A.batch_count());
            }
            return batched::vendor_peer_getrf(o.A, o.pivots, o.info);
        }
        return batched::getrf(o.A, o.pivots, o.info, launch);
    case BatchedRoutine::trsm:
        return batched::trsm(Side::left, Uplo::lower, Op::none, Diag::non_unit, V{1}, o.A, o.B,
                             launch);
    case BatchedRoutine::trmm:
        return batched::trmm(Side::left, Uplo::lower, Op::none, Diag::non_unit, V{1}, o.A, o.B,
                             launch);
    case BatchedRoutine::trtri: return batched::trtri(Uplo::lower, Diag::non_unit, o.A, o.info, launch);
    case BatchedRoutine::potrf: return batched::potrf(Uplo::lower, o.A, o.info, launch);
    case BatchedRoutine::qr:
        if (raw_cublas_peer) {
            const auto k = std::min(o.A.rows(), o.A.cols());
            if (o.tau.batch_count() != o.A.batch_count() || o.tau.rows() != k) {
                o.tau = BatchDense<V>(o.A.executor(), o.A.batch_count(), {k, 1});
            }
            return batched::vendor_peer_qr(o.A, o.tau);
        }
        return batched::qr(o.A, o.tau, launch);
    }
}

/// The matrix the routine overwrites (restored before every timed call), if any.
template <typename V>
BatchDense<V>* overwritten(BatchedRoutine routine, Operands<V>& o)
{
    switch (routine) {
    case BatchedRoutine::gemm: return nullptr;  // C += A B stays finite over the repetitions
    case BatchedRoutine::trsm:
    case BatchedRoutine::trmm: return &o.B;
    default: return &o.A;
    }
}

template <typename V>
Operands<V> make_operands(BatchedRoutine routine, const std::shared_ptr<const Executor>& exec,
                          size_type count, size_type n, std::uint64_t seed)
{
    const auto pool_count = std::min(pool_size, count);
    Operands<V> o;
    o.A = replicate(exec, host_pool<V>(pool_count, n, shape_of(routine), seed), count);
    if (routine == BatchedRoutine::gemm || routine == BatchedRoutine::trsm ||
        routine == BatchedRoutine::trmm) {
        o.B = replicate(exec, host_pool<V>(pool_count, n, Shape::general, seed + 1), count);
    }
    if (routine == BatchedRoutine::gemm) {
        o.C = replicate(exec, host_pool<V>(pool_count, n, Shape::general, seed + 2), count);
    }
    return o;
}

/// The first `count` matrices of every operand, as views.
template <typename V>
Operands<V> head(Operands<V>& o, size_type count)
{
    Operands<V> h;
    const auto part = [&](BatchDense<V>& M) {
        return M.batch_count() == 0 ? BatchDense<V>() : M.items(0, count);
    };
    h.A = part(o.A);
    h.B = part(o.B);
    h.C = part(o.C);
    return h;
}

template <typename V>
Operands<V> copy_to(const std::shared_ptr<const Executor>& exec, const Operands<V>& o)
{
    const auto copy = [&](const BatchDense<V>& M) {
        return M.executor() ? BatchDense<V>(exec, M) : BatchDense<V>();
    };
    return {copy(o.A), copy(o.B), copy(o.C), {}, {}, {}};
}

/// P A from packed LU factors and 0-based pivots (host), for checking vendor pivots.
template <typename V>
std::vector<V> reconstruct(const std::vector<V>& lu, const int32* pivots, size_type n)
{
    std::vector<V> product(static_cast<std::size_t>(n * n));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            V sum{};
            for (size_type k = 0; k <= std::min(i, j); ++k) {
                sum += (k == i ? V{1} : lu[i * n + k]) * lu[k * n + j];
            }
            product[i * n + j] = sum;
        }
    }
    for (size_type k = n - 1; k >= 0; --k) {
        for (size_type j = 0; j < n; ++j) std::swap(product[k * n + j], product[pivots[k] * n + j]);
    }
    return product;
}

/// max |a - b| / max(1, max |b|); infinite on NaN or a size mismatch.
template <typename V>
double relative_error(const std::vector<V>& a, const std::vector<V>& b)
{
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double diff = 0, scale = 1;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::abs(a[i] - b[i]);
        if (std::isnan(d)) return std::numeric_limits<double>::infinity();
        diff = std::max(diff, d);
        scale = std::max(scale, static_cast<double>(std::abs(b[i])));
    }
    return diff / scale;
}

/// The result a check compares: the overwritten or written operand.
template <typename V>
std::vector<V> result_of(BatchedRoutine routine, Operands<V>& o)
{
    if (routine == BatchedRoutine::gemm) return o.C.to_host();
    if (routine == BatchedRoutine::trsm || routine == BatchedRoutine::trmm) return o.B.to_host();
    return o.A.to_host();
}

/// Runs the variant on the first matrices and compares with the reference backend.
template <typename V>
double check(BatchedRoutine routine, Operands<V>& on_exec, size_type count, size_type n,
             Launch launch)
{
    auto sample = copy_to(on_exec.A.executor(), head(on_exec, count));
    auto expected = copy_to(ReferenceExecutor::create(), head(on_exec, count));
    const auto input = expected.A.to_host();
    call(routine, sample, launch, false);
    call(routine, expected, Launch::automatic, false);
    auto got = result_of(routine, sample);
    if (routine == BatchedRoutine::potrf) {
        // The factor only: what a library leaves in the other triangle is its own business.
        auto want = result_of(routine, expected);
        const auto nn = static_cast<std::size_t>(n * n);
        for (std::size_t e = 0; e < got.size() && got.size() == want.size(); ++e) {
            if (static_cast<size_type>(e % nn % n) > static_cast<size_type>(e % nn / n)) {
                got[e] = want[e] = V{};
            }
        }
        return relative_error(got, want);
    }
    if (routine != BatchedRoutine::getrf) return relative_error(got, result_of(routine, expected));
    // LU: pivots may differ between libraries on near-ties; P A = L U may not.
    const auto pivots = sample.pivots.to_host();
    double error = 0;
    const auto nn = static_cast<std::size_t>(n * n);
    for (size_type b = 0; b < count; ++b) {
        const std::vector<V> lu(got.begin() + b * nn, got.begin() + (b + 1) * nn);
        const std::vector<V> a(input.begin() + b * nn, input.begin() + (b + 1) * nn);
        error = std::max(error, relative_error(reconstruct(lu, pivots.data() + b * n, n), a));
    }
    return error;
}

struct Counts {
    double bytes;
    double flops;
};

template <typename V>
Counts counts(BatchedRoutine routine, double n)
{
    const double v = sizeof(V);
    const double complex_factor = is_complex_v<V> ? 4 : 1;
    const double triangle = n * (n + 1) / 2;
    switch (routine) {
    case BatchedRoutine::gemm: return {4 * n * n * v, 2 * n * n * n * complex_factor};
    case BatchedRoutine::getrf: return {2 * n * n * v + 4 * n, 2 * n * n * n / 3 * complex_factor};
    case BatchedRoutine::trsm:
    case BatchedRoutine::trmm: return {(triangle + 2 * n * n) * v, n * n * n * complex_factor};
    case BatchedRoutine::trtri:
    case BatchedRoutine::potrf: return {2 * triangle * v, n * n * n / 3 * complex_factor};
    default: return {(2 * n * n + n) * v, 4 * n * n * n / 3 * complex_factor};
    }
}

bool has_peer(BatchedRoutine routine, BatchedPeer peer)
{
    if (peer == BatchedPeer::cublas) {
        return routine == BatchedRoutine::gemm || routine == BatchedRoutine::getrf ||
               routine == BatchedRoutine::trsm || routine == BatchedRoutine::potrf ||
               routine == BatchedRoutine::qr;
    }
    if (peer == BatchedPeer::openblas) return routine != BatchedRoutine::qr;
    return false;
}

/// What the peer runs, for the report.
std::string peer_routine(BatchedRoutine routine, BatchedPeer peer)
{
    if (peer == BatchedPeer::openblas) return "a loop of OpenBLAS/LAPACK calls";
    switch (routine) {
    case BatchedRoutine::gemm: return "cuBLAS gemmStridedBatched";
    case BatchedRoutine::getrf: return "cuBLAS getrfBatched alone";
    case BatchedRoutine::trsm: return "cuBLAS trsmBatched";
    case BatchedRoutine::potrf: return "cuSOLVER potrfBatched";
    case BatchedRoutine::qr: return "cuBLAS geqrfBatched alone";
    default: return "none";
    }
}

void check_options(const BatchedBenchOptions& options)
{
    if (!options.exec) throw BadInput(where, "no executor given");
    if (options.samples < 1) throw BadInput(where, "need at least one repetition");
    if (options.batch < 1) throw BadInput(where, "the batch must hold at least one matrix");
    if (options.orders.empty()) throw BadInput(where, "no matrix order given");
    for (const auto n : options.orders) {
        if (n < 1 || n > 4096) {
            throw BadInput(where, fmt::format("matrix order {} is outside 1..4096", n));
        }
    }
    const bool cuda = options.exec->kind() == ExecKind::cuda;
    if (options.peer == BatchedPeer::cublas && !cuda) {
        throw BadInput(where, "peer cublas runs on CUDA; use --exec cuda (or --peer openblas)");
    }
    if (options.peer == BatchedPeer::openblas) {
        if (cuda) throw BadInput(where, "peer openblas runs on the host; use --exec omp");
        if (!LOOM_HAS_BLAS) {
            throw NotCompiled(where, "OpenBLAS (reconfigure with LOOM_WITH_BLAS=ON)");
        }
    }
}

int host_threads(const Executor& exec)
{
    return exec.kind() == ExecKind::omp ? static_cast<const OmpExecutor&>(exec).num_threads() : 1;
}

struct Row {
    size_type n = 0;
    std::string launch;
    double time = 0;
    double error = 0;
    std::optional<double> peer_time;
    double peer_error = 0;
};

/// Seconds per call of `run`, less the restore copy it starts with (timed on its own).
double time_call(const Executor& exec, const std::function<void()>& restore,
                 const std::function<void()>& run, int samples)
{
    const auto total = time_kernel(exec, [&] {
                           if (restore) restore();
                           run();
                       },
                       {.samples = samples})
                           .median;
    if (!restore) return total;
    const auto copy = time_kernel(exec, restore, {.samples = samples}).median;
    return std::max(total - copy, 1e-12);
}

}  // namespace

BatchedRoutine parse_batched_routine(const std::string& text)
{
    return names_of(BatchedRoutine{}).parse(text, "loom::bench::parse_batched_routine");
}

BatchedPeer parse_batched_peer(const std::string& text)
{
    return names_of(BatchedPeer{}).parse(text, "loom::bench::parse_batched_peer");
}

std::vector<size_type> parse_orders(const std::string& text)
{
    const auto fail = [&] {
        throw BadInput("loom::bench::parse_orders",
                       "expected orders as 3..32, 3,5,8 or 16, got '" + text + "'");
    };
    const auto number = [&](const std::string& s) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) fail();
        return static_cast<size_type>(std::stoll(s));
    };
    std::vector<size_type> orders;
    if (const auto dots = text.find(".."); dots != std::string::npos) {
        const auto first = number(text.substr(0, dots));
        const auto last = number(text.substr(dots + 2));
        if (first > last) fail();
        for (auto n = first; n <= last; ++n) orders.push_back(n);
        return orders;
    }
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const auto comma = std::min(text.find(',', begin), text.size());
        orders.push_back(number(text.substr(begin, comma - begin)));
        begin = comma + 1;
    }
    return orders;
}

template <typename V>
nlohmann::ordered_json bench_batched(const BatchedBenchOptions& options)
{
    check_options(options);
    const auto& exec = options.exec;
    const auto routine = options.routine;
    const auto default_copy_bytes = exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);
    const bool peer = has_peer(routine, options.peer);
    const Launch peer_launch = Launch::vendor;

    std::vector<Row> rows;
    for (const auto n : options.orders) {
        auto o = make_operands<V>(routine, exec, options.batch, n, options.seed);
        const size_type checked = std::min(options.check_count, options.batch);
        // Rounding of a factorization or solve grows with n; 100 n eps leaves room for the
        // different summation orders of two correct kernels on well-conditioned inputs.
        const double tolerance =
            100.0 * static_cast<double>(n) * std::numeric_limits<remove_complex_t<V>>::epsilon();
        Row row;
        row.n = n;
        row.launch = batched::to_string(
            options.launch == Launch::automatic
                ? batched::automatic_launch<V>(to_string(routine), *exec, n)
                : options.launch);
        row.error = check(routine, o, checked, n, options.launch);
        if (!(row.error <= tolerance)) {
            throw NumericalError(where, fmt::format("{} n={} ({}) differs from the reference: "
                                                    "relative error {:.3g} > {:.3g}",
                                                    to_string(routine), n, row.launch, row.error,
                                                    tolerance));
        }
        auto* target = overwritten(routine, o);
        std::optional<BatchDense<V>> pristine;
        if (target != nullptr) pristine.emplace(exec, *target);
        const std::function<void()> restore =
            target == nullptr ? std::function<void()>()
                              : [&] {
                                    exec->copy_from(*exec, sizeof(V) * target->values().size(),
                                                    pristine->data(), target->data());
                                };
        row.time = time_call(*exec, restore, [&] { call(routine, o, options.launch, false); },
                             options.samples);
        if (peer) {
            row.peer_error = check(routine, o, checked, n, peer_launch);
            if (!(row.peer_error <= tolerance)) {
                throw NumericalError(where, fmt::format("peer {} n={} differs from the "
                                                        "reference: relative error {:.3g}",
                                                        to_string(options.peer), n,
                                                        row.peer_error));
            }
            // cuBLAS getrfBatched is timed alone, without the transposes Loom's vendor path
            // puts around it to get row-major semantics.
            // So is geqrfBatched, without the column-major copies around it.
            const bool raw = options.peer == BatchedPeer::cublas &&
                             (routine == BatchedRoutine::getrf || routine == BatchedRoutine::qr);
            row.peer_time = time_call(*exec, restore, [&] { call(routine, o, peer_launch, raw); },
                                      options.samples);
        }
        rows.push_back(row);
    }

    fmt::print("routine   batched {} ({} values), {} matrices per call, median of {} samples\n",
               to_string(routine), type_name<V>(), options.batch, options.samples);
    fmt::print("run       {}{}\n", exec->name(),
               exec->kind() == ExecKind::omp ? fmt::format(" ({} threads)", host_threads(*exec))
                                             : std::string());
    fmt::print("copy      {:.1f} GB/s ({} MiB, read + write counted)\n",
               copy.bytes_per_second / 1e9, copy.bytes >> 20);
    fmt::print("launch    {}{}\n", batched::to_string(options.launch),
               options.launch == Launch::automatic ? " (the launch column: what ran for each order)" : "");
    fmt::print("peer      {}\n\n",
               peer ? fmt::format("{} ({}, Launch::vendor)", to_string(options.peer),
                                  peer_routine(routine, options.peer))
                    : std::string("none"));

    const std::string peer_column =
        peer ? fmt::format("vs {}", to_string(options.peer)) : std::string("vs peer");
    Table table({"n", "launch", "time [us]", "GFLOP/s", "GB/s", "of copy BW", "peer GFLOP/s",
                 peer_column, "rel. error"});
    auto json_rows = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
        const auto c = counts<V>(routine, static_cast<double>(r.n));
        const double batch = static_cast<double>(options.batch);
        const double gflops = c.flops * batch / r.time / 1e9;
        const double gbs = c.bytes * batch / r.time / 1e9;
        const double fraction = c.bytes * batch / r.time / copy.bytes_per_second;
        const auto peer_gflops =
            r.peer_time ? std::optional<double>(c.flops * batch / *r.peer_time / 1e9) : std::nullopt;
        const auto speedup = r.peer_time ? std::optional<double>(*r.peer_time / r.time) : std::nullopt;
        table.add_row({std::to_string(r.n), r.launch, fmt::format("{:.1f}", r.time * 1e6),
                       fmt::format("{:.1f}", gflops), fmt::format("{:.1f}", gbs),
                       fmt::format("{:.1f}%", 100 * fraction),
                       peer_gflops ? fmt::format("{:.1f}", *peer_gflops) : "-",
                       speedup ? fmt::format("{:.2f}x", *speedup) : "-",
                       fmt::format("{:.1e}", r.error)});
        json_rows.push_back(
            {{"n", r.n},
             {"launch", r.launch},
             {"time_s", r.time},
             {"gflop_per_s", gflops},
             {"gb_per_s", gbs},
             {"fraction_of_copy_bandwidth", fraction},
             {"bytes_per_matrix", c.bytes},
             {"flops_per_matrix", c.flops},
             {"relative_error", r.error},
             {"peer_time_s", r.peer_time ? nlohmann::ordered_json(*r.peer_time) : nlohmann::ordered_json()},
             {"peer_gflop_per_s", peer_gflops ? nlohmann::ordered_json(*peer_gflops) : nlohmann::ordered_json()},
             {"speedup_vs_peer", speedup ? nlohmann::ordered_json(*speedup) : nlohmann::ordered_json()}});
    }
    table.print();
    if (routine != BatchedRoutine::gemm) {
        fmt::print("\n(in-place routines: the restore copy before each call is timed alone and "
                   "subtracted)\n");
    }

    return {{"benchmark", "batched"},
            {"routine", to_string(routine)},
            {"executor", exec->name()},
            {"threads", host_threads(*exec)},
            {"value_type", type_name<V>()},
            {"batch", options.batch},
            {"launch", batched::to_string(options.launch)},
            {"samples", options.samples},
            {"checked_matrices", std::min(options.check_count, options.batch)},
            {"copy_bandwidth",
             {{"gb_per_s", copy.bytes_per_second / 1e9}, {"bytes", copy.bytes}, {"threads", copy.threads}}},
            {"peer", peer ? to_string(options.peer) : "none"},
            {"peer_routine", peer ? peer_routine(routine, options.peer) : "none"},
            {"results", json_rows}};
}

#define LOOM_INSTANTIATE_BENCH_BATCHED(V) \
    template nlohmann::ordered_json bench_batched<V>(const BatchedBenchOptions&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BENCH_BATCHED)

}  // namespace loom::bench
