// loom solve [A.mtx [b.mtx] | --generate SPEC] [-o x.mtx]: solves A x = b with a Krylov solver
// and a preconditioner chosen on the command line or described in a JSON file, shows the
// residual as it goes (on a terminal), then the outcome checked by the true residual.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "amg_options.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/blas/vector.hpp"
#include "loom/log/loggers.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/solver/solver.hpp"
#include "mpi_solve.hpp"
#include "solve_batch.hpp"
#include "solve_history.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_problem = "poisson3d:64";

struct SolveOptions {
    std::string matrix;
    std::string rhs;
    std::string spec;
    std::string output;
    std::string solver = "cg";
    /// Jacobi: defined for every solver (it keeps CG's operator Hermitian positive definite),
    /// no setup to speak of, and no breakdown on the pivots where ILU(0) can fail. Where it
    /// does nothing (a constant diagonal, as Poisson's) it costs one scaling per iteration.
    std::string precond = "jacobi";
    double tolerance = 1e-8;
    size_type max_iters = 1000;
    size_type restart = 30;
    std::string inner_precision = "working";
    std::string config;
    std::string coordinates;
    /// A generator's nodal coordinates as inline rows (config JSON), when no file is named.
    nlohmann::json generated_coordinates;
    size_type dofs_per_node = 0;
    AmgAggregationOptions amg;
    ExecOptions run;
    std::string history;
    bool quiet = false;
    std::string batch;
    bool overwrite_unconverged = false;
    bool verbose = false;
    mpi::Layout layout;

    std::string problem() const { return matrix.empty() ? spec : matrix; }
};

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The solver stack the command-line flags describe, in the JSON of solver/config.hpp.
nlohmann::json config_from_flags(const SolveOptions& options)
{
    nlohmann::json config{
        {"solver", options.solver},
        {"criteria", {{"max_iters", options.max_iters}, {"relative_residual", options.tolerance}}}};
    // IR's inner solver sits where other solvers have their preconditioner: IR with Jacobi
    // is the Jacobi iteration.
    const auto kind = names_of(solver::SolverKind{}).parse(options.solver, "loom solve");
    // --solver amg is the multigrid iteration itself: it takes no preconditioner.
    if (kind != solver::SolverKind::amg) {
        config[kind == solver::SolverKind::ir ? "inner" : "preconditioner"] = options.precond;
    }
    // The hierarchy's options, where --solver amg or --precond amg keeps them.
    nlohmann::json amg{{"type", "amg"}};
    if (!options.coordinates.empty()) {
        amg["coordinates"] = options.coordinates;
    } else if (!options.generated_coordinates.is_null()) {
        amg["coordinates"] = options.generated_coordinates;
    }
    if (amg.contains("coordinates") && options.dofs_per_node > 0) {
        amg["dofs_per_node"] = options.dofs_per_node;
    }
    const AmgAggregationOptions defaults;
    if (options.amg.aggregation != defaults.aggregation) amg["aggregation"] = options.amg.aggregation;
    if (options.amg.pairwise_passes != defaults.pairwise_passes) {
        amg["pairwise_passes"] = options.amg.pairwise_passes;
    }
    if (options.amg.unsmoothed) amg["smoothing"] = false;
    if (amg.size() > 1) {
        if (kind == solver::SolverKind::amg) {
            config["amg"] = amg;
        } else if (names_of(solver::PreconditionerKind{}).find(options.precond) ==
                   solver::PreconditionerKind::amg) {
            config[kind == solver::SolverKind::ir ? "inner" : "preconditioner"] = amg;
        } else {
            throw BadInput("loom solve", std::string(options.coordinates.empty()
                                                         ? "--aggregation, --pairwise-passes "
                                                           "and --unsmoothed need"
                                                         : "--coordinates needs") +
                                             " --precond amg or --solver amg");
        }
    }
    if (kind == solver::SolverKind::gmres || kind == solver::SolverKind::cb_gmres ||
        kind == solver::SolverKind::fgmres || kind == solver::SolverKind::gcr) {
        config["krylov_dim"] = options.restart;
    }
    if (kind == solver::SolverKind::ir) config["inner_precision"] = options.inner_precision;
    return config;
}

/// One line on a terminal, rewritten in place ("\r") at most ten times a second, showing
/// the outer solver's iteration and relative residual (the worst over the right-hand sides).
class ProgressLine final : public log::Logger {
public:
    explicit ProgressLine(std::FILE* out) : out_(out) {}

