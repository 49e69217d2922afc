#include "bench/spgemm_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/matrix_stats.hpp"
#include "bench/peer_eigen.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/sparse/spgemm.hpp"

#if LOOM_BENCH_HAS_EIGEN
#include <Eigen/SparseCore>
#endif

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_spgemm";

/// Multiply-adds of every row of A * A (A on the host).
template <typename V, typename I>
std::vector<int64> square_row_flops(const matrix::Csr<V, I>& A)
{
    const I* ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    std::vector<int64> flops(static_cast<std::size_t>(A.rows()), 0);
    for (size_type r = 0; r < A.rows(); ++r) {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) flops[r] += ptrs[cols[k] + 1] - ptrs[cols[k]];
    }
    return flops;
}

/// |M| entry by entry (as V), for the rounding scale of every entry of a product.
template <typename V, typename I>
matrix::Csr<V, I> magnitudes(const matrix::Csr<V, I>& M)
{
    matrix::Csr<V, I> result(M);
    for (size_type k = 0; k < result.nnz(); ++k) {
        result.values()[k] = V(std::abs(result.values()[k]));
    }
    return result;
}

/// Rows [first, end) of C = A * A that the oracle checks (one copy each from the device).
struct RowSpan {
    size_type first;
    size_type end;
};

/// The rows to check under a budget of multiply-adds: the longest rows (where the heavy-row
/// kernels run) and evenly spread stretches of consecutive rows (so that checking them costs
/// a few copies, not one per row); every row when the whole product fits the budget.
std::vector<RowSpan> sample_rows(const std::vector<int64>& flops, size_type limit)
{
    const auto rows = static_cast<size_type>(flops.size());
    size_type total = 0;
    for (const auto f : flops) total += f;
    if (total <= limit) return {{0, rows}};
    constexpr size_type longest = 8;
    constexpr size_type stretches = 64;
    std::vector<size_type> order(static_cast<std::size_t>(rows));
    for (size_type r = 0; r < rows; ++r) order[static_cast<std::size_t>(r)] = r;
    const auto by_flops = [&](size_type a, size_type b) { return flops[a] > flops[b]; };
    const auto top = std::min(longest, rows);
    std::partial_sort(order.begin(), order.begin() + top, order.end(), by_flops);
    std::vector<RowSpan> spans;
    size_type spent = 0;
    for (size_type t = 0; t < top; ++t) {
        const auto r = order[static_cast<std::size_t>(t)];
        // while they take at most half the budget: one row of a power-law product can hold
        // tens of millions of multiply-adds, beyond what the reference backend checks quickly
        if (spent + flops[r] > limit / 2) continue;
        spans.push_back({r, r + 1});
        spent += flops[r];
    }
    const size_type share = std::max<size_type>(1, (limit - std::min(spent, limit)) / stretches);
    for (size_type s = 0; s < stretches; ++s) {
        size_type r = rows * s / stretches;
        size_type cost = 0;
        const size_type first = r;
        while (r < rows && (r == first || cost + flops[r] <= share)) cost += flops[r++];
        spans.push_back({first, r});
    }
    // ascending and disjoint
    std::sort(spans.begin(), spans.end(),
              [](const RowSpan& a, const RowSpan& b) { return a.first < b.first; });
    std::vector<RowSpan> merged;
    for (const auto& span : spans) {
        if (!merged.empty() && span.first <= merged.back().end) {
            merged.back().end = std::max(merged.back().end, span.end);
        } else {
            merged.push_back(span);
        }
    }
    return merged;
}

/// Rows [spans] of M (on the host), as a matrix of their own.
template <typename V, typename I>
matrix::Csr<V, I> select_rows(const matrix::Csr<V, I>& M, const std::vector<RowSpan>& spans)
{
    const I* ptrs = M.row_ptrs().data();
    std::vector<I> sub_ptrs{0};
    std::vector<I> sub_cols;
    std::vector<V> sub_vals;
    for (const auto& span : spans) {
        for (auto r = span.first; r < span.end; ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                sub_cols.push_back(M.col_idxs()[k]);
                sub_vals.push_back(M.values()[k]);
            }
            sub_ptrs.push_back(static_cast<I>(sub_cols.size()));
        }
    }
    const dim2 size{static_cast<size_type>(sub_ptrs.size() - 1), M.cols()};
    return matrix::Csr<V, I>::from_host(M.executor(), size, sub_ptrs, sub_cols, sub_vals);
}

