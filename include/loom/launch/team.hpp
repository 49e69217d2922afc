// Team-parallel launches: `team_parallel_for(exec, TeamPolicy{league, team, vector}, functor)`
// calls functor(member) once per team of the league, on any backend. The member type differs
// per backend (HostTeamMember, CudaTeamMember) but has one interface (see host_team.hpp), so
// a functor templated on it is written once:
//
//     struct Factor {
//         loom::batched::View<double>* matrices;
//         loom::batched::VectorView<int>* pivots;
//         template <typename Member>
//         LOOM_HOST_DEVICE void operator()(const Member& m) const
//         {
//             const auto b = m.league_rank();
//             loom::batched::Getrf<loom::batched::Mode::TeamVector>::invoke(m, matrices[b], pivots[b]);
//         }
//     };
//     loom::launch::team_parallel_for(exec, {batch, 4, 8}, Factor{matrices, pivots});
//
// Host code may equally pass a generic lambda `[&](const auto& m) {...}`. A CUDA launch must be
// compiled by nvcc: include this header (or launch/cuda_team.cuh) from a .cu file compiled
// with --extended-lambda, and pass a functor class as above or, to the CudaExecutor overload, a
// `[=] __device__ (const auto& m) {...}` lambda (nvcc rejects generic __host__ __device__
// lambdas, so the Executor overload, which also instantiates the host launch, needs the class).
#pragma once

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/launch/host_team.hpp"
#include "loom/launch/omp_team.hpp"
#include "loom/launch/policy.hpp"

#if defined(__CUDACC__)
#include "loom/launch/cuda_team.cuh"
#endif

namespace loom::launch {

// The executor-generic launch differs between host-compiled and nvcc-compiled translation
// units (only the latter reach CUDA); distinct inline namespaces keep the two apart at link time.
#if defined(__CUDACC__)
inline namespace with_cuda {
#else
inline namespace host_only {
#endif

/// Team launch on whichever backend exec is.
template <typename F>
void team_parallel_for(const Executor& exec, const TeamPolicy& policy, F&& functor)
{
    switch (exec.kind()) {
    case ExecKind::reference:
        return team_parallel_for(static_cast<const ReferenceExecutor&>(exec), policy, functor);
    case ExecKind::omp:
        return team_parallel_for(static_cast<const OmpExecutor&>(exec), policy, functor);
    case ExecKind::cuda:
#if defined(__CUDACC__)
        return team_parallel_for(static_cast<const CudaExecutor&>(exec), policy, functor);
#else
        throw NotSupported("loom::launch::team_parallel_for",
                           "a launch on CUDA must be compiled by nvcc: call it from a .cu file");
#endif
    }
}

}  // inline namespace
}  // namespace loom::launch
