// The multigrid options that `loom solve`, `loom amg-info` and `loom bench amg` share: the
// aggregation (MIS-2 or pairwise, with its passes) and whether the prolongator is smoothed.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "loom/solver/multigrid.hpp"

namespace loom::cli {

struct AmgAggregationOptions {
    std::string aggregation = "mis2";
    int pairwise_passes = 2;
    bool unsmoothed = false;
};

inline void add_amg_aggregation_options(CLI::App& sub, AmgAggregationOptions& options)
{
    sub.add_option("--aggregation", options.aggregation,
                   "With amg: how rows are aggregated (mis2, or pairwise as PGM)")
        ->check(CLI::IsMember(names_of(solver::MultigridAggregation{}).spellings()))
        ->capture_default_str();
    sub.add_option("--pairwise-passes", options.pairwise_passes,
                   "With --aggregation pairwise: matching passes (aggregates of up to 2^passes "
                   "rows)")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    sub.add_flag("--unsmoothed", options.unsmoothed,
                 "With amg: plain aggregation (the tentative prolongator, unsmoothed)");
}

/// The options as a builder takes them.
template <typename Builder>
void apply_amg_aggregation_options(Builder& builder, const AmgAggregationOptions& options)
{
    builder.with_aggregation(solver::parse_multigrid_aggregation(options.aggregation))
        .with_pairwise_passes(options.pairwise_passes)
        .with_smoothing(!options.unsmoothed);
}

}  // namespace loom::cli
