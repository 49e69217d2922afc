// `loom solve --batch FOLDER -o OUTDIR`: every system of a folder in one batched solve
// (solve_batch.cpp); cmd_solve.cpp hands its options over.
#pragma once

#include <string>

#include "cli_support.hpp"

namespace loom::cli {

struct BatchSolveRequest {
    std::string folder;  ///< NAME.mtx and optionally NAME_b.mtx per system
    std::string output;  ///< OUTDIR: NAME_x.mtx per system (none written when empty)
    std::string solver;
    std::string precond;
    double tolerance = 1e-8;
    size_type max_iters = 1000;
    size_type restart = 30;
    ExecOptions run;
    bool quiet = false;
};

/// Solves them all; 0 when every system converged, 3 naming those that did not, 2 on an error.
int solve_batch(const BatchSolveRequest& request);

}  // namespace loom::cli
