// Running a block of iterations ahead of the host. A method whose steps also decide on the
// executor which columns go on (blas::cg_direction_step, the BiCGSTAB steps, which also
// restart a shadow residual there) needs the host only to log and to check the criteria; on
// a device it queues a block of iterations, reads their scalars with one copy and replays
// its host logic over them. That is exact when the executor's decisions are the criteria's:
// the criteria are iteration limits and residual-norm tolerances only (their thresholds
// known at the start), and no column may stop elsewhere. The replay checks this at every
// iteration. GMRES needs no decision on the executor: a step after a column stopped only
// extends a basis that x never takes. Otherwise, and where the space does not run ahead
// (host executors), a block is one iteration.
#pragma once

#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "loom/base/types.hpp"
#include "loom/stop/criterion.hpp"
#include "solver/state.hpp"

namespace loom::solver::detail {

/// What the executor can decide of a solve's criteria.
struct DeviceCriteria {
    /// Every criterion is one the executor evaluates (limits and residual tolerances).
    bool exact = true;
    /// The smallest iteration limit (none: the largest size_type).
    size_type iteration_limit = std::numeric_limits<size_type>::max();
    /// Per column, the largest residual norm that converges (-inf: none does).
    std::vector<double> thresholds;

    bool has_thresholds() const noexcept;
};

/// The criteria of a solve of k columns as the executor evaluates them; `thresholds_exact`:
/// whether the executor holds a double threshold exactly (else every residual criterion
/// counts as inexact).
DeviceCriteria device_criteria(const stop::Criterion& criteria, const stop::Context& context,
                               size_type k, bool thresholds_exact);

/// The criteria of st's solve as its executor evaluates them.
template <typename V>
DeviceCriteria device_criteria(const stop::Criterion& criteria, const SolveState<V>& st)
{
    // A double threshold is exact in V only when V's real type is double.
    constexpr bool exact_thresholds = std::is_same_v<remove_complex_t<V>, double>;
    return device_criteria(criteria, st.context(), st.columns(), exact_thresholds);
}

/// Stores the per-column thresholds of `device` in scalar slot `slot` on the executor, where
/// the fused steps read them.
template <typename V>
void store_thresholds(Scalars<V>& s, int slot, const DeviceCriteria& device)
{
    for (size_type j = 0; j < s.columns(); ++j) {
        s.host(slot, j) = static_cast<V>(device.thresholds[j]);
    }
    s.store(slot);
}

/// The length of the next block: one where the host must look at every iteration; else
/// growing (doubling) while the residual norms are predicted, at the rate of the last block,
/// to stay above their thresholds, and never past the iteration limit.
class BlockPlanner {
public:
    static constexpr size_type max_block = 32;

    BlockPlanner(const DeviceCriteria& criteria, bool runs_ahead);
    /// After `done` iterations, with the norms of the running columns (`running[j]`).
    size_type next(size_type done, std::span<const double> norms, std::span<const char> running);

private:
    const DeviceCriteria& criteria_;
    bool one_at_a_time_;
    size_type last_ = 0;
    std::vector<double> last_norms_;
};

/// The block loop of a run-ahead method: plans each block from the columns' residual norms
/// and states (`st.norm(j)`, `st.running(j)`), queues its iterations (`iterate(it)`), reads
/// their scalars with one copy (`fetch()`) and replays them on the host (`replay(it)`, true
/// when the solve ended).
template <typename State, typename Iterate, typename Fetch, typename Replay>
void run_blocks(BlockPlanner& planner, const State& st, size_type k, Iterate&& iterate,
                Fetch&& fetch, Replay&& replay)
{
    std::vector<double> norms(static_cast<std::size_t>(k));
    std::vector<char> running(static_cast<std::size_t>(k));
    for (size_type done = 0;;) {
        for (size_type j = 0; j < k; ++j) {
            norms[j] = st.norm(j);
            running[j] = st.running(j);
        }
        const auto block = planner.next(done, norms, running);
        for (size_type it = done + 1; it <= done + block; ++it) iterate(it);
        fetch();
        for (size_type it = done + 1; it <= done + block; ++it) {
            if (replay(it)) return;
        }
        done += block;
    }
}

/// run_blocks for a method whose iterations write their scalars to the ring of slots
/// [0, ring_slots) of st's scalars: the block's fetch is one copy of the ring.
template <typename V, typename Iterate, typename Replay>
void run_blocks(const DeviceCriteria& device, SolveState<V>& st, int ring_slots, Iterate&& iterate,
                Replay&& replay)
{
    BlockPlanner planner(device, st.space().runs_ahead());
    run_blocks(
        planner, st, st.columns(), iterate, [&] { st.scalars().fetch(0, ring_slots); }, replay);
}

/// Throws std::logic_error: `solver`'s executor decided column j's fate at iteration it
/// otherwise than the host's replay (a fused step out of step with the solver's tests).
[[noreturn]] void executor_disagrees(const char* solver, size_type j, size_type it);

/// executor_disagrees unless the executor's gates in scalar slot `gate_slot` (fetched) run
/// at iteration it the columns the host runs; a column the iteration limit stopped may still
/// run there (the limit ends the solve at that iteration).
template <typename V>
void check_gates(const char* solver, SolveState<V>& st, int gate_slot, size_type it)
{
    for (size_type j = 0; j < st.columns(); ++j) {
        const bool device_runs = st.scalars().host(gate_slot, j) != V{0};
        if (device_runs == st.running(j) || st.status(j).reason == stop::Reason::iteration_limit) {
            continue;
        }
        executor_disagrees(solver, j, it);
    }
}

}  // namespace loom::solver::detail
