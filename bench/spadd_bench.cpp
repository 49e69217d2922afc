#include "bench/spadd_bench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"

#if LOOM_BENCH_HAS_EIGEN
#include <Eigen/SparseCore>
#endif

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_spadd";

/// One timed phase of one library.
struct Phase {
    std::string library;
    std::string phase;  ///< "symbolic", "numeric" or "total"
    Timing timing;
    double error = 0;   ///< numeric and total: relative error of C against the reference
};

/// C computed by the reference backend, and how far a correct C may lie from it.
template <typename V, typename I>
class Oracle {
public:
    Oracle(V alpha, const matrix::Csr<V, I>& A, V beta, const matrix::Csr<V, I>& B)
    {
        const auto reference = ReferenceExecutor::create();
        C_ = sparse::spadd(alpha, matrix::Csr<V, I>(reference, A), beta,
                           matrix::Csr<V, I>(reference, B));
        for (const auto& v : C_.values().to_host()) scale_ = std::max(scale_, double(std::abs(v)));
        scale_ = std::max(scale_, 1.0);
    }

    const matrix::Csr<V, I>& C() const noexcept { return C_; }
    /// A few roundings per entry; duplicates of the inputs may add a few more.
    double tolerance() const { return 64 * std::numeric_limits<remove_complex_t<V>>::epsilon(); }

    /// Relative error of a result; NumericalError naming `who` when its pattern differs or
    /// its values lie beyond the tolerance.
    double check(const std::string& who, const std::vector<I>& row_ptrs,
                 const std::vector<I>& cols, const std::vector<V>& values) const
    {
        if (row_ptrs != C_.row_ptrs().to_host() || cols != C_.col_idxs().to_host()) {
            throw NumericalError(where, who + ": the pattern of C differs from the reference's");
        }
        const auto expected = C_.values().to_host();
        double error = 0;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double diff = std::abs(values[i] - expected[i]);
            error = std::isnan(diff) ? std::numeric_limits<double>::infinity()
                                     : std::max(error, diff / scale_);
        }
        if (!(error <= tolerance())) {
            throw NumericalError(where, fmt::format("{}: relative error {:.3g} > tolerance {:.3g}",
                                                    who, error, tolerance()));
        }
        return error;
    }

    double check(const std::string& who, const matrix::Csr<V, I>& C) const
    {
        return check(who, C.row_ptrs().to_host(), C.col_idxs().to_host(), C.values().to_host());
    }

private:
    matrix::Csr<V, I> C_;
    double scale_ = 0;
};

/// Times both phases of Loom's SpAdd with the given algorithm (native, or cuSPARSE).
template <typename V, typename I>
std::vector<Phase> time_spadd(const std::string& library, sparse::SpaddAlgorithm algorithm,
                              V alpha, const matrix::Csr<V, I>& A, V beta,
                              const matrix::Csr<V, I>& B, const Oracle<V, I>& oracle,
                              const SpaddBenchOptions& options)
{
    const auto& exec = *options.exec;
    sparse::SpaddHandle<V, I> handle({algorithm});
    matrix::Csr<V, I> C;
    const auto symbolic = time_kernel(
        exec, [&] { sparse::spadd_symbolic(handle, A, B, C); }, {.samples = options.samples});
    sparse::spadd_numeric(handle, alpha, A, beta, B, C);
    const double error = oracle.check(library, C);
    const auto numeric = time_kernel(
        exec, [&] { sparse::spadd_numeric(handle, alpha, A, beta, B, C); },
        {.samples = options.samples});
    const auto total = time_kernel(
        exec,
        [&] {
            sparse::spadd_symbolic(handle, A, B, C);
            sparse::spadd_numeric(handle, alpha, A, beta, B, C);
        },
        {.samples = options.samples});
    return {{library, "symbolic", symbolic, 0},
            {library, "numeric", numeric, error},
            {library, "total", total, error}};
}

/// Eigen's C = alpha A + beta B (one pass: pattern and values), single-threaded as Eigen's
/// sparse sum is; A and B mapped in place, which needs rows sorted.
template <typename V, typename I>
std::vector<Phase> time_eigen(V alpha, const matrix::Csr<V, I>& A, V beta,
                              const matrix::Csr<V, I>& B, const Oracle<V, I>& oracle,
                              const SpaddBenchOptions& options)
{
#if LOOM_BENCH_HAS_EIGEN
    for (const auto* M : {&A, &B}) {
        if (sparse::column_order(*M) == sparse::ColumnOrder::unordered) {
            throw NotSupported(where, "the Eigen peer needs rows with sorted columns");
        }
    }
    using Matrix = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    const Eigen::Map<const Matrix> a(A.rows(), A.cols(), A.nnz(), A.row_ptrs().data(),
                                     A.col_idxs().data(), A.values().data());
    const Eigen::Map<const Matrix> b(B.rows(), B.cols(), B.nnz(), B.row_ptrs().data(),
                                     B.col_idxs().data(), B.values().data());
    Matrix c;
    const auto add = [&] { c = alpha * a + beta * b; };
    add();
    c.makeCompressed();
    const auto* ptrs = c.outerIndexPtr();
    const double error = oracle.check(
        "eigen", std::vector<I>(ptrs, ptrs + A.rows() + 1),
        std::vector<I>(c.innerIndexPtr(), c.innerIndexPtr() + c.nonZeros()),
        std::vector<V>(c.valuePtr(), c.valuePtr() + c.nonZeros()));
    const auto timing = time_kernel(*options.exec, add, {.samples = options.samples});
    return {{"eigen", "total", timing, error}};
#else
    (void)alpha, (void)A, (void)beta, (void)B, (void)oracle, (void)options;
    throw NotSupported(where, "not built with Eigen (install libeigen3-dev and reconfigure)");
#endif
}

