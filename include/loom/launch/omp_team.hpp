// The OpenMP team launcher: the league is split statically over the executor's threads and each
// thread runs its teams one after the other, with its own scratch. The thread team is created
// inside libloom (built with OpenMP), so a caller's translation unit needs no OpenMP flags; the
// vector loops are marked `omp simd`, which takes effect where the caller compiles with
// -fopenmp or -fopenmp-simd (and is a vectorization hint otherwise).
#pragma once

#include <memory>
#include <type_traits>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/export.hpp"
#include "loom/config.hpp"
#include "loom/launch/host_team.hpp"
#include "loom/launch/policy.hpp"

namespace loom::launch {
namespace detail {

/// Runs teams [first, last) of the functor behind `functor` with the given scratch.
using HostTeamChunk = void (*)(void* functor, size_type first, size_type last,
                               size_type league_size, std::byte* scratch,
                               size_type scratch_bytes);

/// Calls `chunk` once per OpenMP thread of exec with that thread's share of the league, and
/// rethrows (after the parallel region) the first exception a chunk raised.
LOOM_EXPORT void omp_run_teams(const OmpExecutor& exec, const TeamPolicy& policy,
                               HostTeamChunk chunk, void* functor);

}  // namespace detail

/// Team launch on the OpenMP backend: teams run concurrently, one per thread at a time.
template <typename F>
void team_parallel_for(const OmpExecutor& exec, const TeamPolicy& policy, F&& functor)
{
    constexpr const char* where = "loom::launch::team_parallel_for";
    detail::validate(policy, where);
#if LOOM_HAS_OPENMP
    using Functor = std::remove_reference_t<F>;
    const detail::HostTeamChunk chunk = [](void* erased, size_type first, size_type last,
                                           size_type league_size, std::byte* scratch,
                                           size_type scratch_bytes) {
        detail::run_host_teams(*static_cast<Functor*>(erased), first, last, league_size, scratch,
                               scratch_bytes);
    };
    detail::omp_run_teams(exec, policy, chunk,
                          const_cast<void*>(static_cast<const void*>(std::addressof(functor))));
#else
    (void)exec;
    (void)functor;
    throw NotCompiled(where, "the OpenMP backend");
#endif
}

}  // namespace loom::launch
