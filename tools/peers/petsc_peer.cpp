// loom-peer-petsc: time to solution of Loom's preconditioned Krylov solvers next to PETSc's
// (KSP + PC, hypre's BoomerAMG through PCHYPRE) on the same matrices, right-hand side,
// tolerance and machine, in one run. A program of its own rather than a `loom bench` mode:
// PETSc drags about a hundred shared libraries into a process, and the loom command must
// start fast for everybody who never compares with PETSc.
//
//   loom-peer-petsc [A.mtx ...] [--generate poisson3d:64 ...] [--method ic,ilu,amg,jacobi]
//                   [--threads 2] [--tolerance 1e-8] [--reps 3] [--json out.json]
//
// Both sides use b = ones and x0 = 0, stop at ||b - A x|| <= tol ||b|| (PETSc: CG with the
// unpreconditioned norm, GMRES(30) preconditioned on the right, so both measure the true
// residual), and each answer is checked by its true residual before its time is reported.
// Loom runs on OpenMP with --threads threads; PETSc runs in one process (it parallelises
// by MPI ranks, not threads), which the table says.
#include <petscksp.h>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "loom/loom.hpp"

namespace {

using V = double;
using I = loom::int32;
using Csr = loom::matrix::Csr<V, I>;
using Clock = std::chrono::steady_clock;

/// One preconditioned solver, as Loom's JSON config and as PETSc's KSP/PC names.
struct Method {
    std::string name;
    std::string loom_solver;
    std::string loom_precond;
    KSPType ksp;
    PCType pc;
    bool boomeramg = false;
};

const std::vector<Method>& methods()
{
    static const std::vector<Method> all = {
        {"jacobi", "cg", "jacobi", KSPCG, PCJACOBI},
        {"ic", "cg", "ic", KSPCG, PCICC},
        {"ilu", "gmres", "ilu", KSPGMRES, PCILU},
        {"bicgstab-ilu", "bicgstab", "ilu", KSPBCGS, PCILU},
        // Loom's ILUT against PETSc's default ILU, ILU(0) (PETSc's PCILU has no ILUT).
        {"ilut", "gmres", "ilut", KSPGMRES, PCILU},
        {"bicgstab-ilut", "bicgstab", "ilut", KSPBCGS, PCILU},
        {"amg", "cg", "amg", KSPCG, PCHYPRE, true},
    };
    return all;
}

struct Outcome {
    double setup_s = 0;
    double solve_s = 0;
    long iterations = 0;
    double residual = 0;  ///< true relative residual
    bool converged = false;
};

/// Set by --cpu-time: time by the process's CPU clock, not the wall clock. On a shared,
/// loaded machine a single-threaded run spends most of its wall time waiting for a core
/// (measured: 0.17 s wall for 0.03 s of CPU), which no library's work explains.
bool cpu_clock = false;

double now_s()
{
    if (cpu_clock) {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    }
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double seconds_since(double start) { return now_s() - start; }

/// ||b - A x|| / ||b|| for b = ones, on the host.
double true_relative_residual(const Csr& A, const std::vector<V>& x)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto vals = A.values().to_host();
    double rr = 0;
    for (std::size_t row = 0; row + 1 < ptrs.size(); ++row) {
        double r = 1;
        for (auto k = ptrs[row]; k < ptrs[row + 1]; ++k) r -= vals[k] * x[cols[k]];
        rr += r * r;
    }
    return std::sqrt(rr) / std::sqrt(static_cast<double>(A.rows()));
}

double median(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

std::string loom_config(const Method& m, double tolerance, long max_iterations)
{
    nlohmann::json config = {{"solver", m.loom_solver},
                             {"preconditioner", m.loom_precond},
                             {"initial_guess", "zero"},
                             {"criteria",
                              {{"max_iters", max_iterations}, {"relative_residual", tolerance}}}};
    if (m.loom_solver == "gmres") config["krylov_dim"] = 30;
    return config.dump();
}

Outcome run_loom(const std::shared_ptr<const Csr>& A, const Method& m, double tolerance,
                 long max_iterations, int reps, const std::shared_ptr<const loom::Executor>& exec)
{
    const auto factory = loom::solver::from_config<V, I>(loom_config(m, tolerance, max_iterations), exec);
    const auto n = A->rows();
    loom::matrix::Dense<V> b(exec, loom::dim2{n, 1});
    loom::matrix::Dense<V> x(exec, loom::dim2{n, 1});
    b.fill(V{1});
    std::vector<double> setups, solves;
    Outcome out;
    for (int rep = 0; rep < reps; ++rep) {
        double start = now_s();
        const auto solver = factory->generate(A);
        exec->synchronize();
        setups.push_back(seconds_since(start));
        start = now_s();
        solver->apply(b, x);
        exec->synchronize();
        solves.push_back(seconds_since(start));
        const auto& result =
            dynamic_cast<const loom::solver::IterativeSolver<V>&>(*solver).result();
        out.iterations = static_cast<long>(result.iterations);
        out.converged = result.reason == loom::stop::Reason::converged;
    }
    out.setup_s = median(setups);
    out.solve_s = median(solves);
    out.residual = true_relative_residual(*A, x.to_host());
    return out;
}

void check(PetscErrorCode code, const char* what)
{
    if (code != 0) throw loom::Error("loom-peer-petsc", fmt::format("PETSc failed in {} ({})", what, static_cast<int>(code)));
}

Outcome run_petsc(const Csr& A, const Method& m, double tolerance, long max_iterations, int reps)
{
    // PETSc's AIJ takes the CSR arrays in place (sorted columns, as Loom's reader gives).
    auto ptrs = A.row_ptrs().to_host();
    auto cols = A.col_idxs().to_host();
    auto vals = A.values().to_host();
    const auto n = static_cast<PetscInt>(A.rows());
    Mat mat;
    check(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, n, n, ptrs.data(), cols.data(), vals.data(), &mat),
          "MatCreateSeqAIJWithArrays");
    Vec b, x;
    check(MatCreateVecs(mat, &x, &b), "MatCreateVecs");
    check(VecSet(b, 1.0), "VecSet");
    std::vector<double> setups, solves;
    Outcome out;
    for (int rep = 0; rep < reps; ++rep) {
        KSP ksp;
        PC pc;
        check(KSPCreate(PETSC_COMM_SELF, &ksp), "KSPCreate");
        check(KSPSetOperators(ksp, mat, mat), "KSPSetOperators");
        check(KSPSetType(ksp, m.ksp), "KSPSetType");
        check(KSPGetPC(ksp, &pc), "KSPGetPC");
        check(PCSetType(pc, m.pc), "PCSetType");
        if (m.boomeramg) check(PCHYPRESetType(pc, "boomeramg"), "PCHYPRESetType");
        if (std::string(m.ksp) == KSPGMRES) {
            check(KSPGMRESSetRestart(ksp, 30), "KSPGMRESSetRestart");
            check(KSPSetPCSide(ksp, PC_RIGHT), "KSPSetPCSide");
        } else if (std::string(m.ksp) == KSPBCGS) {
            // Right preconditioning: BiCGSTAB then tests the true (unpreconditioned) residual.
            check(KSPSetPCSide(ksp, PC_RIGHT), "KSPSetPCSide");
            check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
        } else {
            check(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
        }
        check(KSPSetTolerances(ksp, tolerance, 0.0, PETSC_DEFAULT, static_cast<PetscInt>(max_iterations)),
              "KSPSetTolerances");
        check(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE), "KSPSetInitialGuessNonzero");
        double start = now_s();
        check(KSPSetUp(ksp), "KSPSetUp");
        check(PCSetUp(pc), "PCSetUp");
        setups.push_back(seconds_since(start));
        start = now_s();
        check(KSPSolve(ksp, b, x), "KSPSolve");
        solves.push_back(seconds_since(start));
        PetscInt iterations = 0;
        KSPConvergedReason reason;
        check(KSPGetIterationNumber(ksp, &iterations), "KSPGetIterationNumber");
        check(KSPGetConvergedReason(ksp, &reason), "KSPGetConvergedReason");
        out.iterations = iterations;
        out.converged = reason > 0;
        check(KSPDestroy(&ksp), "KSPDestroy");
    }
    const PetscScalar* xs;
    check(VecGetArrayRead(x, &xs), "VecGetArrayRead");
    out.residual = true_relative_residual(A, std::vector<V>(xs, xs + n));
    check(VecRestoreArrayRead(x, &xs), "VecRestoreArrayRead");
    VecDestroy(&x);
    VecDestroy(&b);
    MatDestroy(&mat);
    out.setup_s = median(setups);
    out.solve_s = median(solves);
    return out;
}

struct Options {
    std::vector<std::string> files;
    std::vector<std::string> specs;
    std::vector<std::string> methods{"ic", "ilu", "amg", "jacobi"};
    int threads = 2;
    double tolerance = 1e-8;
    long max_iterations = 10000;
    int reps = 3;
    std::string json;
};

std::string status(const Outcome& o, double tolerance)
{
    if (!o.converged) return "no";
    return o.residual <= 10 * tolerance ? "yes" : "wrong";
}

nlohmann::json as_json(const Outcome& o)
{
    return {{"setup_s", o.setup_s},       {"solve_s", o.solve_s},
            {"total_s", o.setup_s + o.solve_s}, {"iterations", o.iterations},
            {"true_relative_residual", o.residual}, {"converged", o.converged}};
}

int run(const Options& options)
{
    const auto exec = loom::OmpExecutor::create(options.threads);
    std::vector<std::pair<std::string, std::shared_ptr<const Csr>>> matrices;
    for (const auto& path : options.files) {
        matrices.emplace_back(path, std::make_shared<const Csr>(loom::matrix::read_csr<V, I>(exec, path)));
    }
    for (const auto& spec : options.specs) {
        matrices.emplace_back(spec, std::make_shared<const Csr>(loom::matrix::generate_csr<V, I>(exec, spec)));
    }
    fmt::print("Loom on OpenMP with {} threads; PETSc {}.{}.{} in one process; b = ones, x0 = 0, "
               "to {:.0e} of ||b||, median of {} runs, {} time\n\n",
               options.threads, PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR,
               options.tolerance, options.reps, cpu_clock ? "CPU" : "wall");
    fmt::print("{:<28} {:<7} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>9} {:>6} {:>8}\n", "matrix",
               "method", "loom set", "loom sol", "loom tot", "its", "petsc set", "petsc sol",
               "petsc tot", "its", "ratio");
    auto report = nlohmann::json::array();
    for (const auto& [name, A] : matrices) {
        for (const auto& method_name : options.methods) {
            const auto found = std::find_if(methods().begin(), methods().end(),
                                            [&](const Method& m) { return m.name == method_name; });
            if (found == methods().end()) {
                throw loom::BadInput("loom-peer-petsc", "unknown method '" + method_name + "'");
            }
            Outcome mine, theirs;
            std::string mine_error;
            try {
                mine = run_loom(A, *found, options.tolerance, options.max_iterations, options.reps, exec);
            } catch (const loom::Error& e) {
                mine_error = e.what();
            }
            std::string theirs_error;
            try {
                theirs = run_petsc(*A, *found, options.tolerance, options.max_iterations, options.reps);
            } catch (const loom::Error& e) {
                theirs_error = e.what();  // e.g. PETSc's ILU on a matrix missing a diagonal entry
            }
            const double loom_total = mine.setup_s + mine.solve_s;
            const double petsc_total = theirs.setup_s + theirs.solve_s;
            const bool both = mine_error.empty() && theirs_error.empty() &&
                              status(mine, options.tolerance) == "yes" &&
                              status(theirs, options.tolerance) == "yes";
            const auto short_name = name.substr(name.find_last_of('/') + 1);
            fmt::print("{:<28} {:<7} {:>9.4f} {:>9.4f} {:>9.4f} {:>6} {:>9.4f} {:>9.4f} {:>9.4f} {:>6} {:>8}\n",
                       short_name.substr(0, 28), found->name, mine.setup_s, mine.solve_s, loom_total,
                       mine_error.empty() ? (status(mine, options.tolerance) == "yes"
                                                 ? std::to_string(mine.iterations)
                                                 : status(mine, options.tolerance) + ":" + std::to_string(mine.iterations))
                                          : "error",
                       theirs.setup_s, theirs.solve_s, petsc_total,
                       !theirs_error.empty() ? std::string("error")
                       : status(theirs, options.tolerance) == "yes"
                           ? std::to_string(theirs.iterations)
                           : status(theirs, options.tolerance) + ":" + std::to_string(theirs.iterations),
                       both ? fmt::format("{:.2f}x", petsc_total / loom_total) : "-");
            if (!mine_error.empty()) fmt::print("  loom: {}\n", mine_error);
            if (!theirs_error.empty()) fmt::print("  petsc: {}\n", theirs_error);
            report.push_back({{"matrix", name},
                              {"rows", A->rows()},
                              {"nnz", A->nnz()},
                              {"method", found->name},
                              {"loom", mine_error.empty() ? as_json(mine) : nlohmann::json{{"error", mine_error}}},
                              {"petsc", theirs_error.empty() ? as_json(theirs) : nlohmann::json{{"error", theirs_error}}},
                              {"petsc_over_loom", both ? nlohmann::json(petsc_total / loom_total) : nlohmann::json()}});
        }
    }
    fmt::print("\nratio: PETSc's time to solution over Loom's (> 1: Loom faster); its: iterations "
               "(no: not converged, wrong: converged by its own estimate, true residual above 10x tol)\n");
    if (!options.json.empty()) {
        std::ofstream out(options.json);
        out << report.dump(2) << '\n';
        if (!out) throw loom::IoError("loom-peer-petsc", "could not write " + options.json);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    Options options;
    CLI::App app{"Time to solution of Loom's preconditioned solvers next to PETSc's (and hypre's "
                 "BoomerAMG through PETSc)"};
    app.add_option("matrices", options.files, "Square matrices (.mtx)")->check(CLI::ExistingFile);
    app.add_option("--generate", options.specs, "Generated matrices (as loom generate)");
    app.add_option("--method", options.methods, "ic, ilu, bicgstab-ilu, ilut, bicgstab-ilut, amg, jacobi")->delimiter(',')->capture_default_str();
    app.add_option("--threads", options.threads, "Loom's OpenMP threads")->check(CLI::Range(1, 1024))->capture_default_str();
    app.add_option("--tolerance", options.tolerance, "Relative residual")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--max-iters", options.max_iterations, "Iteration limit")->check(CLI::PositiveNumber)->capture_default_str();
    app.add_option("--reps", options.reps, "Runs per measurement (median)")->check(CLI::Range(1, 1000))->capture_default_str();
    app.add_option("--json", options.json, "Write the results as JSON");
    app.add_flag("--cpu-time", cpu_clock,
                 "Time by the process's CPU clock (a loaded machine; meaningful with --threads 1)");
    CLI11_PARSE(app, argc, argv);
    if (options.files.empty() && options.specs.empty()) options.specs = {"poisson3d:64"};

    // PETSc's own option parsing is kept away from ours.
    int petsc_argc = 1;
    if (PetscInitialize(&petsc_argc, &argv, nullptr, nullptr) != 0) {
        fmt::print(stderr, "loom-peer-petsc: PETSc did not initialise\n");
        return 2;
    }
    int code = 0;
    try {
        code = run(options);
    } catch (const std::exception& e) {
        fmt::print(stderr, "loom-peer-petsc: {}\n", e.what());
        code = 2;
    }
    PetscFinalize();
    return code;
}
