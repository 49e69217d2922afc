#include "bench/dense_bench.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <optional>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/random.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/dense_blas.hpp"
#include "loom/blas/vector.hpp"
#include "loom/lapack/dense_lapack.hpp"

namespace loom::bench {

using blas::Backend;
using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;
using matrix::Dense;

namespace {

/// Routines that overwrite their input: every timed call first restores it.
bool in_place(DenseRoutine r)
{
    return r == DenseRoutine::trsm || r == DenseRoutine::trmm || r == DenseRoutine::getrf ||
           r == DenseRoutine::trtri;
}

/// Real floating-point operations of one call (a complex multiply-add counts 8).
template <typename V>
double flops(DenseRoutine r, DenseShape s)
{
    const double m = s.m, n = s.n, k = s.k;
    const double multiply_adds = [&] {
        switch (r) {
        case DenseRoutine::gemv: return m * n;
        case DenseRoutine::trsm:
        case DenseRoutine::trmm: return m * m * n / 2;
        case DenseRoutine::getrf: return m * m * m / 3;
        case DenseRoutine::trtri: return m * m * m / 6;
        default: return m * n * k;
        }
    }();
    return multiply_adds * (is_complex_v<V> ? 8 : 2);
}

template <typename V>
Dense<V> random_matrix(dim2 size, std::uint64_t seed)
{
    return Dense<V>::from_host(ReferenceExecutor::create(), size,
                               random_values<V>(size.count(), seed));
}

/// Lower triangular, diagonal near 2, off-diagonal entries below 1/n: well conditioned, so
/// solves and inverses stay accurate and repeated products stay bounded.
template <typename V>
Dense<V> random_triangle(size_type n, std::uint64_t seed)
{
    using R = remove_complex_t<V>;
    auto A = random_matrix<V>({n, n}, seed);
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) A.at(i, j) *= V(R(1) / static_cast<R>(n));
        A.at(i, i) += V(R(2));
    }
    return A;
}

/// The operands of one call on one executor.
template <typename V>
struct Problem {
    DenseRoutine routine;
    Dense<V> A, B;
    Dense<V> out;      ///< the operand the routine writes
    Dense<V> initial;  ///< out before the call (in-place routines start from it every time)
    Array<int32> pivots;

    Problem(DenseRoutine r, DenseShape s, const std::shared_ptr<const Executor>& exec) : routine(r)
    {
        const auto on_exec = [&](const Dense<V>& host) { return Dense<V>(exec, host); };
        switch (r) {
        case DenseRoutine::gemm:
            A = on_exec(random_matrix<V>({s.m, s.k}, 1));
            B = on_exec(random_matrix<V>({s.k, s.n}, 2));
            initial = on_exec(random_matrix<V>({s.m, s.n}, 3));
            break;
        case DenseRoutine::gemv:
            A = on_exec(random_matrix<V>({s.m, s.n}, 1));
            B = on_exec(random_matrix<V>({s.n, 1}, 2));
            initial = on_exec(random_matrix<V>({s.m, 1}, 3));
            break;
        case DenseRoutine::gemm_dot:
            A = on_exec(random_matrix<V>({s.k, s.m}, 1));
            B = on_exec(random_matrix<V>({s.k, s.n}, 2));
            initial = on_exec(random_matrix<V>({s.m, s.n}, 3));
            break;
        case DenseRoutine::trsm:
        case DenseRoutine::trmm:
            A = on_exec(random_triangle<V>(s.m, 1));
            initial = on_exec(random_matrix<V>({s.m, s.n}, 2));
            break;
        case DenseRoutine::getrf: initial = on_exec(random_matrix<V>({s.m, s.m}, 1)); break;
        case DenseRoutine::trtri: initial = on_exec(random_triangle<V>(s.m, 1)); break;
        }
        out = Dense<V>(exec, initial);
    }

    void reset() { blas::copy(initial, out); }

