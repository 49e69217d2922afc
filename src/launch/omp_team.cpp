// The non-template part of the OpenMP team launcher: the thread team, the static split of the
// league and the per-thread scratch live here, in a file compiled with OpenMP.
#include <algorithm>
#include <exception>

#include <omp.h>

#include "loom/launch/omp_team.hpp"

namespace loom::launch::detail {

void omp_run_teams(const OmpExecutor& exec, const TeamPolicy& policy, HostTeamChunk chunk,
                   void* functor)
{
    const size_type league = policy.league_size;
    if (league == 0) return;
    const int threads = static_cast<int>(std::min<size_type>(exec.num_threads(), league));
    std::exception_ptr error;
#pragma omp parallel num_threads(threads)
    {
        const size_type thread = omp_get_thread_num();
        const size_type count = omp_get_num_threads();
        const size_type first = league * thread / count;
        const size_type last = league * (thread + 1) / count;
        try {
            HostScratch scratch(policy.scratch_bytes);
            chunk(functor, first, last, league, scratch.data(), policy.scratch_bytes);
        } catch (...) {
#pragma omp critical(loom_omp_run_teams)
            if (!error) error = std::current_exception();
        }
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace loom::launch::detail