/// The executor that computes the oracle's rows: Loom's OpenMP SpGEMM when the benchmark
/// runs elsewhere (a GPU: the host must not take 100x the kernel to check it), else the
/// reference backend (independent of the kernels under test).
std::shared_ptr<const Executor> oracle_executor(const Executor& benchmarked)
{
    if (benchmarked.kind() != ExecKind::omp && OmpExecutor::available()) {
        return OmpExecutor::create();
    }
    return ReferenceExecutor::create();
}

/// Rows of C = A * A, all of them or a sample whose multiply-adds stay near the limit (the
/// longest rows and evenly spread stretches), computed by oracle_executor, and how far
/// rounding may move a correct result: entry (i, j) of any summation order lies within
/// (n + 1) eps scale_ij of the exact value, n the number of terms (at most the row length of
/// A) and scale = |A| |A|. Checking a C reads only the sampled rows from its executor.
template <typename V, typename I>
class Oracle {
public:
    Oracle(const matrix::Csr<V, I>& A, size_type limit, const Executor& benchmarked)
    {
        const auto started = std::chrono::steady_clock::now();
        const auto reference = ReferenceExecutor::create();
        const matrix::Csr<V, I> A_ref(reference, A);
        const auto flops = square_row_flops(A_ref);
        multiply_adds_ = 0;
        for (const auto f : flops) multiply_adds_ += f;
        total_rows_ = A.rows();
        spans_ = sample_rows(flops, limit);
        for (const auto& span : spans_) checked_rows_ += span.end - span.first;
        const auto exec = oracle_executor(benchmarked);
        oracle_name_ = exec->kind() == ExecKind::omp ? "Loom's OpenMP SpGEMM"
                                                      : "the reference backend";
        const matrix::Csr<V, I> A_oracle(exec, A_ref);
        const auto sub = select_rows(A_ref, spans_);
        expected_ = matrix::Csr<V, I>(reference, sparse::spgemm(matrix::Csr<V, I>(exec, sub),
                                                                A_oracle));
        scale_ = sparse::spgemm(matrix::Csr<V, I>(exec, magnitudes(sub)),
                                matrix::Csr<V, I>(exec, magnitudes(A_ref)))
                     .values()
                     .to_host();
        const auto stats = row_stats(A_ref);
        tolerance_ = 4.0 * static_cast<double>(stats.max + 1) *
                     std::numeric_limits<remove_complex_t<V>>::epsilon();
        setup_seconds_ = seconds_since(started);
    }

    size_type multiply_adds() const noexcept { return multiply_adds_; }
    size_type checked_rows() const noexcept { return checked_rows_; }
    size_type total_rows() const noexcept { return total_rows_; }
    double tolerance() const noexcept { return tolerance_; }
    const std::string& name() const noexcept { return oracle_name_; }
    /// Seconds the oracle took to build, and all checks so far.
    double setup_seconds() const noexcept { return setup_seconds_; }
    double check_seconds() const noexcept { return check_seconds_; }

