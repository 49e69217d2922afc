#include "bench/sptrsv_bench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_sptrsv";

/// One timed phase of one algorithm.
struct Phase {
    std::string algorithm;
    std::string phase;  ///< "analysis", "numeric" or "solve"
    Timing timing;
    double error = 0;  ///< solve: relative error of x against the reference
    size_type levels = 0;
    size_type stages = 0;
};

/// A right-hand side with entries in [-1, 1], on the host.
template <typename V>
matrix::Dense<V> random_rhs(size_type n)
{
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> value(-1, 1);
    std::vector<V> b(static_cast<std::size_t>(n));
    for (auto& v : b) v = static_cast<V>(value(rng));
    return matrix::Dense<V>::from_host(ReferenceExecutor::create(), {n, 1}, b);
}

/// max |x - expected| / max(1, max |expected|); NumericalError naming `who` beyond the
/// tolerance (a growing error along the dependency chains allows a few roundings per level).
template <typename V>
double check(const std::string& who, const matrix::Dense<V>& x, const std::vector<V>& expected,
             size_type levels)
{
    const auto result = x.to_host();
    double error = 0;
    double scale = 1;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double diff = std::abs(result[i] - expected[i]);
        error = std::isnan(diff) ? std::numeric_limits<double>::infinity() : std::max(error, diff);
        scale = std::max(scale, static_cast<double>(std::abs(expected[i])));
    }
    error /= scale;
    const double tolerance = 64.0 * static_cast<double>(std::max<size_type>(levels, 1)) *
                             std::numeric_limits<remove_complex_t<V>>::epsilon();
    if (!(error <= tolerance)) {
        throw NumericalError(where, fmt::format("{}: relative error {:.3g} > tolerance {:.3g}", who,
                                                error, tolerance));
    }
    return error;
}

/// The algorithms that run on exec for T.
template <typename V, typename I>
std::vector<sparse::SptrsvAlgorithm> algorithms_for(const Executor& exec,
                                                    const SptrsvBenchOptions& options)
{
    using sparse::SptrsvAlgorithm;
    if (!options.algorithms.empty()) return options.algorithms;
    if (exec.kind() != ExecKind::cuda) {
        return {SptrsvAlgorithm::level_set, SptrsvAlgorithm::supernodal};
    }
    std::vector<SptrsvAlgorithm> result{SptrsvAlgorithm::level_set, SptrsvAlgorithm::sync_free,
                                        SptrsvAlgorithm::supernodal};
    if (sizeof(I) == sizeof(int32)) result.push_back(SptrsvAlgorithm::vendor);
    // What the cost model picks, and what its analysis costs (it may skip the host one).
    result.push_back(SptrsvAlgorithm::automatic);
    return result;
}

/// Analysis, value update and solve of one algorithm; the solve checked first.
template <typename V, typename I>
std::vector<Phase> time_algorithm(sparse::SptrsvAlgorithm algorithm, const matrix::Csr<V, I>& T,
                                  const matrix::Dense<V>& b, const std::vector<V>& expected,
                                  const SptrsvBenchOptions& options)
{
    const auto& exec = *options.exec;
    auto solve_options = options.solve;
    solve_options.algorithm = algorithm;
    sparse::SptrsvHandle<V, I> handle(solve_options);
    const TimingOptions timing{.samples = options.samples};
    const auto analysis = time_kernel(
        exec, [&] { sparse::sptrsv_symbolic(handle, T); }, timing);
    // automatic is named with what it resolved to: "automatic=sync_free".
    std::string name = sparse::to_string(algorithm);
    if (algorithm == sparse::SptrsvAlgorithm::automatic) {
        name += std::string("=") + sparse::to_string(handle.algorithm());
    }
    matrix::Dense<V> x(options.exec, b.size());
    sparse::sptrsv_solve(handle, T, b, x);
    const double error = check(name, x, expected, handle.levels());
    const auto numeric = time_kernel(
        exec, [&] { sparse::sptrsv_numeric(handle, T); }, timing);
    const auto solve = time_kernel(
        exec, [&] { sparse::sptrsv_solve(handle, T, b, x); }, timing);
    const auto levels = handle.levels();
    const auto stages = handle.stages();
    return {{name, "analysis", analysis, 0, levels, stages},
            {name, "numeric", numeric, 0, levels, stages},
            {name, "solve", solve, error, levels, stages}};
}