    void on_solve_started(const log::SolveStartEvent& e) override
    {
        if (solver_ != nullptr) return;  // an inner solver
        solver_ = e.solver;
        rhs_norms_.assign(e.rhs_norms.begin(), e.rhs_norms.end());
        start_ = clock::now();
        next_draw_ = start_;
    }

    void on_iteration(const log::IterationEvent& e) override
    {
        if (e.solver != solver_) return;
        const auto now = clock::now();
        if (now < next_draw_) return;
        next_draw_ = now + std::chrono::milliseconds(100);
        double worst = 0;
        std::size_t running = 0;
        for (std::size_t j = 0; j < e.residual_norms.size(); ++j) {
            const double rhs = rhs_norms_[j] > 0 ? rhs_norms_[j] : 1.0;
            worst = std::max(worst, e.residual_norms[j] / rhs);
            running += e.status[j].stopped() ? 0 : 1;
        }
        auto line =
            fmt::format("  iteration {:>6}   relative residual {:.3e}   {:.1f} s", e.iteration,
                        worst, std::chrono::duration<double>(now - start_).count());
        if (e.residual_norms.size() > 1) {
            line += fmt::format("   {} of {} columns running", running, e.residual_norms.size());
        }
        draw(line);
    }

    void on_solve_finished(const log::SolveEndEvent& e) override
    {
        if (e.solver != solver_) return;
        draw("");
        solver_ = nullptr;
    }

private:
    using clock = std::chrono::steady_clock;

    /// Overwrites the previous line, padding with blanks where it was longer.
    void draw(const std::string& line)
    {
        const auto pad = width_ > line.size() ? width_ - line.size() : 0;
        fmt::print(out_, "\r{}{:{}}{}", line, "", pad, line.empty() ? "\r" : "");
        std::fflush(out_);
        width_ = line.size();
    }

    std::FILE* out_;
    const void* solver_ = nullptr;
    std::vector<double> rhs_norms_;
    clock::time_point start_;
    clock::time_point next_draw_;
    std::size_t width_ = 0;
};

/// ||b_j - A x_j|| / ||b_j|| (||b_j - A x_j|| where b_j = 0) per column, from scratch.
template <typename V>
std::vector<double> true_relative_residuals(const LinOp<V>& A, const matrix::Dense<V>& b,
                                            const matrix::Dense<V>& x)
{
    using R = remove_complex_t<V>;
    const auto& exec = A.executor();
    matrix::Dense<V> r(exec, b);
    A.apply(V{-1}, x, V{1}, r);
    matrix::Dense<R> r_norms(exec, {1, b.cols()});
    matrix::Dense<R> b_norms(exec, {1, b.cols()});
    blas::nrm2(r, r_norms);
    blas::nrm2(b, b_norms);
    const auto rn = r_norms.to_host();
    const auto bn = b_norms.to_host();
    std::vector<double> relative(rn.size());
    for (std::size_t j = 0; j < rn.size(); ++j) {
        relative[j] = bn[j] > 0 ? double(rn[j]) / double(bn[j]) : double(rn[j]);
    }
    return relative;
}

/// BadInput naming the first NaN or infinity of b: no solve reaches a finite x from it, and
/// the residuals it gives compare as nothing (a NaN residual printed as 0).
template <typename V>
void check_finite(const matrix::Dense<V>& b, const std::string& name)
{
    const auto values = b.to_host();  // row-major
    for (std::size_t k = 0; k < values.size(); ++k) {
        if (!is_finite(values[k])) {
            throw BadInput("loom solve",
                           fmt::format("{} holds a non-finite value ({}) at row {}, column {}",
                                       name, readable(values[k]), k / b.cols() + 1,
                                       k % b.cols() + 1));
        }
    }
}