void check_options(const SpaddBenchOptions& options)
{
    if (!options.exec) throw BadInput(where, "no executor given");
    check_repetitions(where, options.samples);
    if (options.peer == Peer::cusparse && options.exec->kind() != ExecKind::cuda) {
        throw BadInput(where, "peer cusparse runs on CUDA; use --exec cuda (or --peer eigen)");
    }
    if (options.peer == Peer::eigen && !options.exec->is_host()) {
        throw BadInput(where, "peer eigen runs on the host; use --exec omp (or --peer cusparse)");
    }
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_spadd(const matrix::Csr<V, I>& A_in, const matrix::Csr<V, I>& B_in,
                                   const SpaddBenchOptions& options)
{
    check_options(options);
    const V alpha{2};
    const V beta{-1};
    const Oracle<V, I> oracle(alpha, A_in, beta, B_in);
    const matrix::Csr<V, I> A(options.exec, A_in);
    const matrix::Csr<V, I> B(options.exec, B_in);

    auto results = time_spadd("loom", sparse::SpaddAlgorithm::native, alpha, A, beta, B, oracle,
                              options);
    std::vector<Phase> peer;
    if (options.peer == Peer::cusparse) {
        peer = time_spadd("cusparse", sparse::SpaddAlgorithm::vendor, alpha, A, beta, B, oracle,
                          options);
    } else if (options.peer == Peer::eigen) {
        peer = time_eigen(alpha, A, beta, B, oracle, options);
    }
    results.insert(results.end(), peer.begin(), peer.end());

    const auto default_copy_bytes =
        options.exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        options.exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);
    const auto nnz_c = oracle.C().nnz();
    const double bytes = (A.nnz() + B.nnz()) * double(sizeof(V) + sizeof(I)) +
                         nnz_c * double(sizeof(V)) + 3.0 * (A.rows() + 1) * sizeof(I);
    /// The peer's time for a phase; 0 when it has none.
    const auto peer_time = [&](const std::string& phase) {
        for (const auto& p : peer) {
            if (p.phase == phase) return p.timing.median;
        }
        return 0.0;
    };

    fmt::print("A         {}: {} x {}, {} stored entries\n", options.a_name, A.rows(), A.cols(),
               A.nnz());
    fmt::print("B         {}: {} stored entries\n", options.b_name, B.nnz());
    fmt::print("C         alpha A + beta B = {} A - {} B: {} stored entries\n", 2, 1, nnz_c);
    fmt::print("run       {}, {} values, {} indices, median of {} samples\n",
               options.exec->name(), type_name<V>(), type_name<I>(), options.samples);
    fmt::print("copy      {:.1f} GB/s (read + write counted)\n", copy.bytes_per_second / 1e9);
    fmt::print("bytes     {:.1f} MB per numeric phase = {}\n\n", bytes / 1e6,
               spadd_bytes_formula);

    const std::string peer_column =
        options.peer == Peer::none ? std::string("vs peer")
                                   : fmt::format("vs {}", to_string(options.peer));
    Table table(
        {"library", "phase", "time [us]", "GB/s", "of copy BW", peer_column, "rel. error"});
    auto json_results = nlohmann::ordered_json::array();
    for (const auto& p : results) {
        const double t = p.timing.median;
        const bool numeric = p.phase == "numeric";
        const double other = p.library == "loom" ? peer_time(p.phase) : 0.0;
        table.add_row({p.library, p.phase, fmt::format("{:.1f}", t * 1e6),
                       numeric ? fmt::format("{:.1f}", bytes / t / 1e9) : "-",
                       numeric ? fmt::format("{:.1f}%", 100 * bytes / t / copy.bytes_per_second)
                               : "-",
                       other > 0 ? fmt::format("{:.2f}x", other / t) : "-",
                       p.phase == "symbolic" ? "-" : fmt::format("{:.1e}", p.error)});
        json_results.push_back(
            {{"library", p.library},
             {"phase", p.phase},
             {"time_s", t},
             {"time_min_s", p.timing.min},
             {"time_max_s", p.timing.max},
             {"calls_per_sample", p.timing.batch},
             {"gb_per_s", numeric ? nlohmann::ordered_json(bytes / t / 1e9)
                                  : nlohmann::ordered_json()},
             {"fraction_of_copy_bandwidth",
              numeric ? nlohmann::ordered_json(bytes / t / copy.bytes_per_second)
                      : nlohmann::ordered_json()},
             {"speedup_vs_peer",
              other > 0 ? nlohmann::ordered_json(other / t) : nlohmann::ordered_json()},
             {"relative_error", p.error}});
    }
    table.print();

    return {{"benchmark", "spadd"},
            {"a", {{"name", options.a_name}, {"rows", A.rows()}, {"cols", A.cols()},
                   {"nnz", A.nnz()}}},
            {"b", {{"name", options.b_name}, {"nnz", B.nnz()}}},
            {"c_nnz", nnz_c},
            {"alpha", 2},
            {"beta", -1},
            {"executor", options.exec->name()},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"numeric_bytes", bytes},
            {"bytes_formula", spadd_bytes_formula},
            {"peer", to_string(options.peer)},
            {"tolerance", oracle.tolerance()},
            {"copy_bandwidth_gb_per_s", copy.bytes_per_second / 1e9},
            {"results", json_results}};
}

#define LOOM_INSTANTIATE_BENCH_SPADD(V, I)                                                     \
    template nlohmann::ordered_json bench_spadd(const matrix::Csr<V, I>&,                      \
                                                const matrix::Csr<V, I>&,                      \
                                                const SpaddBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_SPADD)

}  // namespace loom::bench