    /// max |c - c_ref| / scale over the checked rows; NumericalError when C's size or
    /// pattern differ from the reference's (C in any order within rows, on any executor).
    double error_of(const std::string& kernel, const matrix::Csr<V, I>& C) const
    {
        const auto started = std::chrono::steady_clock::now();
        if (C.rows() != total_rows_ || C.cols() != expected_.cols()) {
            throw NumericalError(where, kernel + " made a " + to_string(C.size()) + " matrix");
        }
        const auto ptrs = C.row_ptrs().to_host();
        const I* e_ptrs = expected_.row_ptrs().data();
        const I* e_cols = expected_.col_idxs().data();
        const V* e_vals = expected_.values().data();
        double error = 0;
        std::vector<I> cols;
        std::vector<V> vals;
        std::vector<std::pair<I, V>> row;
        size_type t = 0;  // the row's place among the checked ones
        for (const auto& span : spans_) {
            const auto begin = static_cast<std::size_t>(ptrs[span.first]);
            const auto count = static_cast<std::size_t>(ptrs[span.end]) - begin;
            copy_to_host(C.col_idxs(), begin, count, cols);
            copy_to_host(C.values(), begin, count, vals);
            for (auto r = span.first; r < span.end; ++r, ++t) {
                row.clear();
                for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                    row.emplace_back(cols[k - begin], vals[k - begin]);
                }
                std::sort(row.begin(), row.end(),
                          [](const auto& a, const auto& b) { return a.first < b.first; });
                if (static_cast<size_type>(row.size()) != e_ptrs[t + 1] - e_ptrs[t]) {
                    throw NumericalError(where, fmt::format("{}: row {} of C has {} entries, the "
                                                            "reference {}",
                                                            kernel, r, row.size(),
                                                            e_ptrs[t + 1] - e_ptrs[t]));
                }
                for (std::size_t q = 0; q < row.size(); ++q) {
                    const auto e = e_ptrs[t] + static_cast<I>(q);
                    if (row[q].first != e_cols[e]) {
                        throw NumericalError(where,
                                             fmt::format("{}: row {} of C holds column {} "
                                                         "where the reference has {}",
                                                         kernel, r, row[q].first, e_cols[e]));
                    }
                    const double diff = std::abs(row[q].second - e_vals[e]);
                    if (std::isnan(diff)) return std::numeric_limits<double>::infinity();
                    if (diff > 0) {
                        error = std::max(error,
                                         diff / std::max(static_cast<double>(std::abs(scale_[e])),
                                                         std::numeric_limits<double>::min()));
                    }
                }
            }
        }
        check_seconds_ += seconds_since(started);
        return error;
    }

private:
    static double seconds_since(std::chrono::steady_clock::time_point start)
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    /// out = data[begin, begin + count) of an array on any executor.
    template <typename T>
    static void copy_to_host(const Array<T>& data, std::size_t begin, std::size_t count,
                             std::vector<T>& out)
    {
        out.resize(count);
        if (count == 0) return;
        ReferenceExecutor::create()->copy_from(*data.executor(), sizeof(T) * count,
                                               data.data() + begin, out.data());
    }

    size_type multiply_adds_ = 0;
    size_type total_rows_ = 0;
    size_type checked_rows_ = 0;
    std::vector<RowSpan> spans_;
    std::string oracle_name_;
    matrix::Csr<V, I> expected_;
    std::vector<V> scale_;
    double tolerance_ = 0;
    double setup_seconds_ = 0;
    mutable double check_seconds_ = 0;
};

struct Measurement {
    std::string kernel;
    bool peer = false;
    double error = 0;
    std::optional<Timing> symbolic;
    std::optional<Timing> numeric;        ///< the full numeric phase (reuse_columns off)
    /// the first numeric call of a handle with the given options, right after its symbolic
    /// phase (values only when that phase found C's columns)
    std::optional<Timing> first_numeric;
    std::optional<Timing> numeric_reuse;  ///< a repeated call, C's columns known (if any)
    /// the first repeated call alone (CUDA makes its record there), seconds
    std::optional<double> first_reuse;
    std::string reuse_path = "-";         ///< how the repeated call computed values
    size_type recorded_bytes = 0;         ///< what its handle kept for that
    Timing total;
};

template <typename V, typename I>
void check(const std::string& kernel, const matrix::Csr<V, I>& C, const Oracle<V, I>& oracle,
           Measurement& m, const Executor& exec)
{
    const double error = oracle.error_of(kernel, C);
    if (!(error <= oracle.tolerance())) {
        throw NumericalError(where, fmt::format("{} on {} differs from the reference backend: "
                                                "relative error {:.3g} > tolerance {:.3g}",
                                                kernel, exec.name(), error, oracle.tolerance()));
    }
    m.error = std::max(m.error, error);
}

