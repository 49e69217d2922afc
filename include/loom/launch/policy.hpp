// The shape of a team-parallel launch: a league of independent teams, each of team_size
// threads, each thread with vector_length lanes, plus an optional shared scratch per team.
#pragma once

#include <cstddef>
#include <string>

#include "loom/base/error.hpp"
#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::launch {

/// What `team_parallel_for` runs: league_size teams of team_size threads × vector_length
/// lanes. On CUDA a team is a thread block (or a slice of a warp when it has fewer than 32
/// threads) and the lanes are consecutive threads of a warp; on the host each team runs on one
/// thread (the member then reports team_size() == vector_length() == 1).
///
/// team_size × vector_length must be a power of two up to 32, or a multiple of 32 up to 1024;
/// vector_length must be a power of two up to 32. Every backend checks this, so code that runs
/// on the host also launches on the GPU.
struct TeamPolicy {
    size_type league_size = 0;
    int team_size = 1;
    int vector_length = 1;
    /// Bytes of team-shared scratch (member.team_scratch) each team may take.
    size_type scratch_bytes = 0;

    TeamPolicy& set_scratch_bytes(size_type bytes)
    {
        scratch_bytes = bytes;
        return *this;
    }
    /// Threads of one team on the GPU.
    constexpr int team_threads() const { return team_size * vector_length; }
};

namespace detail {

constexpr bool is_power_of_two(long long x) { return x > 0 && (x & (x - 1)) == 0; }

/// Alignment of every team scratch allocation.
constexpr size_type scratch_alignment = 16;

constexpr size_type align_up(size_type bytes, size_type alignment)
{
    return (bytes + alignment - 1) / alignment * alignment;
}

/// A team's scratch as its members hand it out (member.team_scratch, every backend): each
/// request in turn from one block of `bytes`, aligned to scratch_alignment.
class TeamScratch {
public:
    LOOM_HOST_DEVICE TeamScratch(std::byte* base, size_type bytes) : base_(base), bytes_(bytes) {}

    /// The next `bytes`, nullptr when they do not fit.
    LOOM_HOST_DEVICE void* take(size_type bytes)
    {
        // The request must fit as asked; the padding that aligns the next one need not (a
        // policy asking for exactly n bytes gets n bytes).
        const size_type size = align_up(bytes, scratch_alignment);
        if (bytes < 0 || used_ + bytes > bytes_) return nullptr;
        void* result = base_ + used_;
        used_ += size;
        return result;
    }
    template <typename T>
    LOOM_HOST_DEVICE T* take(size_type count)
    {
        static_assert(alignof(T) <= scratch_alignment);
        return static_cast<T*>(take(count * static_cast<size_type>(sizeof(T))));
    }

private:
    std::byte* base_;
    size_type bytes_;
    size_type used_ = 0;
};

/// BadInput unless policy describes a launch every backend can run.
inline void validate(const TeamPolicy& policy, const char* where)
{
    auto fail = [&](const std::string& what) {
        throw BadInput(where, what + " (league_size " + std::to_string(policy.league_size) +
                                  ", team_size " + std::to_string(policy.team_size) +
                                  ", vector_length " + std::to_string(policy.vector_length) + ")");
    };
    if (policy.league_size < 0) fail("negative league size");
    if (policy.team_size < 1) fail("team size must be at least 1");
    if (!is_power_of_two(policy.vector_length) || policy.vector_length > 32) {
        fail("vector length must be a power of two between 1 and 32");
    }
    const long long threads = static_cast<long long>(policy.team_size) * policy.vector_length;
    if (threads > 1024) fail("team_size * vector_length exceeds 1024");
    if (threads < 32 ? !is_power_of_two(threads) : threads % 32 != 0) {
        fail("team_size * vector_length must be a power of two below 32 or a multiple of 32");
    }
    if (policy.scratch_bytes < 0) fail("negative scratch size");
}

}  // namespace detail
}  // namespace loom::launch
