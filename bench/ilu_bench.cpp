#include "bench/ilu_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/sparse/sptrsv.hpp"

#if LOOM_BENCH_HAS_EIGEN
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>
#endif

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_ilu";

struct Phase {
    std::string library;
    std::string phase;  ///< symbolic, numeric, setup (both), solve
    Timing timing;
};

template <typename V, typename I>
struct Factors {
    matrix::Csr<V, I> L, U;
};

template <typename V, typename I>
Factors<V, I> factor(const matrix::Csr<V, I>& A, sparse::IluHandle<V, I>& handle)
{
    Factors<V, I> f;
    sparse::ilu_symbolic(handle, A, f.L, f.U);
    sparse::ilu_numeric(handle, A, f.L, f.U);
    return f;
}

/// The largest difference between two matrices' values relative to the largest value;
/// NumericalError when the patterns differ or it is beyond rounding.
template <typename V, typename I>
double check_against(const char* which, const matrix::Csr<V, I>& got,
                     const matrix::Csr<V, I>& expected)
{
    if (got.col_idxs().to_host() != expected.col_idxs().to_host()) {
        throw NumericalError(where, fmt::format("{}: pattern differs from the reference's", which));
    }
    const auto g = got.values().to_host();
    const auto e = expected.values().to_host();
    double scale = 1, error = 0;
    for (const auto& v : e) scale = std::max(scale, double(std::abs(v)));
    for (std::size_t k = 0; k < g.size(); ++k) {
        const double diff = std::abs(g[k] - e[k]);
        error = std::isnan(diff) ? std::numeric_limits<double>::infinity()
                                 : std::max(error, diff / scale);
    }
    const double tolerance = 1e3 * std::numeric_limits<remove_complex_t<V>>::epsilon();
    if (!(error <= tolerance)) {
        throw NumericalError(where, fmt::format("{}: relative error {:.3g} > {:.3g}", which,
                                                error, tolerance));
    }
    return error;
}

/// ||A x - b|| / ||b|| on the host.
template <typename V, typename I>
double quality(const matrix::Csr<V, I>& A, const std::vector<V>& b, const std::vector<V>& x)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto values = A.values().to_host();
    double r2 = 0, b2 = 0;
    for (size_type i = 0; i < A.rows(); ++i) {
        V sum{};
        for (auto k = ptrs[i]; k < ptrs[i + 1]; ++k) sum += values[k] * x[cols[k]];
        r2 += std::norm(std::complex<double>(sum - b[i]));
        b2 += std::norm(std::complex<double>(b[i]));
    }
    return std::sqrt(r2 / std::max(b2, 1e-300));
}

bool is_threshold(sparse::IluKind kind)
{
    return kind == sparse::IluKind::parilut || kind == sparse::IluKind::parict;
}

/// The backend Loom's factors are checked against: the reference, except for the threshold
/// kinds on CUDA, checked against the OpenMP backend where it is built (the reference's
/// row-by-row search takes minutes on a 100^3 grid; OpenMP runs the same search as CUDA).
std::shared_ptr<const Executor> oracle_for(const IluBenchOptions& options)
{
    if (is_threshold(options.factorization.kind) && options.exec->kind() == ExecKind::cuda &&
        OmpExecutor::available()) {
        return OmpExecutor::create();
    }
    return ReferenceExecutor::create();
}

/// The preconditioner's solve by SpTRSV: L, then U (IC: L^H), the analysis kept.
template <typename V, typename I>
class FactorSolve {
public:
    FactorSolve(const Factors<V, I>& f, bool cholesky)
        : l_(f.L),
          second_(cholesky ? f.L : f.U),
          upper_(cholesky ? sparse::SptrsvOptions{.uplo = blas::Uplo::lower,
                                                  .op = blas::Op::conj_transpose}
                          : sparse::SptrsvOptions{.uplo = blas::Uplo::upper})
    {}
    void analyze()
    {
        sparse::sptrsv_symbolic(lower_, l_);
        sparse::sptrsv_symbolic(upper_, second_);
    }
    /// x = M^-1 b, y the intermediate.
    void solve(const matrix::Dense<V>& b, matrix::Dense<V>& y, matrix::Dense<V>& x)
    {
        sparse::sptrsv_solve(lower_, l_, b, y);
        sparse::sptrsv_solve(upper_, second_, y, x);
    }

private:
    const matrix::Csr<V, I>& l_;
    const matrix::Csr<V, I>& second_;
    sparse::SptrsvHandle<V, I> lower_{{.uplo = blas::Uplo::lower}};
    sparse::SptrsvHandle<V, I> upper_;
};