/// Checks, then times one algorithm through Loom's API: the symbolic phase (a fresh handle
/// each time), the numeric phase as a first call after the symbolic phase does it (the full
/// phase: C's columns and values), the numeric phase repeated on one handle and C whose
/// columns it already wrote (where the backend has a values-only path for that) and the
/// whole product.
template <typename V, typename I>
Measurement measure_loom(const std::string& kernel, bool peer, const matrix::Csr<V, I>& A,
                         const sparse::SpgemmOptions& spgemm_options, const Oracle<V, I>& oracle,
                         const SpgemmBenchOptions& options)
{
    const auto& exec = *options.exec;
    Measurement m;
    m.kernel = kernel;
    m.peer = peer;
    check(kernel, sparse::spgemm(A, A, spgemm_options), oracle, m, exec);
    const TimingOptions timing{.samples = options.samples};
    {
        // every timed call a first analysis of A: its fingerprint computed, not cached
        auto first_options = spgemm_options;
        first_options.pattern_check = PatternCheck::always;
        matrix::Csr<V, I> C;
        m.symbolic = time_kernel(
            exec,
            [&] {
                sparse::SpgemmHandle<V, I> handle(first_options);
                sparse::spgemm_symbolic(handle, A, A, C);
            },
            timing);
    }
    {
        // a handle that never reuses C's columns: every timed call is the full phase
        auto full_options = spgemm_options;
        full_options.reuse_columns = false;
        sparse::SpgemmHandle<V, I> handle(full_options);
        matrix::Csr<V, I> C;
        sparse::spgemm_symbolic(handle, A, A, C);
        sparse::spgemm_numeric(handle, A, A, C);
        check(kernel + " (handle)", C, oracle, m, exec);
        m.numeric = time_kernel(
            exec, [&] { sparse::spgemm_numeric(handle, A, A, C); }, timing);
    }
    {
        // the first numeric call of a fresh handle after its symbolic phase (untimed), once
        // to check it, then per sample
        std::vector<double> samples;
        for (int sample = 0; sample <= options.samples; ++sample) {
            sparse::SpgemmHandle<V, I> handle(spgemm_options);
            matrix::Csr<V, I> C;
            sparse::spgemm_symbolic(handle, A, A, C);
            exec.synchronize();
            const auto start = std::chrono::steady_clock::now();
            sparse::spgemm_numeric(handle, A, A, C);
            exec.synchronize();
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            if (sample == 0) {
                check(kernel + " (first numeric)", C, oracle, m, exec);
            } else {
                samples.push_back(took.count());
            }
        }
        std::sort(samples.begin(), samples.end());
        Timing first;
        const auto n = samples.size();
        first.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
        first.min = samples.front();
        first.max = samples.back();
        first.samples = static_cast<int>(n);
        m.first_numeric = first;
    }
    {
        // a repeated call: values only when the backend has that path (then C's values,
        // poisoned first, must all be rewritten)
        sparse::SpgemmHandle<V, I> handle(spgemm_options);
        matrix::Csr<V, I> C;
        sparse::spgemm_symbolic(handle, A, A, C);
        sparse::spgemm_numeric(handle, A, A, C);
        C.values().fill(V(std::numeric_limits<remove_complex_t<V>>::quiet_NaN()));
        exec.synchronize();
        const auto start = std::chrono::steady_clock::now();
        sparse::spgemm_numeric(handle, A, A, C);
        exec.synchronize();
        const std::chrono::duration<double> first_reuse = std::chrono::steady_clock::now() - start;
        if (handle.values_only_calls() > 0) {
            m.first_reuse = first_reuse.count();
            check(kernel + " (numeric reuse)", C, oracle, m, exec);
            m.numeric_reuse = time_kernel(
                exec, [&] { sparse::spgemm_numeric(handle, A, A, C); }, timing);
        }
        // the repeated calls' path (the first values-only call may still search)
        m.reuse_path = sparse::to_string(handle.values_path());
        m.recorded_bytes = handle.recorded_bytes();
    }
    {
        matrix::Csr<V, I> C;
        m.total = time_kernel(exec, [&] { C = sparse::spgemm(A, A, spgemm_options); }, timing);
    }
    return m;
}

