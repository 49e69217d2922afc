// The residual history `loom solve --history` writes, with or without mpirun (where rank 0
// writes it: every rank logs the same norms, reduced over all of them).
#pragma once

#include <string>

#include "loom/log/loggers.hpp"
#include "loom/solver/solver.hpp"

namespace loom::cli {

/// iteration,column,residual: the solver's residual norm ||r|| after each iteration (0: the
/// initial residual), each column up to the iteration at which it stopped; written through
/// write_text_output (output_file.hpp).
void write_history(const std::string& path, const log::ConvergenceLogger& logger,
                   const solver::SolveResult& result);

}  // namespace loom::cli
