#include "bench/spmv_bench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/matrix_stats.hpp"
#include "bench/peer_eigen.hpp"
#include "bench/random.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_spmv";

template <typename V>
matrix::Dense<V> random_vector(size_type rows, std::uint64_t seed)
{
    return matrix::Dense<V>::from_host(detail::host_executor(), {rows, 1},
                                       random_values<V>(rows, seed));
}

/// The correct y = A * x + y0, and how far rounding may move a correct kernel's result:
/// entry i of any summation order lies within (n + 1) * eps * scale_i of the exact value,
/// where n is the row length and scale_i = |y0_i| + sum_j |a_ij| |x_j|.
template <typename V>
class Oracle {
public:
    template <typename I>
    Oracle(const matrix::Csr<V, I>& A, const matrix::Dense<V>& x, const matrix::Dense<V>& y0,
           size_type max_row_length)
    {
        // The host is the oracle, whatever executor A came on: OpenMP where built (one pass
        // over A, cheap next to the benchmark even at 2 M rows), the reference otherwise.
        const std::shared_ptr<const Executor> reference =
            OmpExecutor::available() ? std::shared_ptr<const Executor>(OmpExecutor::create())
                                     : ReferenceExecutor::create();
        std::optional<matrix::Csr<V, I>> copy;
        if (A.executor()->kind() != reference->kind()) copy.emplace(reference, A);
        const auto& A_ref = copy ? *copy : A;
        const matrix::Dense<V> x_ref(reference, x);
        matrix::Dense<V> y_ref(reference, y0);
        sparse::spmv(sparse::Mode::none, V{1}, A_ref, x_ref, V{1}, y_ref);
        y_ = y_ref.to_host();

        const auto* ptrs = A_ref.row_ptrs().data();
        const auto* cols = A_ref.col_idxs().data();
        const auto* vals = A_ref.values().data();
        const auto* x_values = x_ref.data();
        const auto y0_values = y0.to_host();
        scale_.resize(y_.size());
        for (size_type r = 0; r < A.rows(); ++r) {
            double sum = std::abs(y0_values[r]);
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                sum += std::abs(vals[k]) * std::abs(x_values[cols[k]]);
            }
            scale_[r] = sum;
        }
        // Two results, each within the bound, differ by up to twice it; twice again for
        // the extra rounding of complex products.
        tolerance_ = 4.0 * static_cast<double>(max_row_length + 1) *
                     std::numeric_limits<remove_complex_t<V>>::epsilon();
    }

    double tolerance() const noexcept { return tolerance_; }

    /// max_i |y_i - y_ref_i| / scale_i
    double error_of(const matrix::Dense<V>& y) const
    {
        const auto values = y.to_host();
        double error = 0;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double diff = std::abs(values[i] - y_[i]);
            if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
            if (diff > 0) {
                error =
                    std::max(error, diff / std::max(scale_[i], std::numeric_limits<double>::min()));
            }
        }
        return error;
    }

private:
    std::vector<V> y_;
    std::vector<double> scale_;
    double tolerance_ = 0;
};

struct Measurement {
    std::string kernel;
    bool peer = false;
    double error = 0;
    Timing timing;
    double x_bytes_estimate = 0;  ///< x_sector_bytes of the matrix it ran on
};

/// Checks `spmv` (which computes y = A * x + y) against the oracle on a fresh y = y0, then
/// times it. NumericalError when the result is wrong: a fast wrong kernel is no result.
template <typename V>
Measurement measure(std::string kernel, bool peer, const std::function<void()>& spmv,
                    matrix::Dense<V>& y, const Oracle<V>& oracle, const SpmvBenchOptions& options)
{
    spmv();
    const double error = oracle.error_of(y);
    if (!(error <= oracle.tolerance())) {
        throw NumericalError(where,
                             fmt::format("{} on {} differs from the reference backend: "
                                         "relative error {:.3g} > tolerance {:.3g}",
                                         kernel, options.exec->name(), error, oracle.tolerance()));
    }
    const auto timing = time_kernel(*options.exec, spmv, {.samples = options.samples});
    return {std::move(kernel), peer, error, timing};
}

/// The native CSR kernels the --variants rows time.
constexpr sparse::SpmvAlgorithm native_algorithms[] = {
    sparse::SpmvAlgorithm::row_vector, sparse::SpmvAlgorithm::stream,
    sparse::SpmvAlgorithm::load_balanced, sparse::SpmvAlgorithm::binned};