#if LOOM_BENCH_HAS_EIGEN
/// Eigen's sparse product C = A * A on the host (single-threaded: Eigen does not
/// parallelise sparse * sparse), on A's own arrays.
template <typename V, typename I>
Measurement measure_eigen(const matrix::Csr<V, I>& A, const Oracle<V, I>& oracle,
                          const SpgemmBenchOptions& options)
{
    using Matrix = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    const Eigen::Map<const Matrix> eigen_A(A.rows(), A.cols(), A.nnz(), A.row_ptrs().data(),
                                           A.col_idxs().data(), A.values().data());
    Matrix C = eigen_A * eigen_A;
    C.makeCompressed();
    const auto* ptrs = C.outerIndexPtr();
    const auto nnz = static_cast<size_type>(ptrs[C.outerSize()]);
    Measurement m;
    m.kernel = "eigen";
    m.peer = true;
    check("eigen",
          matrix::Csr<V, I>::from_host(ReferenceExecutor::create(), {A.rows(), A.cols()},
                                       std::vector<I>(ptrs, ptrs + C.outerSize() + 1),
                                       std::vector<I>(C.innerIndexPtr(), C.innerIndexPtr() + nnz),
                                       std::vector<V>(C.valuePtr(), C.valuePtr() + nnz)),
          oracle, m, *options.exec);
    m.total = time_kernel(
        *options.exec, [&] { C = eigen_A * eigen_A; }, {.samples = options.samples});
    return m;
}
#endif

std::string ms(const std::optional<Timing>& t)
{
    return t ? fmt::format("{:.2f}", t->median * 1e3) : std::string("-");
}

