// The MPI side of `loom solve` and `loom bench solve`: under mpirun (launched_by_mpirun) the
// two commands hand their options here, and every rank takes its rows of the system
// (distributed::Matrix), runs the same solver stack and rank 0 reports. Built when Loom has
// its distributed layer (LOOM_CLI_WITH_MPI); the hooks in cmd_solve.cpp and bench_solve.cpp
// are compiled only then.
#pragma once

#include <string>

#include "cli_support.hpp"

namespace loom::cli::mpi {

/// Whether this process was started by mpirun / mpiexec (OpenMPI, PMIx or MPICH variables).
bool launched_by_mpirun();

struct SolveRequest {
    std::string matrix;  ///< a file, or
    std::string spec;    ///< a generator spec (every rank generates, keeps its rows)
    std::string rhs;
    std::string output;
    std::string config_json;   ///< the solver stack (solver/config.hpp)
    std::string description;   ///< how the stack was given, for the report
    ExecOptions run;
    std::string value_type;
    bool overwrite_unconverged = false;  ///< else x goes to X.not-converged.mtx (solution_path)
};
/// loom solve on every rank; the exit status of cmd_solve.
int solve(const SolveRequest& request);

struct BenchRequest {
    std::string matrix;
    std::string spec;
    std::string solver;
    size_type iterations = 100;
    int reps = 5;
    /// "" (this run's ranks only), "strong" (the same problem on 1, 2, 4, ... ranks) or
    /// "weak" (the problem grown with the ranks: generated poisson specs only).
    std::string scaling;
    ExecOptions run;
};
/// loom bench solve on every rank; rank 0 prints the table.
int bench_solve(const BenchRequest& request);

}  // namespace loom::cli::mpi