/// options.algorithm on A renumbered by `kind`: x and y permuted before the timing, checked
/// against an oracle of the renumbered product (which is the original product permuted).
template <typename V, typename I>
Measurement measure_reordered(const matrix::Csr<V, I>& A, sparse::ReorderKind kind,
                              const matrix::Dense<V>& x_host, const matrix::Dense<V>& y0_host,
                              size_type max_row_length, const SpmvBenchOptions& options)
{
    const auto reordered = sparse::spmv_reorder(A, kind);
    const auto& P = reordered.permutation;
    const auto x_permuted = P.apply(matrix::Dense<V>(P.executor(), x_host));
    const auto y0_permuted = P.apply(matrix::Dense<V>(P.executor(), y0_host));
    const Oracle<V> oracle(reordered.matrix, x_permuted, y0_permuted, max_row_length);
    const SpmvMatrix<V, I> M(reordered.matrix, options.exec, SpmvFormat::csr, options.algorithm);
    const matrix::Dense<V> x(options.exec, x_permuted);
    matrix::Dense<V> y(options.exec, y0_permuted);
    auto m = measure(
        M.name() + " reordered " + sparse::to_string(kind), false,
        [&] { M.apply(sparse::Mode::none, V{1}, x, V{1}, y); }, y, oracle, options);
    m.x_bytes_estimate = x_sector_bytes(reordered.matrix, sizeof(V));
    return m;
}

void check_options(const SpmvBenchOptions& options)
{
    check_run(where, options.exec, options.samples, options.peer);
    if (options.formats.empty() && options.peer == Peer::none) {
        throw BadInput(where, "nothing to run: no format and no peer");
    }
}

}  // namespace

Peer parse_peer(const std::string& text)
{
    return names_of(Peer{}).parse(text, "loom::bench::parse_peer");
}

void check_run(const char* where, const std::shared_ptr<const Executor>& exec, int samples,
               Peer peer)
{
    if (!exec) throw BadInput(where, "no executor given");
    check_repetitions(where, samples);
    if (peer == Peer::cusparse && exec->kind() != ExecKind::cuda) {
        throw BadInput(where, "peer cusparse runs on CUDA; use --exec cuda (or --peer eigen)");
    }
    if (peer == Peer::eigen) {
        if (!eigen_available()) {
            throw NotSupported(where,
                               "not built with Eigen (install libeigen3-dev and reconfigure)");
        }
        if (!exec->is_host()) {
            throw BadInput(where,
                           "peer eigen runs on the host; use --exec omp (or --peer cusparse)");
        }
    }
}

int host_threads(const Executor& exec)
{
    return exec.kind() == ExecKind::omp ? static_cast<const OmpExecutor&>(exec).num_threads() : 1;
}

std::string executor_description(const Executor& exec)
{
    if (exec.kind() == ExecKind::omp) {
        return fmt::format("{} ({} threads)", exec.name(), host_threads(exec));
    }
    return exec.name();
}

