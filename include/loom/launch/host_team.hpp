// The team handle on the host backends, and the reference (sequential) team launcher.
// On the host a team is one thread: team ranks and vector lanes collapse into plain loops,
// the vector ones marked for the compiler's vectorizer, and barriers are no-ops.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"
#include "loom/launch/policy.hpp"

namespace loom::launch {

/// What a team functor receives on the reference and OpenMP backends. It has the interface of
/// every team member (the CUDA one included), so a functor templated on its member type, or
/// taking `const auto&`, runs unchanged on all backends:
///  - league_rank()/league_size(), team_rank()/team_size(), vector_rank()/vector_length();
///  - team_for(n, f): f(i) for i in [0, n) spread over the team's threads (lanes repeat it);
///  - vector_for(n, f): f(i) spread over the calling thread's vector lanes;
///  - team_vector_for(n, f): f(i) spread over every thread and lane of the team;
///  - team_reduce_sum / vector_reduce_sum / team_vector_reduce_sum(n, f): the sum of f(i) over
///    the same ranges, returned to every participant;
///  - team_barrier(), vector_barrier(): make earlier writes of the team (of the lanes) visible;
///  - team_single(f): f() once per team (follow it with team_barrier() before reading);
///  - team_scratch(bytes) / team_scratch<T>(count): team-shared memory from the policy's
///    scratch_bytes; every thread of a team must make the same calls in the same order, and
///    receives the same pointer (nullptr when the request does not fit).
class HostTeamMember {
public:
    LOOM_HOST_DEVICE HostTeamMember(size_type league_rank, size_type league_size,
                                    std::byte* scratch, size_type scratch_bytes)
        : league_rank_(league_rank), league_size_(league_size), scratch_(scratch, scratch_bytes)
    {}

    LOOM_HOST_DEVICE size_type league_rank() const { return league_rank_; }
    LOOM_HOST_DEVICE size_type league_size() const { return league_size_; }
    LOOM_HOST_DEVICE int team_rank() const { return 0; }
    LOOM_HOST_DEVICE int team_size() const { return 1; }
    LOOM_HOST_DEVICE int vector_rank() const { return 0; }
    LOOM_HOST_DEVICE int vector_length() const { return 1; }

    LOOM_HOST_DEVICE void team_barrier() const {}
    LOOM_HOST_DEVICE void vector_barrier() const {}

    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void team_for(I n, F&& f) const
    {
        for (I i = 0; i < n; ++i) f(i);
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void vector_for(I n, F&& f) const
    {
        LOOM_PRAGMA_SIMD
        for (I i = 0; i < n; ++i) f(i);
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void team_vector_for(I n, F&& f) const
    {
        vector_for(n, f);
    }

    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto team_reduce_sum(I n, F&& f) const
    {
        std::decay_t<decltype(f(n))> sum{};
        for (I i = 0; i < n; ++i) sum += f(i);
        return sum;
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto vector_reduce_sum(I n, F&& f) const
    {
        return team_reduce_sum(n, f);
    }
    template <typename I, typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto team_vector_reduce_sum(I n, F&& f) const
    {
        return team_reduce_sum(n, f);
    }

    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void team_single(F&& f) const
    {
        f();
    }

    LOOM_HOST_DEVICE void* team_scratch(size_type bytes) const { return scratch_.take(bytes); }
    template <typename T>
    LOOM_HOST_DEVICE T* team_scratch(size_type count) const
    {
        return scratch_.template take<T>(count);
    }

private:
    size_type league_rank_;
    size_type league_size_;
    mutable detail::TeamScratch scratch_;
};

namespace detail {

/// One team's scratch on the host, aligned for any scalar type.
class HostScratch {
public:
    explicit HostScratch(size_type bytes)
        : storage_(static_cast<std::size_t>(align_up(bytes, scratch_alignment) /
                                            scratch_alignment))
    {}
    std::byte* data() { return reinterpret_cast<std::byte*>(storage_.data()); }

private:
    struct alignas(scratch_alignment) Block {
        std::byte bytes[scratch_alignment];
    };
    std::vector<Block> storage_;
};

/// Runs teams [first, last) one after the other on the calling thread.
template <typename F>
void run_host_teams(F& functor, size_type first, size_type last, size_type league_size,
                    std::byte* scratch, size_type scratch_bytes)
{
    for (size_type rank = first; rank < last; ++rank) {
        const HostTeamMember member(rank, league_size, scratch, scratch_bytes);
        functor(member);
    }
}

}  // namespace detail

/// Sequential team launch: the teams run one after the other, in league order.
template <typename F>
void team_parallel_for(const ReferenceExecutor&, const TeamPolicy& policy, F&& functor)
{
    detail::validate(policy, "loom::launch::team_parallel_for");
    detail::HostScratch scratch(policy.scratch_bytes);
    detail::run_host_teams(functor, 0, policy.league_size, policy.league_size, scratch.data(),
                           policy.scratch_bytes);
}

}  // namespace loom::launch