/// ||A M^-1 b - b|| / ||b|| for the factors f of A.
template <typename V, typename I>
double factor_quality(const matrix::Csr<V, I>& A, const Factors<V, I>& f, bool cholesky,
                      const std::vector<V>& b_host)
{
    const auto& exec = A.executor();
    FactorSolve<V, I> solve(f, cholesky);
    solve.analyze();
    const auto b = matrix::Dense<V>::from_host(exec, {A.rows(), 1}, b_host);
    matrix::Dense<V> y(exec, {A.rows(), 1});
    matrix::Dense<V> x(exec, {A.rows(), 1});
    solve.solve(b, y, x);
    return quality(A, b_host, x.to_host());
}

/// The threshold kinds' check where the patterns differ (on ties of equal magnitude, which
/// 3D Poisson is full of, the sums' rounding decides which of them stays): the budget holds
/// and the preconditioner is as good as the oracle's. NumericalError otherwise.
template <typename V, typename I>
void check_threshold(const matrix::Csr<V, I>& A, const Factors<V, I>& f, double f_quality,
                     double oracle_quality, const IluBenchOptions& options)
{
    const auto& factorization = options.factorization;
    const bool cholesky = sparse::is_cholesky(factorization.kind);
    size_type entries = A.nnz();
    if (cholesky) {
        const auto ptrs = A.row_ptrs().to_host();
        const auto cols = A.col_idxs().to_host();
        entries = 0;
        for (size_type r = 0; r < A.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) entries += cols[k] <= static_cast<I>(r);
        }
    }
    const auto kept = cholesky ? f.L.nnz() : f.L.nnz() + f.U.nnz() - A.rows();
    if (kept > factorization.fill_limit * entries) {
        throw NumericalError(where, fmt::format("{} entries kept, over the budget {} x {}", kept,
                                                factorization.fill_limit, entries));
    }
    if (!(f_quality <= 1.5 * oracle_quality + 1e-12)) {
        throw NumericalError(where, fmt::format("quality {:.3g}, worse than the oracle's {:.3g}",
                                                f_quality, oracle_quality));
    }
}

