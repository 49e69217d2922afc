// A self-check of the team launcher and of the batched routines on one executor: what the test
// suite runs on each backend, and what a user can run on a new machine or GPU.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "loom/base/executor.hpp"

namespace loom::launch {

/// Runs team launches of many shapes on exec (rank coverage, the member's loops, barriers,
/// reductions of several value types, scratch) and a sequence of batched routines in each mode
/// (Serial one matrix per thread, Team, TeamVector; scalars, complex numbers and SIMD packs),
/// comparing every result with the sequential one computed on the host. Returns one line per
/// failure; empty when everything agrees. Takes a second or two.
std::vector<std::string> self_check(const std::shared_ptr<const Executor>& exec);

}  // namespace loom::launch