template <typename V, typename I>
nlohmann::ordered_json bench_spmv(const matrix::Csr<V, I>& A, const SpmvBenchOptions& options)
{
    check_options(options);
    if (!options.reorderings.empty() && A.rows() != A.cols()) {
        throw BadInput(where, "--reorder renumbers rows and columns alike: A must be square, "
                              "it is " + to_string(A.size()));
    }
    const auto& exec = options.exec;
    const auto stats = row_stats(A);
    const auto x_host = random_vector<V>(A.cols(), options.seed);
    const auto y0_host = random_vector<V>(A.rows(), options.seed + 1);
    const Oracle<V> oracle(A, x_host, y0_host, stats.max);
    const matrix::Dense<V> x(exec, x_host);
    matrix::Dense<V> y(exec, y0_host);

    // Measured before the kernels, on the same memory, in the same process.
    const auto default_copy_bytes = exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);

    std::vector<Measurement> results;
    const auto time_csr = [&](SpmvFormat format, sparse::SpmvAlgorithm algorithm) {
        const SpmvMatrix<V, I> M(A, exec, format, algorithm);
        y = y0_host;
        results.push_back(measure(
            M.name(), false, [&] { M.apply(sparse::Mode::none, V{1}, x, V{1}, y); }, y, oracle,
            options));
    };
    for (const auto format : options.formats) {
        time_csr(format, options.algorithm);
    }
    if (options.variants) {
        for (const auto algorithm : native_algorithms) time_csr(SpmvFormat::csr, algorithm);
    }
    if (options.peer == Peer::cusparse) {
        const SpmvMatrix<V, I> M(A, exec, SpmvFormat::csr, sparse::SpmvAlgorithm::vendor);
        y = y0_host;
        results.push_back(measure(
            "cusparse", true, [&] { M.apply(sparse::Mode::none, V{1}, x, V{1}, y); }, y, oracle,
            options));
    } else if (options.peer == Peer::eigen) {
        const matrix::Csr<V, I> A_exec(exec, A);
        y = y0_host;
        results.push_back(measure("eigen", true, eigen_spmv(A_exec, x, y, host_threads(*exec)), y,
                                  oracle, options));
    }

    const double x_estimate = x_sector_bytes(A, sizeof(V));
    for (auto& m : results) m.x_bytes_estimate = x_estimate;
    for (const auto kind : options.reorderings) {
        results.push_back(measure_reordered(A, kind, x_host, y0_host, stats.max, options));
    }

    const auto nnz = static_cast<double>(A.nnz());
    const double bytes = nnz * (sizeof(V) + sizeof(I)) + (A.rows() + 1.0) * sizeof(I) +
                         A.cols() * double(sizeof(V)) + 2.0 * A.rows() * sizeof(V);
    const double flops = (is_complex_v<V> ? 8.0 : 2.0) * nnz;
    const auto peer = std::find_if(results.begin(), results.end(), [](auto& m) { return m.peer; });

    fmt::print("matrix    {}: {} x {}, {} stored entries, row length {}..{} (mean {:.2f})\n",
               options.matrix_name, A.rows(), A.cols(), A.nnz(), stats.min, stats.max, stats.mean);
    fmt::print("run       {}, {} values, {} indices, y = A*x + y, median of {} samples\n",
               executor_description(*exec), type_name<V>(), type_name<I>(), options.samples);
    fmt::print("copy      {:.1f} GB/s ({} MiB {}, read + write counted)\n",
               copy.bytes_per_second / 1e9, copy.bytes >> 20,
               exec->is_host() ? fmt::format("memcpy on {} threads", copy.threads)
                               : std::string("device-to-device copy"));
    fmt::print("bytes     {:.1f} MB per SpMV = nnz*({}+{}) + (rows+1)*{} + cols*{} + 2*rows*{}\n",
               bytes / 1e6, sizeof(V), sizeof(I), sizeof(I), sizeof(V), sizeof(V));
    fmt::print("x est.    {:.1f} MB of x sectors gathered (distinct 32-byte sectors per 32 "
               "consecutive entries) vs {:.1f} MB read once; model = bytes - x once + x est.\n\n",
               x_estimate / 1e6, A.cols() * double(sizeof(V)) / 1e6);

    const std::string peer_column = options.peer == Peer::none
                                        ? std::string("vs peer")
                                        : fmt::format("vs {}", to_string(options.peer));
    Table table({"kernel", "time [us]", "GB/s", "GFLOP/s", "of copy BW", "model GB/s",
                 peer_column, "rel. error"});
    auto json_results = nlohmann::ordered_json::array();
    for (const auto& m : results) {
        const double t = m.timing.median;
        const double speedup = peer != results.end() ? peer->timing.median / t : 0.0;
        // The bytes with x counted as the gathers' sectors: what the caches must deliver.
        const double model_bytes = bytes - A.cols() * double(sizeof(V)) + m.x_bytes_estimate;
        table.add_row({m.kernel, fmt::format("{:.1f}", t * 1e6),
                       fmt::format("{:.1f}", bytes / t / 1e9),
                       fmt::format("{:.2f}", flops / t / 1e9),
                       fmt::format("{:.1f}%", 100 * bytes / t / copy.bytes_per_second),
                       fmt::format("{:.1f}", model_bytes / t / 1e9),
                       peer != results.end() ? fmt::format("{:.2f}x", speedup) : "-",
                       fmt::format("{:.1e}", m.error)});
        json_results.push_back(
            {{"kernel", m.kernel},
             {"peer", m.peer},
             {"time_s", t},
             {"time_min_s", m.timing.min},
             {"time_max_s", m.timing.max},
             {"calls_per_sample", m.timing.batch},
             {"gb_per_s", bytes / t / 1e9},
             {"gflop_per_s", flops / t / 1e9},
             {"fraction_of_copy_bandwidth", bytes / t / copy.bytes_per_second},
             {"x_sector_bytes_estimate", m.x_bytes_estimate},
             {"model_bytes", model_bytes},
             {"model_gb_per_s", model_bytes / t / 1e9},
             {"speedup_vs_peer",
              peer != results.end() ? nlohmann::ordered_json(speedup) : nlohmann::ordered_json()},
             {"relative_error", m.error},
             {"tolerance", oracle.tolerance()}});
    }
    table.print();

    auto matrix = matrix_report(options, A);
    matrix["row_length"] = {{"min", stats.min},
                            {"mean", stats.mean},
                            {"max", stats.max},
                            {"empty_rows", stats.empty}};
    return {{"benchmark", "spmv"},
            {"matrix", matrix},
            {"executor", exec->name()},
            {"threads", host_threads(*exec)},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"operation", "y = A*x + y"},
            {"samples", options.samples},
            {"bytes_per_spmv", bytes},
            {"bytes_formula", spmv_bytes_formula},
            {"flops_per_spmv", flops},
            {"copy_bandwidth",
             {{"gb_per_s", copy.bytes_per_second / 1e9},
              {"bytes", copy.bytes},
              {"threads", copy.threads}}},
            {"peer", to_string(options.peer)},
            {"results", json_results}};
}

#define LOOM_INSTANTIATE_BENCH_SPMV(V, I) \
    template nlohmann::ordered_json bench_spmv(const matrix::Csr<V, I>&, const SpmvBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_SPMV)

}  // namespace loom::bench