template <typename V, typename I>
std::vector<Phase> time_eigen(const matrix::Csr<V, I>& A, const std::vector<V>& b,
                              const IluBenchOptions& options, double& peer_quality)
{
#if LOOM_BENCH_HAS_EIGEN
    using Matrix = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    using Vector = Eigen::Matrix<V, Eigen::Dynamic, 1>;
    const matrix::Csr<V, I> host(detail::host_executor(), A);
    const Eigen::Map<const Matrix> a(host.rows(), host.cols(), host.nnz(),
                                     host.row_ptrs().data(), host.col_idxs().data(),
                                     host.values().data());
    const Eigen::Map<const Vector> rhs(b.data(), static_cast<Eigen::Index>(b.size()));
    Vector x;
    std::vector<Phase> phases;
    const auto run = [&](auto& precond) {
        const auto setup = time_kernel(*options.exec, [&] { precond.compute(a); },
                                       {.samples = options.samples});
        if (precond.info() != Eigen::Success) {
            throw NumericalError(where, "eigen: the incomplete factorization failed");
        }
        const auto solve = time_kernel(*options.exec, [&] { x = precond.solve(rhs); },
                                       {.samples = options.samples});
        phases = {{"eigen", "setup", setup}, {"eigen", "solve", solve}};
    };
    if (sparse::is_cholesky(options.factorization.kind)) {
        if constexpr (!is_complex_v<V>) {
            Eigen::SparseMatrix<V, Eigen::ColMajor, I> lower = a.template triangularView<Eigen::Lower>();
            Eigen::IncompleteCholesky<V, Eigen::Lower, Eigen::AMDOrdering<I>> precond;
            const auto setup = time_kernel(*options.exec, [&] { precond.compute(lower); },
                                           {.samples = options.samples});
            if (precond.info() != Eigen::Success) {
                throw NumericalError(where, "eigen: the incomplete Cholesky failed");
            }
            const auto solve = time_kernel(*options.exec, [&] { x = precond.solve(rhs); },
                                           {.samples = options.samples});
            phases = {{"eigen", "setup", setup}, {"eigen", "solve", solve}};
        } else {
            throw NotSupported(where, "the Eigen peer's incomplete Cholesky is real only here");
        }
    } else {
        Eigen::IncompleteLUT<V, I> precond;
        if (options.factorization.kind == sparse::IluKind::parilut) {
            precond.setFillfactor(static_cast<int>(std::ceil(options.factorization.fill_limit)));
            precond.setDroptol(options.factorization.drop_tolerance);
        }
        run(precond);
    }
    peer_quality = quality(host, b, std::vector<V>(x.data(), x.data() + x.size()));
    return phases;
#else
    (void)A, (void)b, (void)options, (void)peer_quality;
    throw NotSupported(where, "not built with Eigen (install libeigen3-dev and reconfigure)");
#endif
}

/// Why csrilu02 cannot run here, or empty when it can.
template <typename I>
std::string csrilu02_skip_reason(const IluBenchOptions& options)
{
    if (options.exec->kind() != ExecKind::cuda) {
        return "skipped (cuSPARSE runs on CUDA executors; this run is on " +
               options.exec->name() + ")";
    }
    if (options.factorization.kind != sparse::IluKind::ilu0) {
        return std::string("skipped (csrilu02 computes ILU(0), not ") +
               sparse::to_string(options.factorization.kind) + ")";
    }
    if (sizeof(I) != sizeof(int32)) return "skipped (csrilu02 takes 32-bit indices only)";
    return {};
}

/// Loom's OpenMP ILU(0) numeric on A, the comparison when csrilu02 does not run on the GPU
/// machine (the issue saw its analysis fail on CUDA 13).
template <typename V, typename I>
std::vector<Phase> time_omp_numeric(const matrix::Csr<V, I>& A_in, const IluBenchOptions& options)
{
    if (!OmpExecutor::available() || options.exec->kind() == ExecKind::omp) return {};
    const auto omp = OmpExecutor::create();
    const matrix::Csr<V, I> A(omp, A_in);
    sparse::IluHandle<V, I> handle(options.factorization);
    auto f = factor(A, handle);
    const auto numeric = time_kernel(
        *omp, [&] { sparse::ilu_numeric(handle, A, f.L, f.U); }, {.samples = options.samples});
    return {{"loom omp", "numeric", numeric}};
}

