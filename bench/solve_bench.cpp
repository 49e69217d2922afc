#include "bench/solve_bench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/log/loggers.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solver.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_solve";

/// The per-iteration overhead the issue asks of the CPU executors (Ginkgo: 1.0-1.5 us).
constexpr double overhead_target_seconds = 2e-6;

/// A solver that stops after exactly `iterations` iterations (no residual criterion), from
/// x0 = 0, so that repeated applies do the same work.
template <typename V, typename I>
std::shared_ptr<const LinOpFactory<V>> fixed_iterations(const std::string& solver,
                                                        size_type iterations,
                                                        const std::shared_ptr<const Executor>& exec)
{
    return solver::from_config<V, I>(nlohmann::json{{"solver", solver},
                                                    {"criteria", {{"max_iters", iterations}}},
                                                    {"initial_guess", "zero"}},
                                     exec);
}

/// A solve of A x = b that is timed, with the outcome of its last run.
template <typename V, typename I>
class TimedSolve {
public:
    TimedSolve(const std::string& solver, size_type iterations, std::shared_ptr<const LinOp<V>> A,
               const matrix::Dense<V>& b)
        : iterations_(iterations),
          op_(fixed_iterations<V, I>(solver, iterations, A->executor())->generate(A)),
          solver_(dynamic_cast<const solver::IterativeSolver<V>&>(*op_)),
          b_(b),
          x_(A->executor(), b.size())
    {}

    void run() { op_->apply(b_, x_); }
    const solver::SolveResult& result() const { return solver_.result(); }
    /// Whether the last run did every iteration asked (it stops early on a breakdown or on
    /// an exactly zero residual).
    bool did_every_iteration() const
    {
        return result().iterations == iterations_ &&
               (iterations_ == 0 || result().reason == stop::Reason::iteration_limit);
    }
    Timing time(const TimingOptions& options)
    {
        return time_kernel(*op_->executor(), [this] { run(); }, options);
    }

private:
    size_type iterations_;
    std::shared_ptr<LinOp<V>> op_;
    const solver::IterativeSolver<V>& solver_;
    const matrix::Dense<V>& b_;
    matrix::Dense<V> x_;
};

struct Overhead {
    size_type iterations = 0;
    double per_iteration = 0;  ///< seconds
    double per_solve = 0;      ///< seconds of a solve doing no iteration
    double diagonal = 0;       ///< the 1 x 1 matrix
};

/// Iterations a 1 x 1 solve can do with normal numbers: its residual shrinks by about eps
/// per iteration, its square (a dot product) must stay above the smallest normal number
/// (subnormal arithmetic is a hundred times slower), and the last is kept as margin.
template <typename V>
size_type tiny_system_iterations()
{
    using R = remove_complex_t<V>;
    const double per_iteration = 2 * std::log10(double(std::numeric_limits<R>::epsilon()));
    const double room = std::log10(double(std::numeric_limits<R>::min()));
    return std::clamp<size_type>(static_cast<size_type>(room / per_iteration) - 1, 1, 5);
}

/// (time of a k-iteration solve - time of a 0-iteration solve) / k on A = [a], b = [1], each
/// the fastest of many batched samples (noise only adds to such small times). In
/// one dimension a Krylov solver is exact after one step up to rounding, and a rounding
/// error can make a residual exactly zero, which ends the solve: several values of a and
/// then smaller k are tried until every iteration runs. nullopt when none does.
template <typename V, typename I>
std::optional<Overhead> measure_overhead(const SolveBenchOptions& options)
{
    const auto& exec = options.exec;
    const auto b = matrix::Dense<V>::from_host(exec, {1, 1}, {V{1}});
    for (auto k = tiny_system_iterations<V>(); k >= 1; --k) {
        for (int candidate = 0; candidate < 64; ++candidate) {
            const double a = 3 + 0.7071 * candidate;
            const auto A = std::make_shared<const matrix::Csr<V, I>>(matrix::Csr<V, I>::from_host(
                exec, {1, 1}, {I{0}, I{1}}, {I{0}}, {static_cast<V>(a)}));
            TimedSolve<V, I> solve(options.solver, k, A, b);
            solve.run();
            if (!solve.did_every_iteration()) continue;
            TimedSolve<V, I> empty(options.solver, 0, A, b);
            const auto with = solve.time({});
            const auto without = empty.time({});
            if (!solve.did_every_iteration()) continue;
            // The fastest samples: on a busy machine other processes only add time.
            return Overhead{k, std::max(with.min - without.min, 0.0) / double(k), without.min, a};
        }
    }
    return std::nullopt;
}

/// The residual norms of `iterations` iterations of the solver on A x = b from x0 = 0, on
/// A's executor.
template <typename V, typename I>
std::vector<double> residual_history(const std::string& solver, size_type iterations,
                                     const matrix::Csr<V, I>& A, const matrix::Dense<V>& b)
{
    const auto& exec = A.executor();
    const auto op = fixed_iterations<V, I>(solver, iterations, exec)
                        ->generate(std::make_shared<const matrix::Csr<V, I>>(exec, A));
    const auto logger = std::make_shared<log::ConvergenceLogger>();
    op->add_logger(logger);
    matrix::Dense<V> x(exec, b.size());
    op->apply(matrix::Dense<V>(exec, b), x);
    std::vector<double> norms;
    for (const auto& step : logger->residual_history()) norms.push_back(step.at(0));
    return norms;
}

