// The MPI side of `loom solve` and `loom bench solve`: under mpirun (launched_by_mpirun) the
// two commands hand their options here, and every rank takes its rows of the system
// (distributed::Matrix), runs the same solver stack and rank 0 reports. Built when Loom has
// its distributed layer (LOOM_CLI_WITH_MPI); the hooks in cmd_solve.cpp and bench_solve.cpp
// are compiled only then. The layout options (--partition, --format) exist in every build and
// are refused without mpirun.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "loom/base/names.hpp"
#include "loom/distributed/matrix_options.hpp"

namespace loom::cli::mpi {

/// Whether this process was started by mpirun / mpiexec (OpenMPI, PMIx or MPICH variables).
bool launched_by_mpirun();

/// The partitions --partition names; any other value is a file of one part (rank) per row.
enum class PartitionKind { contiguous, metis };

LOOM_NAME_TABLE(PartitionKind, partition_kind_names, "partition",
    {PartitionKind::contiguous, "contiguous", "blocks of consecutive rows, lower ranks one more"},
    {PartitionKind::metis, "metis", "METIS k-way on A's graph (when Loom was built with METIS)"},
);

/// The scaling tables `loom bench solve --scaling` prints under mpirun.
enum class Scaling { strong, weak };

LOOM_NAME_TABLE(Scaling, scaling_names, "scaling",
    {Scaling::strong, "strong", "the same problem on 1, 2, 4, ... ranks"},
    {Scaling::weak, "weak", "the problem grown with the ranks (generated poisson specs only)"},
);

/// How the ranks hold the system: which rows each owns, in which block format.
struct Layout {
    std::string partition = "contiguous";  ///< a partition_kind_names name, or a file
    std::string format = "csr";            ///< a distributed::block_format_names name
};

/// --partition and --format, with their checks (the same in loom solve and loom bench solve).
void add_layout_options(CLI::App& sub, Layout& layout);
/// BadInput from `where` when the layout asks for something other than the default: it
/// applies under mpirun only.
void check_without_mpirun(const Layout& layout, const std::string& where);

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
    std::string history;                 ///< the residual history's CSV, written by rank 0
    Layout layout;
};
/// loom solve on every rank; the exit status of cmd_solve.
int solve(const SolveRequest& request);

struct BenchRequest {
    std::string matrix;
    std::string spec;
    std::string solver;
    size_type iterations = 100;
    int reps = 5;
    /// A table over 1, 2, 4, ... ranks, or nothing: this run's ranks only.
    std::optional<Scaling> scaling;
    ExecOptions run;
    Layout layout;
};
/// loom bench solve on every rank; rank 0 prints the table.
int bench_solve(const BenchRequest& request);

}  // namespace loom::cli::mpi