/// cuSPARSE csrilu02, timed after everything else has been printed: a failure (its status)
/// is printed as "csrilu02: <status>" and returned in the JSON, never raised.
template <typename V, typename I>
nlohmann::ordered_json time_csrilu02(const matrix::Csr<V, I>& A,
                                     const Factors<V, I>& expected, double loom_numeric,
                                     const IluBenchOptions& options)
{
    if (const auto reason = csrilu02_skip_reason<I>(options); !reason.empty()) {
        fmt::print("csrilu02: {}\n", reason);
        return {{"status", reason}};
    }
    auto vendor = options.factorization;
    vendor.algorithm = sparse::IluAlgorithm::vendor;
    try {
        sparse::IluHandle<V, I> handle(vendor);
        auto f = factor(A, handle);
        const double error =
            std::max(check_against("csrilu02 L", f.L, expected.L),
                     check_against("csrilu02 U", f.U, expected.U));
        const auto symbolic = time_kernel(
            *options.exec, [&] { sparse::ilu_symbolic(handle, A, f.L, f.U); },
            {.samples = options.samples});
        sparse::ilu_numeric(handle, A, f.L, f.U);
        const auto numeric = time_kernel(
            *options.exec, [&] { sparse::ilu_numeric(handle, A, f.L, f.U); },
            {.samples = options.samples});
        fmt::print("csrilu02: ok, relative error {:.1e} against the reference; symbolic "
                   "(analysis) {:.1f} us, numeric {:.1f} us; loom numeric vs csrilu02 {:.2f}x\n",
                   error, symbolic.median * 1e6, numeric.median * 1e6,
                   numeric.median / loom_numeric);
        return {{"status", "ok"},
                {"relative_error", error},
                {"symbolic_s", symbolic.median},
                {"numeric_s", numeric.median},
                {"speedup_of_loom_numeric", numeric.median / loom_numeric}};
    } catch (const std::exception& e) {
        fmt::print("csrilu02: {}\n", e.what());
        return {{"status", e.what()}};
    }
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_ilu(const matrix::Csr<V, I>& A_in, const IluBenchOptions& options)
{
    check_run(where, options.exec, options.samples, options.peer);
    if (options.peer == Peer::cusparse) {
        throw NotSupported(where, "the cuSPARSE csrilu02 peer is not written yet (use eigen on "
                                  "the host, or none)");
    }
    const bool cholesky = sparse::is_cholesky(options.factorization.kind);
    const auto oracle = oracle_for(options);
    const matrix::Csr<V, I> A_oracle(oracle, A_in);
    sparse::IluHandle<V, I> ref_handle(options.factorization);
    const auto expected = factor(A_oracle, ref_handle);

    const matrix::Csr<V, I> A(options.exec, A_in);
    sparse::IluHandle<V, I> handle(options.factorization);
    auto f = factor(A, handle);
    std::vector<V> b_host(A.rows());
    for (size_type i = 0; i < A.rows(); ++i) b_host[i] = V(1 + (i % 7) * 0.25);
    const bool same_pattern =
        f.L.col_idxs().to_host() == expected.L.col_idxs().to_host() &&
        (cholesky || f.U.col_idxs().to_host() == expected.U.col_idxs().to_host());
    double error = std::numeric_limits<double>::quiet_NaN();
    std::string check = fmt::format("factors against the {} backend: ", oracle->name());
    if (!same_pattern && is_threshold(options.factorization.kind)) {
        const double oracle_quality = factor_quality(A_oracle, expected, cholesky, b_host);
        const double f_quality = factor_quality(A, f, cholesky, b_host);
        check_threshold(A, f, f_quality, oracle_quality, options);
        check += fmt::format("pattern differs (ties), within the budget; quality {:.3e} "
                             "against {:.3e}",
                             f_quality, oracle_quality);
    } else {
        error = std::max(check_against("L", f.L, expected.L),
                         cholesky ? 0.0 : check_against("U", f.U, expected.U));
        check += fmt::format("relative error {:.1e}", error);
    }

    const auto symbolic = time_kernel(
        *options.exec, [&] { sparse::ilu_symbolic(handle, A, f.L, f.U); },
        {.samples = options.samples});
    sparse::ilu_numeric(handle, A, f.L, f.U);
    const auto numeric = time_kernel(
        *options.exec, [&] { sparse::ilu_numeric(handle, A, f.L, f.U); },
        {.samples = options.samples});

    FactorSolve<V, I> solves(f, cholesky);
    const auto analysis =
        time_kernel(*options.exec, [&] { solves.analyze(); }, {.samples = options.samples});
    const auto b = matrix::Dense<V>::from_host(options.exec, {A.rows(), 1}, b_host);
    matrix::Dense<V> y(options.exec, {A.rows(), 1});
    matrix::Dense<V> x(options.exec, {A.rows(), 1});
    const auto solve = time_kernel(
        *options.exec, [&] { solves.solve(b, y, x); }, {.samples = options.samples});
    const double loom_quality = quality(A, b_host, x.to_host());

    // The whole preconditioner as a solver builds it (precond::Ilu / Ic with exact triangular
    // solves): factorization and the triangular solvers' analyses.
    const auto system = std::make_shared<const matrix::Csr<V, I>>(A);
    const auto precond_setup = time_kernel(
        *options.exec,
        [&] {
            if (cholesky) {
                precond::Ic<V, I>::build()
                    .with_factorization(options.factorization)
                    .on(options.exec)
                    ->generate(system);
            } else {
                precond::Ilu<V, I>::build()
                    .with_factorization(options.factorization)
                    .on(options.exec)
                    ->generate(system);
            }
        },
        {.samples = options.samples});

    std::vector<Phase> results{{"loom", "symbolic", symbolic},
                               {"loom", "numeric", numeric},
                               {"loom", "solve analysis", analysis},
                               {"loom", "solve", solve},
                               {"loom", "precond setup", precond_setup}};
    double peer_quality = 0;
    if (options.peer == Peer::eigen) {
        const auto peer = time_eigen(A, b_host, options, peer_quality);
        results.insert(results.end(), peer.begin(), peer.end());
    }
    if (options.csrilu02 && options.exec->kind() == ExecKind::cuda &&
        options.factorization.kind == sparse::IluKind::ilu0) {
        const auto omp = time_omp_numeric(A_in, options);
        results.insert(results.end(), omp.begin(), omp.end());
    }

    fmt::print("A         {}: {} x {}, {} stored entries\n", options.a_name, A.rows(), A.cols(),
               A.nnz());
    fmt::print("factors   {}: nnz(L) {}{}, {} levels{}\n",
               sparse::to_string(options.factorization.kind), handle.l_nnz(),
               cholesky ? "" : fmt::format(", nnz(U) {}", handle.u_nnz()), handle.levels(),
               handle.shift() > 0 ? fmt::format(", diagonal shift {:g}", handle.shift()) : "");
    fmt::print("run       {}, {} values, {} indices, median of {} samples\n",
               executor_description(*options.exec), type_name<V>(), type_name<I>(),
               options.samples);
    fmt::print("check     {}\n", check);
    fmt::print("quality   ||A M^-1 b - b|| / ||b||: loom {:.3e}{}\n\n", loom_quality,
               options.peer == Peer::eigen ? fmt::format(", eigen {:.3e}", peer_quality) : "");
    Table table({"library", "phase", "time [us]"});
    auto json_results = nlohmann::ordered_json::array();
    for (const auto& p : results) {
        table.add_row({p.library, p.phase, fmt::format("{:.1f}", p.timing.median * 1e6)});
        json_results.push_back({{"library", p.library},
                                {"phase", p.phase},
                                {"time_s", p.timing.median},
                                {"time_min_s", p.timing.min},
                                {"time_max_s", p.timing.max}});
    }
    table.print();
    std::fflush(stdout);  // all of Loom's results out before the peer that may break the context
    const auto csrilu02 = options.csrilu02
                              ? time_csrilu02(A, expected, numeric.median, options)
                              : nlohmann::ordered_json();
    return {{"benchmark", "ilu"},
            {"a", {{"name", options.a_name}, {"rows", A.rows()}, {"nnz", A.nnz()}}},
            {"kind", sparse::to_string(options.factorization.kind)},
            {"l_nnz", handle.l_nnz()},
            {"u_nnz", handle.u_nnz()},
            {"levels", handle.levels()},
            {"shift", handle.shift()},
            {"executor", options.exec->name()},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"peer", to_string(options.peer)},
            {"relative_error", error},
            {"quality_loom", loom_quality},
            {"quality_peer", options.peer == Peer::eigen ? nlohmann::ordered_json(peer_quality)
                                                         : nlohmann::ordered_json()},
            {"results", json_results},
            {"csrilu02", csrilu02}};
}

#define LOOM_INSTANTIATE_BENCH_ILU(V, I) \
    template nlohmann::ordered_json bench_ilu(const matrix::Csr<V, I>&, const IluBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_ILU)

}  // namespace loom::bench
