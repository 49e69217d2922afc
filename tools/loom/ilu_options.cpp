// The incomplete-factorization options of the command line (ilu_options.hpp).
#include "ilu_options.hpp"

#include <CLI/CLI.hpp>

#include "cli_support.hpp"

namespace loom::cli {

void IluCli::add_to(CLI::App& sub, const std::string& kind_option)
{
    add_choice<sparse::IluKind>(sub, kind_option, kind, "The factorization (listed below)");
    sub.add_option("--level", level, "Level of fill of iluk and ick")
        ->check(non_negative_number())
        ->capture_default_str();
    sub.add_option("--sweeps", sweeps,
                   "Sweeps of parilu / paric (numeric sweeps of parilut / parict)")
        ->check(non_negative_number())
        ->capture_default_str();
    sub.add_option("--steps", steps, "parilut, parict (ict): steps of the pattern search")
        ->check(non_negative_number())
        ->capture_default_str();
    sub.add_option("--fill-limit", fill_limit,
                   "ilut, parilut, parict (ict): entries kept, relative to nnz(A)")
        ->check(positive_number())
        ->capture_default_str();
    sub.add_option("--drop-tolerance", drop_tolerance,
                   "ilut, parilut, parict (ict): drop entries below this times their row's norm")
        ->check(non_negative_number())
        ->capture_default_str();
    add_choice<sparse::DiagonalShift>(
        sub, "--shift", shift,
        "Shift the diagonal where a pivot breaks down (automatic: for IC kinds)");
}

sparse::IluOptions IluCli::options(const std::string& where) const
{
    return {.kind = names_of(sparse::IluKind{}).parse(kind, where),
            .level = level,
            .sweeps = sweeps,
            .steps = steps,
            .fill_limit = fill_limit,
            .drop_tolerance = drop_tolerance,
            .diagonal_shift = names_of(sparse::DiagonalShift{}).parse(shift, where)};
}

}  // namespace loom::cli
