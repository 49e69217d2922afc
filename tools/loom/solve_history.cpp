#include "solve_history.hpp"

#include <fmt/core.h>

#include "output_file.hpp"

namespace loom::cli {

void write_history(const std::string& path, const log::ConvergenceLogger& logger,
                   const solver::SolveResult& result)
{
    std::string out = "iteration,column,residual\n";
    const auto& history = logger.residual_history();
    for (std::size_t it = 0; it < history.size(); ++it) {
        for (std::size_t j = 0; j < history[it].size(); ++j) {
            const auto& status = result.columns[j];
            if (status.stopped() && static_cast<size_type>(it) > status.iteration) continue;
            out += fmt::format("{},{},{}\n", it, j, history[it][j]);
        }
    }
    write_text_output(path, out);
}

}  // namespace loom::cli