    void call(Backend backend)
    {
        switch (routine) {
        case DenseRoutine::gemm:
            return blas::gemm(Op::none, Op::none, V{1}, A, B, V{}, out, backend);
        case DenseRoutine::gemv: return blas::gemv(Op::none, V{1}, A, B, V{}, out, backend);
        case DenseRoutine::gemm_dot:
            return blas::gemm_dot(Op::transpose, V{1}, A, B, V{}, out, backend);
        case DenseRoutine::trsm:
            return blas::trsm(Side::left, Uplo::lower, Op::none, Diag::non_unit, V{1}, A, out,
                              backend);
        case DenseRoutine::trmm:
            return blas::trmm(Side::left, Uplo::lower, Op::none, Diag::non_unit, V{1}, A, out,
                              backend);
        case DenseRoutine::getrf: return lapack::getrf(out, pivots, backend);
        case DenseRoutine::trtri: return lapack::trtri(Uplo::lower, Diag::non_unit, out, backend);
        }
    }
};

template <typename V>
double relative_error(const std::vector<V>& actual, const std::vector<V>& expected)
{
    double difference = 0, norm = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        difference += std::norm(std::complex<double>(actual[i] - expected[i]));
        norm += std::norm(std::complex<double>(expected[i]));
    }
    return std::sqrt(difference / std::max(norm, 1e-300));
}

/// Seconds per call of `backend`, or nothing when this build has no such library.
template <typename V>
std::optional<double> time_backend(Problem<V>& problem, Backend backend,
                                   const std::vector<V>& expected, DenseShape shape,
                                   const DenseBenchOptions& options)
{
    const auto& exec = *options.exec;
    try {
        problem.reset();
        problem.call(backend);
    } catch (const NotCompiled&) {
        return std::nullopt;
    }
    const double error = relative_error(problem.out.to_host(), expected);
    const double allowed = 100 * std::numeric_limits<remove_complex_t<V>>::epsilon() *
                           static_cast<double>(std::max({shape.m, shape.n, shape.k, size_type{1}}));
    if (!(error <= allowed)) {
        throw NumericalError("loom bench gemm",
                             fmt::format("{} {} differs from the reference by {:.3g} (allowed {:.3g})",
                                         to_string(problem.routine), blas::to_string(backend),
                                         error, allowed));
    }
    const TimingOptions timing{.samples = options.samples};
    const bool restore = in_place(problem.routine);
    const double total = time_kernel(exec, [&] {
                             if (restore) problem.reset();
                             problem.call(backend);
                         }, timing).median;
    const double reset = restore ? time_kernel(exec, [&] { problem.reset(); }, timing).median : 0;
    return std::max(total - reset, 1e-12);
}

/// What every path must reproduce: the reference backend's result, or for calls too large
/// for its plain loops (beyond reference_flops) the vendor library's on the benchmarked
/// executor, when there is one.
template <typename V>
std::vector<V> expected_result(Problem<V>& problem, DenseShape shape)
{
    constexpr double reference_flops = 2e9;
    if (flops<V>(problem.routine, shape) > reference_flops) {
        try {
            problem.reset();
            problem.call(Backend::vendor);
            return problem.out.to_host();
        } catch (const NotCompiled&) {
        }
    }
    Problem<V> reference(problem.routine, shape, ReferenceExecutor::create());
    reference.call(Backend::native);
    return reference.out.to_host();
}

std::string cell(std::optional<double> value, const char* format)
{
    return value ? fmt::format(fmt::runtime(format), *value) : "-";
}

nlohmann::ordered_json json_of(std::optional<double> value)
{
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
}

}  // namespace

DenseRoutine parse_dense_routine(const std::string& text)
{
    return names_of(DenseRoutine{}).parse(text, "loom bench gemm");
}

DenseShape parse_dense_shape(const std::string& text)
{
    long long m = 0, n = 0, k = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) == 3 && m >= 0 &&
        n >= 0 && k >= 0) {
        return {m, n, k};
    }
    if (std::sscanf(text.c_str(), "%lld%c", &m, &tail) == 1 && m >= 0) return {m, m, m};
    throw BadInput("loom bench gemm", "bad shape '" + text + "' (expected N or MxNxK)");
}