/// "1.23 s", "45.6 ms" or "7.89 us".
std::string duration(double seconds)
{
    if (seconds >= 1) return fmt::format("{:.3g} s", seconds);
    if (seconds >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
    return fmt::format("{:.3g} us", seconds * 1e6);
}

std::string describe_executor(const Executor& exec)
{
    if (exec.kind() == ExecKind::omp) {
        return fmt::format("{} ({} threads)", exec.name(),
                           static_cast<const OmpExecutor&>(exec).num_threads());
    }
    return exec.name();
}

/// The multigrid hierarchy of `solver`'s preconditioner (IR's inner solver for --solver amg),
/// level by level, when it has one.
template <typename V>
void print_hierarchy(const solver::IterativeSolver<V>& solver)
{
    using Amg = solver::Multigrid<V, index_type>;
    if (const auto* amg = dynamic_cast<const Amg*>(solver.preconditioner().get())) {
        fmt::print("hierarchy\n{}", amg->report());
    }
}

/// Whether the flags ask for a multigrid hierarchy (--precond amg, --solver amg).
bool uses_amg(const SolveOptions& options)
{
    return options.config.empty() &&
           (names_of(solver::PreconditionerKind{}).find(options.precond) ==
                solver::PreconditionerKind::amg ||
            names_of(solver::SolverKind{}).parse(options.solver, "loom solve") ==
                solver::SolverKind::amg);
}

/// A generator's nodal coordinates (elasticity3d) as the config's inline rows.
template <typename V>
nlohmann::json coordinate_rows(const matrix::Dense<V>& coordinates)
{
    const auto values = coordinates.to_host();  // packed rows
    const size_type dims = coordinates.cols();
    nlohmann::json rows = nlohmann::json::array();
    for (size_type node = 0; node < coordinates.rows(); ++node) {
        auto& row = rows.emplace_back(nlohmann::json::array());
        for (size_type d = 0; d < dims; ++d) row.push_back(std::real(values[node * dims + d]));
    }
    return rows;
}

template <typename V>
int run(const SolveOptions& given)
{
    const auto exec = given.run.executor();
    const auto host = detail::host_executor();

    auto clock_start = std::chrono::steady_clock::now();
    auto problem = given.matrix.empty()
                       ? matrix::generate_problem<V, index_type>(host, given.spec)
                       : matrix::GeneratedProblem<V, index_type>{read_matrix<V>(given.matrix)};
    const auto A = std::make_shared<const matrix::Csr<V, index_type>>(exec, problem.A);
    const double load_seconds = seconds_since(clock_start);

    // A generator's nodal coordinates (elasticity3d) give the hierarchy its rigid-body modes
    // unless the command line names coordinates of its own.
    auto options = given;
    if (uses_amg(options) && options.coordinates.empty() && problem.coordinates.rows() > 0) {
        options.generated_coordinates = coordinate_rows(problem.coordinates);
        options.dofs_per_node = problem.dofs_per_node;
    }
    const auto factory = options.config.empty()
                             ? solver::from_config<V, index_type>(config_from_flags(options), exec)
                             : solver::from_config_file<V, index_type>(options.config, exec);

    matrix::Dense<V> b;
    if (options.rhs.empty()) {
        matrix::Dense<V> ones(exec, {A->cols(), 1});
        ones.fill(V{1});
        b = matrix::Dense<V>(exec, {A->rows(), 1});
        A->apply(ones, b);
    } else {
        b = matrix::Dense<V>(exec, matrix::read_dense<V>(host, options.rhs));
    }
    check_finite(b, options.rhs.empty() ? "b = A * 1" : "'" + options.rhs + "'");
    matrix::Dense<V> x(exec, {A->cols(), b.cols()});
    x.fill(V{0});

    clock_start = std::chrono::steady_clock::now();
    const auto solver = factory->generate(A);
    const double setup_seconds = seconds_since(clock_start);
    const bool live = !options.quiet && ::isatty(STDERR_FILENO) == 1;
    if (live) solver->add_logger(std::make_shared<ProgressLine>(stderr));
    const auto convergence = std::make_shared<log::ConvergenceLogger>();
    if (!options.history.empty()) solver->add_logger(convergence);

    solver->apply(b, x);
    const auto& result = solver->result();
    double worst_residual = 0;
    for (const double residual : true_relative_residuals(*A, b, x)) {
        // NaN wins: a NaN residual (a NaN in A, or a breakdown) must not read as 0.
        if (!(residual <= worst_residual)) worst_residual = residual;
    }

    fmt::print("system    {}: {} x {}, {} nonzeros, {} right-hand side{}{}\n", options.problem(),
               A->rows(), A->cols(), A->nnz(), b.cols(), b.cols() == 1 ? "" : "s",
               options.rhs.empty() ? " (b = A * 1)" : "");
    fmt::print("solver    {}, stopping at {}\n",
               options.config.empty()
                   ? fmt::format("{}, preconditioner {}", options.solver, options.precond)
                   : fmt::format("{} from {}", solver->name(), options.config),
               solver->criteria()->description());
    fmt::print("run       {}, {} values, x0 = 0\n", describe_executor(*exec), type_name<V>());
    fmt::print("outcome   {}\n", result.message());
    fmt::print("residual  {:.3e} = ||b - A x|| / ||b||, recomputed{}\n", worst_residual,
               b.cols() > 1 ? " (worst column)" : "");
    fmt::print("time      {} solve ({} per iteration), {} setup, {} {} A\n",
               duration(result.seconds),
               duration(result.iterations > 0 ? result.seconds / double(result.iterations) : 0.0),
               duration(setup_seconds), duration(load_seconds),
               options.matrix.empty() ? "to generate" : "to read");
    if (options.verbose && !options.generated_coordinates.is_null()) {
        fmt::print("amg       rigid-body modes of the generator's coordinates ({} nodes, {} "
                   "unknowns per node)\n",
                   problem.coordinates.rows(), problem.dofs_per_node);
    }
    if (options.verbose) print_hierarchy(*solver);

    if (!options.output.empty()) {
        const auto target =
            solution_path(options.output, result.converged(), options.overwrite_unconverged);
        write_dense(target, matrix::Dense<V>(host, x));
        fmt::print("wrote     {}{}\n", target,
                   target == options.output ? "" : " (not converged; -o's file left as it was)");
    }
    if (!options.history.empty()) {
        write_history(options.history, *convergence, result);
        fmt::print("wrote     {}\n", options.history);
    }
    if (!result.converged()) {
        fmt::print(stderr, "loom solve: not converged: {}\n", result.message());
        return exit_not_converged;
    }
    return exit_ok;
}

/// The value type: as asked, or (auto) complex-double for a complex matrix file, else double.
std::string value_type_for(const SolveOptions& options)
{
    return options.run.value_type(!options.matrix.empty() && holds_complex_values(options.matrix));
}

#if LOOM_CLI_WITH_MPI
/// The options as the MPI side takes them (mpi_solve.hpp): under mpirun every rank solves.
mpi::SolveRequest mpi_request(const SolveOptions& options)
{
    std::string config = config_from_flags(options).dump();
    if (!options.config.empty()) {
        std::ifstream in(options.config);
        config.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return {options.matrix, options.spec, options.rhs, options.output, config,
            options.config.empty()
                ? fmt::format("{}, preconditioner {}", options.solver, options.precond)
                : fmt::format("from {}", options.config),
            options.run, value_type_for(options), options.overwrite_unconverged,
            options.history, options.layout};
}
#endif

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<SolveOptions>();
    auto* matrix = sub.add_option("matrix", options->matrix, "System matrix A (.mtx or .bin)");
    sub.add_option("rhs", options->rhs,
                   "Right-hand side(s) b (Matrix Market array; default b = A * ones)")
        ->needs(matrix);
    // A later flag wins over an earlier one, so that scripts/run-main.sh "$@" can override.
    sub.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    auto* generate = sub.add_option("--generate", options->spec,
                                    "Solve for a generated matrix instead (SPEC below; the "
                                    "default without a matrix is poisson3d:64)");
    matrix->excludes(generate);
    generate->excludes(matrix);
    sub.add_option("-o,--output", options->output,
                   "Where to write x (Matrix Market array, X.mtx); when the solve does not "
                   "converge, to X.not-converged.mtx instead");
    sub.add_flag("--overwrite-unconverged", options->overwrite_unconverged,
                 "Write x to -o's file even when the solve did not converge");
    auto* solver = add_choice<solver::SolverKind>(
        sub, "--solver", options->solver,
        "Krylov solver (cg and fcg need a Hermitian positive definite A)");
    auto* precond = add_choice<solver::PreconditionerKind>(
        sub, "--precond", options->precond, "Preconditioner (with ir: its inner solver)");
    auto* tolerance =
        sub.add_option("--tol", options->tolerance, "Stop when ||b - A x|| <= tol * ||b||")
            ->check(non_negative_number())
            ->capture_default_str();
    auto* max_iters = sub.add_option("--max-iters", options->max_iters, "Iteration limit")
                          ->check(non_negative_number())
                          ->capture_default_str();
    auto* restart = sub.add_option("--restart", options->restart,
                                   "GMRES, CB-GMRES, FGMRES and GCR restart length")
                        ->check(positive_number())
                        ->capture_default_str();
    auto* inner_precision = add_choice<solver::InnerPrecision>(
        sub, "--inner-precision", options->inner_precision,
        "With ir: its inner solve in the working precision or the lower one "
        "(float for double)");
    auto* config = sub.add_option("--config", options->config,
                                  "Solver stack from a JSON file instead of the flags above")
                       ->check(CLI::ExistingFile);
    auto* coordinates = sub.add_option(
        "--coordinates", options->coordinates,
        "With amg: nodal coordinates (dense .mtx, nodes x 2 or 3), the rigid-body modes as the "
        "near-null space (elasticity)");
    auto* dofs = sub.add_option("--dofs-per-node", options->dofs_per_node,
                                "With --coordinates: unknowns per node (default: one per "
                                "coordinate)")
                     ->check(positive_number())
                     ->needs(coordinates);
    add_amg_aggregation_options(sub, options->amg);
    for (auto* flag : {solver, precond, tolerance, max_iters, restart, inner_precision,
                       coordinates, dofs}) {
        config->excludes(flag);
    }
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named_or_auto});
    sub.add_option("--history", options->history,
                   "Write the residual history as CSV: iteration,column,residual");
    mpi::add_layout_options(sub, options->layout);
    sub.add_flag("-q,--quiet", options->quiet,
                 "No live progress line (none off a terminal either)");
    sub.add_flag("-v,--verbose", options->verbose,
                 "Also print the preconditioner's setup (the multigrid hierarchy per level)");
    sub.footer(fmt::format(
        "Prints the iterations, the relative residual ||b - A x|| / ||b|| recomputed from x, the\n"
        "time and why the solver stopped. Exit status: 0 converged, 1 bad command line, 2 error\n"
        "(bad file, unsupported option), 3 not converged (iteration or time limit, breakdown,\n"
        "NaN; the message says which).\n"
        "--config FILE describes the stack in JSON, e.g.\n"
        "  {{\"solver\": \"gmres\", \"krylov_dim\": 30,\n"
        "   \"preconditioner\": {{\"type\": \"block-jacobi\", \"max_block_size\": 16}},\n"
        "   \"criteria\": {{\"max_iters\": 1000, \"relative_residual\": 1e-8}}}}\n"
        "(see include/loom/solver/config.hpp for every key).\n"
        "Solvers:\n{}Preconditioners:\n{}SPEC:\n{}",
        names_of(solver::SolverKind{}).help(), names_of(solver::PreconditionerKind{}).help(),
        generator_help));
    sub.add_option("--batch", options->batch,
                   "Solve every FOLDER/NAME.mtx (b: NAME_b.mtx, else A * ones) in one batched "
                   "call, x to OUTDIR/NAME_x.mtx with -o OUTDIR; solvers cg, bicgstab, gmres, ir; "
                   "preconditioners none, jacobi, block-jacobi")
        ->excludes(matrix)
        ->excludes(generate)
        ->excludes(config);
    sub.callback([options] {
        if (options->matrix.empty() && options->spec.empty()) options->spec = default_problem;
        // -o names a file of x, or with --batch the folder of every x: checked after parsing,
        // when it is known which (still a command-line error).
        if (options->batch.empty() && !options->output.empty()) {
            try {
                check_dense_output(options->output);
            } catch (const loom::Error& e) {
                throw CLI::ValidationError("--output", e.what());
            }
        }
    });
    return [options] {
        if (!mpi::launched_by_mpirun()) mpi::check_without_mpirun(options->layout, "loom solve");
        if (!options->batch.empty()) {
            return solve_batch({options->batch, options->output, options->solver, options->precond,
                                options->tolerance, options->max_iters, options->restart,
                                options->run, options->quiet});
        }
#if LOOM_CLI_WITH_MPI
        if (mpi::launched_by_mpirun()) return mpi::solve(mpi_request(*options));
#endif
        return with_value_type(value_type_for(*options),
                               [&]<typename V>(std::type_identity<V>) { return run<V>(*options); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(solve, "Solve A x = b with a Krylov solver (default: 3D Poisson, 64^3)",
                      loom::cli::setup);