nlohmann::ordered_json timing_json(const std::optional<Timing>& t, double flops)
{
    if (!t) return nullptr;
    return {{"time_s", t->median},
            {"time_min_s", t->min},
            {"time_max_s", t->max},
            {"gflop_per_s", flops / t->median / 1e9}};
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_spgemm(const matrix::Csr<V, I>& A, const SpgemmBenchOptions& options)
{
    check_run(where, options.exec, options.samples, options.peer);
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(where, "A is " + to_string(A.size()) +
                                           "; the benchmark computes A * A and needs it square");
    }
    const auto& exec = options.exec;
    const matrix::Csr<V, I> A_exec(exec, A);
    const auto stats = row_stats(A);
    const Oracle<V, I> oracle(A, options.check_limit, *exec);
    const double flops =
        (is_complex_v<V> ? 8.0 : 2.0) * static_cast<double>(oracle.multiply_adds());

    std::vector<Measurement> results;
    const sparse::SpgemmOptions native{.algorithm = sparse::SpgemmAlgorithm::native,
                                       .sort_output = options.sort_output,
                                       .reuse_memory_limit = options.reuse_memory_limit};
    results.push_back(measure_loom(options.sort_output ? "loom" : "loom/unsorted", false, A_exec,
                                   native, oracle, options));
    if (!exec->is_host()) {
        // what bitwise reproducibility costs (SpgemmOptions::deterministic, on by default)
        auto atomic = native;
        atomic.deterministic = false;
        results.push_back(measure_loom(options.sort_output ? "loom/atomic" : "loom/unsorted/atomic",
                                       false, A_exec, atomic, oracle, options));
    }
    std::string peer_note;
    if (options.peer == Peer::cusparse) {
        try {
            results.push_back(measure_loom("cusparse", true, A_exec,
                                           {.algorithm = sparse::SpgemmAlgorithm::vendor}, oracle,
                                           options));
        } catch (const NotSupported& e) {
            peer_note = std::string("cusparse declined: ") + e.what();
        }
    } else if (options.peer == Peer::eigen) {
#if LOOM_BENCH_HAS_EIGEN
        results.push_back(measure_eigen(A_exec, oracle, options));
#endif
    }

    // C's size, from a handle (also what the symbolic phase reports)
    sparse::SpgemmHandle<V, I> handle({.algorithm = sparse::SpgemmAlgorithm::native});
    matrix::Csr<V, I> C;
    sparse::spgemm_symbolic(handle, A_exec, A_exec, C);
    const auto c_nnz = handle.result_nnz();

    const auto peer = std::find_if(results.begin(), results.end(), [](auto& m) { return m.peer; });
    fmt::print("matrix    {}: {} x {}, {} stored entries, row length {}..{} (mean {:.2f})\n",
               options.matrix_name, A.rows(), A.cols(), A.nnz(), stats.min, stats.max, stats.mean);
    fmt::print("product   C = A*A: {} stored entries, {} multiply-adds ({:.2f} per entry of C)\n",
               c_nnz, oracle.multiply_adds(),
               c_nnz > 0 ? static_cast<double>(oracle.multiply_adds()) / c_nnz : 0.0);
    fmt::print("run       {}, {} values, {} indices, median of {} samples, {} rows of C\n",
               executor_description(*exec), type_name<V>(), type_name<I>(), options.samples,
               options.sort_output ? "sorted" : "unsorted");
    if (oracle.checked_rows() == oracle.total_rows()) {
        fmt::print("check     every row against {}", oracle.name());
    } else {
        fmt::print("check     {} of {} rows (the longest and evenly spread stretches) against {}: "
                   "the whole product ({} multiply-adds) is over --check-limit",
                   oracle.checked_rows(), oracle.total_rows(), oracle.name(),
                   oracle.multiply_adds());
    }
    fmt::print("; oracle {:.2f} s, checks {:.2f} s in all\n", oracle.setup_seconds(),
               oracle.check_seconds());
    if (!peer_note.empty()) fmt::print("peer      {}\n", peer_note);
    fmt::print("flops     {}\n\n", spgemm_flops_formula);

    const std::string vs = options.peer == Peer::none ? "peer" : to_string(options.peer);
    Table table({"kernel", "symbolic [ms]", "1st numeric [ms]", "full numeric [ms]",
                 "1st reuse [ms]", "reuse [ms]", "total [ms]", "GFLOP/s", "numeric GFLOP/s",
                 "total vs " + vs, "1st numeric vs " + vs, "full numeric vs " + vs,
                 "reuse vs " + vs, "reuse path", "rel. error"});
    auto json_results = nlohmann::ordered_json::array();
    const auto ratio = [&](const std::optional<Timing>& mine, const std::optional<Timing>& theirs) {
        return mine && theirs ? std::optional<double>(theirs->median / mine->median)
                              : std::nullopt;
    };
    // the numeric phases against the peer's whole product when the peer has no phases
    const Timing* peer_numeric = nullptr;
    if (peer != results.end()) peer_numeric = peer->numeric ? &*peer->numeric : &peer->total;
    const auto ratio_to_peer = [&](const std::optional<Timing>& mine) {
        return mine && peer_numeric ? std::optional<double>(peer_numeric->median / mine->median)
                                    : std::nullopt;
    };
    for (const auto& m : results) {
        const std::optional<Timing> total = m.total;
        const auto vs_total = peer != results.end() ? ratio(total, peer->total) : std::nullopt;
        const auto vs_numeric = ratio_to_peer(m.numeric);
        const auto vs_first = ratio_to_peer(m.first_numeric);
        const auto vs_reuse = ratio_to_peer(m.numeric_reuse);
        const auto format_ratio = [](std::optional<double> r) {
            return r ? fmt::format("{:.2f}x", *r) : std::string("-");
        };
        table.add_row({m.kernel, ms(m.symbolic), ms(m.first_numeric), ms(m.numeric),
                       m.first_reuse ? fmt::format("{:.2f}", *m.first_reuse * 1e3) : "-",
                       ms(m.numeric_reuse), ms(total),
                       fmt::format("{:.2f}", flops / m.total.median / 1e9),
                       m.numeric ? fmt::format("{:.2f}", flops / m.numeric->median / 1e9) : "-",
                       format_ratio(vs_total), format_ratio(vs_first), format_ratio(vs_numeric),
                       format_ratio(vs_reuse),
                       m.recorded_bytes > 0
                           ? fmt::format("{} {:.2f} GB", m.reuse_path, m.recorded_bytes / 1e9)
                           : m.reuse_path,
                       fmt::format("{:.1e}", m.error)});
        json_results.push_back(
            {{"kernel", m.kernel},
             {"peer", m.peer},
             {"symbolic", timing_json(m.symbolic, flops)},
             {"numeric", timing_json(m.numeric, flops)},
             {"first_numeric", timing_json(m.first_numeric, flops)},
             {"first_numeric_reuse_s",
              m.first_reuse ? nlohmann::ordered_json(*m.first_reuse) : nlohmann::ordered_json()},
             {"numeric_reuse", timing_json(m.numeric_reuse, flops)},
             {"reuse_path", m.reuse_path},
             {"recorded_bytes", m.recorded_bytes},
             {"total", timing_json(total, flops)},
             {"total_speedup_vs_peer",
              vs_total ? nlohmann::ordered_json(*vs_total) : nlohmann::ordered_json()},
             {"numeric_speedup_vs_peer",
              vs_numeric ? nlohmann::ordered_json(*vs_numeric) : nlohmann::ordered_json()},
             {"first_numeric_speedup_vs_peer",
              vs_first ? nlohmann::ordered_json(*vs_first) : nlohmann::ordered_json()},
             {"numeric_reuse_speedup_vs_peer",
              vs_reuse ? nlohmann::ordered_json(*vs_reuse) : nlohmann::ordered_json()},
             {"relative_error", m.error},
             {"tolerance", oracle.tolerance()}});
    }
    table.print();
    fmt::print(
        "\n1st numeric: the first numeric call of a handle right after its symbolic phase "
        "(values only when that phase found C's columns, CUDA). full numeric: the full "
        "numeric phase (C's columns and values), as every call of a "
        "handle with reuse_columns off (a handle that reuses them adds to its first call one "
        "pass over C's pattern, which records C's fingerprint, and the record of where each "
        "multiply-add lands in C). reuse: numeric repeated on the same handle and C, whose "
        "columns that call wrote (reuse path 'recorded': values only from the record, every "
        "row; 'known-columns': CUDA without a record (reuse_memory_limit), the light rows' "
        "values only; 'full': no values-only path, '-' in the reuse column). 1st reuse: the "
        "first such call alone, once (CUDA makes its record there, or in the symbolic "
        "phase when that finds C's columns). loom: SpgemmOptions::deterministic on, the "
        "default (every entry summed in product order: bitwise the same on every run); "
        "loom/atomic: off (CUDA adds atomically in arrival order).\n");
    if (options.peer == Peer::cusparse) {
        fmt::print(
            "cusparse's numeric is cusparseSpGEMMreuse_compute, which keeps C's columns "
            "from its symbolic phase.\n");
    }
    if (peer != results.end() && !peer->numeric) {
        fmt::print("\n(numeric vs {}: Loom's numeric phase against {}'s whole product)\n", vs, vs);
    }

    return {{"benchmark", "spgemm"},
            {"matrix",
             {{"name", options.matrix_name},
              {"rows", A.rows()},
              {"cols", A.cols()},
              {"nnz", A.nnz()},
              {"row_length", {{"min", stats.min}, {"mean", stats.mean}, {"max", stats.max}}}}},
            {"product", {{"operation", "C = A*A"}, {"nnz", c_nnz},
                         {"multiply_adds", oracle.multiply_adds()}, {"flops", flops},
                         {"sorted_rows", options.sort_output}}},
            {"executor", exec->name()},
            {"threads", host_threads(*exec)},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"checked_rows", oracle.checked_rows()},
            {"oracle", oracle.name()},
            {"oracle_seconds", oracle.setup_seconds()},
            {"check_seconds", oracle.check_seconds()},
            {"flops_formula", spgemm_flops_formula},
            {"peer", to_string(options.peer)},
            {"peer_note", peer_note},
            {"results", json_results}};
}

#define LOOM_INSTANTIATE_BENCH_SPGEMM(V, I)                                                    \
    template nlohmann::ordered_json bench_spgemm(const matrix::Csr<V, I>&,                     \
                                                 const SpgemmBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_SPGEMM)

}  // namespace loom::bench