template <typename V>
nlohmann::ordered_json bench_dense(const DenseBenchOptions& options)
{
    const auto routine = options.routine;
    const bool with_peak = options.peak_gflops > 0;
    fmt::print("run       {} on {}, {}, median of {} samples{}\n", to_string(routine),
               options.exec->name(), is_complex_v<V> ? "complex" : "real", options.samples,
               in_place(routine) ? " (restoring the overwritten operand is timed apart and "
                                   "subtracted)"
                                 : "");
    if (with_peak) fmt::print("peak      {:.1f} GFLOP/s (given)\n", options.peak_gflops);
    fmt::print("\n");
    std::vector<std::string> header{"m x n x k", "native ms", "GFLOP/s"};
    if (with_peak) header.push_back("of peak");
    for (const char* h : {"vendor ms", "GFLOP/s"}) header.push_back(h);
    if (with_peak) header.push_back("of peak");
    for (const char* h : {"auto ms", "vendor/native"}) header.push_back(h);
    Table table(header);
    auto results = nlohmann::ordered_json::array();
    for (const auto& shape : options.shapes) {
        Problem<V> problem(routine, shape, options.exec);
        const auto expected = expected_result(problem, shape);
        const auto native = time_backend(problem, Backend::native, expected, shape, options);
        const auto vendor = time_backend(problem, Backend::vendor, expected, shape, options);
        const auto automatic = time_backend(problem, Backend::automatic, expected, shape, options);
        const double work = flops<V>(routine, shape);
        const auto gflops = [&](std::optional<double> t) -> std::optional<double> {
            if (!t) return std::nullopt;
            return work / *t * 1e-9;
        };
        const auto of_peak = [&](std::optional<double> t) -> std::optional<double> {
            if (!t) return std::nullopt;
            return *gflops(t) / options.peak_gflops * 100;
        };
        const auto ratio =
            vendor ? std::optional<double>(*native / *vendor) : std::optional<double>();
        std::vector<std::string> row{fmt::format("{}x{}x{}", shape.m, shape.n, shape.k),
                                     cell(*native * 1e3, "{:.4f}"), cell(gflops(native), "{:.2f}")};
        if (with_peak) row.push_back(cell(of_peak(native), "{:.1f}%"));
        row.push_back(vendor ? cell(*vendor * 1e3, "{:.4f}") : "-");
        row.push_back(cell(gflops(vendor), "{:.2f}"));
        if (with_peak) row.push_back(cell(of_peak(vendor), "{:.1f}%"));
        row.push_back(cell(*automatic * 1e3, "{:.4f}"));
        row.push_back(cell(ratio, "{:.2f}"));
        table.add_row(row);
        results.push_back({{"m", shape.m},
                           {"n", shape.n},
                           {"k", shape.k},
                           {"flops", work},
                           {"native_seconds", *native},
                           {"vendor_seconds", json_of(vendor)},
                           {"automatic_seconds", *automatic},
                           {"native_gflops", json_of(gflops(native))},
                           {"vendor_gflops", json_of(gflops(vendor))},
                           {"native_over_vendor_time", json_of(ratio)}});
    }
    table.print();
    fmt::print("\nvendor/native: native time / vendor time (> 1: the vendor library is faster)\n");
    return {{"benchmark", "dense"},
            {"routine", to_string(routine)},
            {"executor", options.exec->name()},
            {"complex", is_complex_v<V>},
            {"samples", options.samples},
            {"peak_gflops", options.peak_gflops},
            {"results", results}};
}

#define LOOM_INSTANTIATE_BENCH_DENSE(V) \
    template nlohmann::ordered_json bench_dense<V>(const DenseBenchOptions&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BENCH_DENSE)

}  // namespace loom::bench
