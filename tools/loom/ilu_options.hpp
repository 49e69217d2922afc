// The options of an incomplete factorization on the command line, declared once for
// `loom factor` and `loom bench ilu` (each had its own list, the benchmark's without checks,
// --drop-tolerance or --shift), with the library's defaults (sparse::IluOptions).
#pragma once

#include <string>

#include "loom/sparse/ilu.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace loom::cli {

struct IluCli {
    std::string kind = sparse::to_string(sparse::IluOptions{}.kind);
    int level = sparse::IluOptions{}.level;
    int sweeps = sparse::IluOptions{}.sweeps;
    int steps = sparse::IluOptions{}.steps;
    double fill_limit = sparse::IluOptions{}.fill_limit;
    double drop_tolerance = sparse::IluOptions{}.drop_tolerance;
    std::string shift = sparse::to_string(sparse::IluOptions{}.diagonal_shift);

    /// Declares `kind_option` (a name of sparse::ilu_kind_names), --level, --sweeps, --steps,
    /// --fill-limit, --drop-tolerance and --shift on `sub`, each checked while parsing.
    void add_to(CLI::App& sub, const std::string& kind_option);
    /// The factorization's options as given; BadInput from `where` for an unknown name.
    sparse::IluOptions options(const std::string& where) const;
};

}  // namespace loom::cli