void check_options(const SptrsvBenchOptions& options)
{
    if (!options.exec) throw BadInput(where, "no executor given");
    if (options.samples < 1) {
        throw BadInput(where, fmt::format("need at least one repetition, got {}", options.samples));
    }
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_sptrsv(const matrix::Csr<V, I>& T_in,
                                    const SptrsvBenchOptions& options)
{
    check_options(options);
    const auto reference = ReferenceExecutor::create();
    const auto b_host = random_rhs<V>(T_in.rows());
    matrix::Dense<V> x_ref(reference, b_host.size());
    sparse::sptrsv(matrix::Csr<V, I>(reference, T_in), b_host, x_ref, options.solve);
    const auto expected = x_ref.to_host();

    const matrix::Csr<V, I> T(options.exec, T_in);
    const matrix::Dense<V> b(options.exec, b_host);
    std::vector<Phase> results;
    for (const auto algorithm : algorithms_for<V, I>(*options.exec, options)) {
        const auto phases = time_algorithm(algorithm, T, b, expected, options);
        results.insert(results.end(), phases.begin(), phases.end());
    }

    const auto default_copy_bytes =
        options.exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        options.exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);
    const double bytes = T.nnz() * double(sizeof(V) + sizeof(I)) + (T.rows() + 1.0) * sizeof(I) +
                         2.0 * T.rows() * sizeof(V);
    const std::string vendor_name = sparse::to_string(sparse::SptrsvAlgorithm::vendor);
    /// cuSPARSE's time for a phase; 0 when it did not run.
    const auto vendor_time = [&](const std::string& phase) {
        for (const auto& p : results) {
            if (p.algorithm == vendor_name && p.phase == phase) return p.timing.median;
        }
        return 0.0;
    };

    const auto& o = options.solve;
    fmt::print("T         {}: {} x {}, {} stored entries, {} {}, op {}\n", options.matrix_name,
               T.rows(), T.cols(), T.nnz(), blas::to_string(o.uplo),
               o.diag == blas::Diag::unit ? "unit diagonal" : "stored diagonal",
               blas::to_string(o.op));
    fmt::print("run       {}, {} values, {} indices, median of {} samples\n", options.exec->name(),
               type_name<V>(), type_name<I>(), options.samples);
    fmt::print("copy      {:.1f} GB/s (read + write counted)\n", copy.bytes_per_second / 1e9);
    fmt::print("bytes     {:.1f} MB per solve = {}\n\n", bytes / 1e6, sptrsv_bytes_formula);

    Table table({"algorithm", "phase", "time [us]", "GB/s", "of copy BW", "vs cusparse", "levels",
                 "stages", "rel. error"});
    auto json_results = nlohmann::ordered_json::array();
    for (const auto& p : results) {
        const double t = p.timing.median;
        const bool solve = p.phase == "solve";
        const double vendor = p.algorithm == vendor_name ? 0.0 : vendor_time(p.phase);
        const auto if_solve = [&](double value) {
            return solve ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
        };
        table.add_row(
            {p.algorithm, p.phase, fmt::format("{:.1f}", t * 1e6),
             solve ? fmt::format("{:.1f}", bytes / t / 1e9) : "-",
             solve ? fmt::format("{:.1f}%", 100 * bytes / t / copy.bytes_per_second) : "-",
             vendor > 0 ? fmt::format("{:.2f}x", vendor / t) : "-", fmt::format("{}", p.levels),
             fmt::format("{}", p.stages), solve ? fmt::format("{:.1e}", p.error) : "-"});
        json_results.push_back(
            {{"algorithm", p.algorithm},
             {"phase", p.phase},
             {"time_s", t},
             {"time_min_s", p.timing.min},
             {"time_max_s", p.timing.max},
             {"calls_per_sample", p.timing.batch},
             {"gb_per_s", if_solve(bytes / t / 1e9)},
             {"fraction_of_copy_bandwidth", if_solve(bytes / t / copy.bytes_per_second)},
             {"speedup_vs_cusparse",
              vendor > 0 ? nlohmann::ordered_json(vendor / t) : nlohmann::ordered_json()},
             {"levels", p.levels},
             {"stages", p.stages},
             {"relative_error", if_solve(p.error)}});
    }
    table.print();

    return {{"benchmark", "sptrsv"},
            {"matrix", {{"name", options.matrix_name}, {"rows", T.rows()}, {"nnz", T.nnz()}}},
            {"uplo", blas::to_string(o.uplo)},
            {"unit_diagonal", o.diag == blas::Diag::unit},
            {"op", blas::to_string(o.op)},
            {"executor", options.exec->name()},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"solve_bytes", bytes},
            {"bytes_formula", sptrsv_bytes_formula},
            {"copy_bandwidth_gb_per_s", copy.bytes_per_second / 1e9},
            {"results", json_results}};
}

#define LOOM_INSTANTIATE_BENCH_SPTRSV(V, I)                                \
    template nlohmann::ordered_json bench_sptrsv(const matrix::Csr<V, I>&, \
                                                 const SptrsvBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_SPTRSV)

}  // namespace loom::bench