/// The solver's first iterations on exec follow the reference's: the same residual norms up
/// to rounding. Returns the number compared; NumericalError naming the first that differs.
template <typename V, typename I>
size_type check_against_reference(const std::string& solver, size_type iterations,
                                  const matrix::Csr<V, I>& A, const matrix::Dense<V>& b)
{
    const auto checked = std::min<size_type>(iterations, 5);
    const auto ref = ReferenceExecutor::create();
    const auto expected = residual_history<V, I>(solver, checked, matrix::Csr<V, I>(ref, A),
                                                 matrix::Dense<V>(ref, b));
    const auto actual = residual_history<V, I>(solver, checked, A, b);
    // Early Krylov residuals are well conditioned: backends differ only by the rounding of
    // their reductions, far below the square root of the unit roundoff.
    const double tolerance =
        10 * std::sqrt(double(std::numeric_limits<remove_complex_t<V>>::epsilon()));
    for (std::size_t it = 0; it < std::max(expected.size(), actual.size()); ++it) {
        const bool both = it < expected.size() && it < actual.size();
        if (!both || std::abs(actual[it] - expected[it]) > tolerance * expected[it]) {
            throw NumericalError(
                where, fmt::format("{} on {} differs from the reference at iteration {}: "
                                   "residual {} instead of {}",
                                   solver, A.executor()->name(), it,
                                   it < actual.size() ? fmt::format("{:.6e}", actual[it]) : "none",
                                   it < expected.size() ? fmt::format("{:.6e}", expected[it])
                                                        : "none"));
        }
    }
    return static_cast<size_type>(expected.size());
}

/// Bytes one iteration must move, for the solvers whose count is known; 0 otherwise. By the
/// model (cg_bytes_formula) or as the fused iteration moves them (cg_fused_bytes_formula).
template <typename V, typename I>
double bytes_per_iteration(const std::string& solver, const matrix::Csr<V, I>& A, bool fused)
{
    const auto kind = names_of(solver::SolverKind{}).find(solver);
    const double model = kind == solver::SolverKind::cg ? 14 : kind == solver::SolverKind::fcg ? 16 : 0;
    const double vectors = model > 0 && fused ? model - 2 : model;
    if (vectors == 0) return 0;
    return double(A.nnz()) * (sizeof(V) + sizeof(I)) + (A.rows() + 1.0) * sizeof(I) +
           vectors * double(A.rows()) * sizeof(V);
}

void check_options(const SolveBenchOptions& options)
{
    if (!options.exec) throw BadInput(where, "no executor given");
    if (options.iterations < 1) {
        throw BadInput(where,
                       fmt::format("need at least one iteration, got {}", options.iterations));
    }
    if (options.samples < 1) {
        throw BadInput(where, fmt::format("need at least one sample, got {}", options.samples));
    }
}

int host_threads(const Executor& exec)
{
    return exec.kind() == ExecKind::omp ? static_cast<const OmpExecutor&>(exec).num_threads() : 1;
}

std::string microseconds(double seconds)
{
    return fmt::format("{:.2f}", seconds * 1e6);
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_solve(const matrix::Csr<V, I>& A_in, const SolveBenchOptions& options)
{
    check_options(options);
    const auto& exec = options.exec;
    if (A_in.rows() != A_in.cols()) {
        throw DimensionMismatch(where, fmt::format("the system matrix must be square, got {} x {}",
                                                   A_in.rows(), A_in.cols()));
    }
    const auto A = std::make_shared<const matrix::Csr<V, I>>(exec, A_in);
    matrix::Dense<V> ones(exec, {A->cols(), 1});
    ones.fill(V{1});
    matrix::Dense<V> b(exec, {A->rows(), 1});
    A->apply(ones, b);

    const auto default_copy_bytes = exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);

    const auto checked = check_against_reference<V, I>(options.solver, options.iterations, *A, b);
    TimedSolve<V, I> solve(options.solver, options.iterations, A, b);
    TimedSolve<V, I> setup_only(options.solver, 0, A, b);
    const auto timing = solve.time({.samples = options.samples});
    if (!solve.did_every_iteration()) {
        throw NumericalError(where, fmt::format("{} stopped after {} of {} iterations ({}); "
                                                "time fewer iterations",
                                                options.solver, solve.result().iterations,
                                                options.iterations, solve.result().message()));
    }
    const auto setup = setup_only.time({.samples = options.samples});
    const double per_iteration =
        std::max(timing.median - setup.median, 0.0) / double(options.iterations);
    const double bytes = bytes_per_iteration(options.solver, *A, false);
    const double fused_bytes = bytes_per_iteration(options.solver, *A, true);
    const auto overhead =
        options.overhead ? measure_overhead<V, I>(options) : std::optional<Overhead>{};

    const auto executor = exec->kind() == ExecKind::omp
                              ? fmt::format("{} ({} threads)", exec->name(), host_threads(*exec))
                              : exec->name();
    fmt::print("matrix    {}: {} x {}, {} stored entries\n", options.matrix_name, A->rows(),
               A->cols(), A->nnz());
    fmt::print(
        "run       {}, {} values, {} indices, {} without preconditioner, b = A * 1, "
        "x0 = 0\n",
        executor, type_name<V>(), type_name<I>(), options.solver);
    fmt::print(
        "timing    (median of {} solves of {} iterations - median of {} solves of 0) / "
        "{}\n",
        options.samples, options.iterations, options.samples, options.iterations);
    fmt::print("checked   the residuals of the first {} iterations match the reference's\n",
               checked - 1);
    fmt::print("copy      {:.1f} GB/s ({} MiB, read + write counted)\n",
               copy.bytes_per_second / 1e9, copy.bytes >> 20);
    if (bytes > 0) {
        fmt::print(
            "bytes     {:.1f} MB per iteration = {} with |V| = {}, |I| = {}:\n"
            "          {}\n",
            bytes / 1e6, cg_bytes_formula, sizeof(V), sizeof(I), cg_bytes_terms);
        fmt::print(
            "fused     {:.1f} MB per iteration moved by the fused iteration = {}:\n"
            "          {}\n",
            fused_bytes / 1e6, cg_fused_bytes_formula, cg_fused_bytes_terms);
    } else {
        fmt::print("bytes     not counted for {} (only for cg and fcg)\n", options.solver);
    }
    if (overhead) {
        fmt::print(
            "overhead  on A = [{:g}] (1 x 1): (time of a solve of {} iteration{} - time of "
            "one of 0) / {},\n          fastest of 50 batched samples each; target <= {:g} "
            "us per iteration on the CPU\n",
            overhead->diagonal, overhead->iterations, overhead->iterations == 1 ? "" : "s",
            overhead->iterations, overhead_target_seconds * 1e6);
    }
    fmt::print("\n");

    Table table({"solver", "time/iter [us]", "GB/s", "of copy BW", "fused of copy BW",
                 "setup [us]", "1x1 overhead/iter [us]", "1x1 setup [us]"});
    const auto fraction = [&](double moved) {
        return moved > 0 ? fmt::format("{:.1f}%", 100 * moved / per_iteration /
                                                      copy.bytes_per_second)
                         : std::string("-");
    };
    table.add_row(
        {options.solver, microseconds(per_iteration),
         bytes > 0 ? fmt::format("{:.1f}", bytes / per_iteration / 1e9) : "-", fraction(bytes),
         fraction(fused_bytes),
         microseconds(setup.median), overhead ? microseconds(overhead->per_iteration) : "-",
         overhead ? microseconds(overhead->per_solve) : "-"});
    table.print();
    if (options.overhead && !overhead) {
        fmt::print(
            "\n1x1 overhead: not measured ({} solves a 1 x 1 system exactly in one "
            "step for every value tried)\n",
            options.solver);
    }

    const auto optional_number = [](bool known, double value) {
        return known ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
    };
    return {{"benchmark", "solve"},
            {"matrix", matrix_report(options, *A)},
            {"executor", exec->name()},
            {"threads", host_threads(*exec)},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"solver", options.solver},
            {"preconditioner", "none"},
            {"iterations", options.iterations},
            {"samples", options.samples},
            {"time_per_iteration_s", per_iteration},
            {"solve_time_s", timing.median},
            {"setup_time_s", setup.median},
            {"bytes_per_iteration", optional_number(bytes > 0, bytes)},
            {"bytes_formula", bytes > 0 ? cg_bytes_formula : ""},
            {"gb_per_s", optional_number(bytes > 0, bytes / per_iteration / 1e9)},
            {"fraction_of_copy_bandwidth",
             optional_number(bytes > 0, bytes / per_iteration / copy.bytes_per_second)},
            {"fused_bytes_per_iteration", optional_number(fused_bytes > 0, fused_bytes)},
            {"fused_bytes_formula", fused_bytes > 0 ? cg_fused_bytes_formula : ""},
            {"fused_fraction_of_copy_bandwidth",
             optional_number(fused_bytes > 0,
                             fused_bytes / per_iteration / copy.bytes_per_second)},
            {"copy_bandwidth",
             {{"gb_per_s", copy.bytes_per_second / 1e9},
              {"bytes", copy.bytes},
              {"threads", copy.threads}}},
            {"overhead_1x1",
             overhead ? nlohmann::ordered_json{{"per_iteration_s", overhead->per_iteration},
                                               {"solve_without_iterations_s", overhead->per_solve},
                                               {"iterations", overhead->iterations},
                                               {"matrix_value", overhead->diagonal},
                                               {"target_s", overhead_target_seconds}}
                      : nlohmann::ordered_json()}};
}

#define LOOM_INSTANTIATE_BENCH_SOLVE(V, I) \
    template nlohmann::ordered_json bench_solve(const matrix::Csr<V, I>&, const SolveBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_SOLVE)

}  // namespace loom::bench
