// The team launcher on the host backends: league coverage, the member's loops, reductions and
// scratch, policy checks, and exceptions thrown by a functor.
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/launch/team.hpp"

namespace {

using loom::size_type;
using loom::launch::TeamPolicy;
using loom::launch::team_parallel_for;

std::vector<std::shared_ptr<const loom::Executor>> host_executors()
{
    std::vector<std::shared_ptr<const loom::Executor>> result{loom::ReferenceExecutor::create()};
    if (loom::OmpExecutor::available()) {
        result.push_back(loom::OmpExecutor::create());
        result.push_back(loom::OmpExecutor::create(3));
    }
    return result;
}

TEST(TeamLaunch, VisitsEveryTeamOnce)
{
    for (const auto& exec : host_executors()) {
        for (size_type league : {0, 1, 7, 1000}) {
            SCOPED_TRACE(exec->name() + " league " + std::to_string(league));
            std::vector<std::atomic<int>> visits(static_cast<std::size_t>(league));
            team_parallel_for(*exec, TeamPolicy{league, 2, 4}, [&](const auto& member) {
                EXPECT_EQ(member.league_size(), league);
                EXPECT_EQ(member.team_rank(), 0);
                EXPECT_EQ(member.team_size(), 1);
                EXPECT_EQ(member.vector_rank(), 0);
                EXPECT_EQ(member.vector_length(), 1);
                ++visits[member.league_rank()];
            });
            for (const auto& v : visits) EXPECT_EQ(v.load(), 1);
        }
    }
}

TEST(TeamLaunch, MemberLoopsCoverTheirRanges)
{
    for (const auto& exec : host_executors()) {
        SCOPED_TRACE(exec->name());
        constexpr int n = 37;
        std::vector<int> counts(3 * 5 * n, 0);
        std::vector<double> sums(5 * 3, 0);
        team_parallel_for(*exec, TeamPolicy{5, 32, 1}, [&](const auto& member) {
            const auto t = member.league_rank();
            int* c = counts.data() + 3 * n * t;
            member.team_for(n, [&](int i) { ++c[i]; });
            member.team_barrier();
            member.team_for(1, [&](int) { member.vector_for(n, [&](int i) { ++c[n + i]; }); });
            member.team_vector_for(n, [&](int i) { c[2 * n + i] += 1; });
            member.vector_barrier();
            sums[3 * t] = member.team_reduce_sum(n, [](int i) { return double(i); });
            sums[3 * t + 1] = member.vector_reduce_sum(n, [](int i) { return 2.0 * i; });
            sums[3 * t + 2] = member.team_vector_reduce_sum(n, [](int i) { return 3.0 * i; });
            member.team_single([&] { ++c[0]; });
        });
        for (int t = 0; t < 5; ++t) {
            for (int i = 0; i < 3 * n; ++i) EXPECT_EQ(counts[3 * n * t + i], i == 0 ? 2 : 1);
            EXPECT_EQ(sums[3 * t], n * (n - 1) / 2);
            EXPECT_EQ(sums[3 * t + 1], n * (n - 1));
            EXPECT_EQ(sums[3 * t + 2], 3 * n * (n - 1) / 2);
        }
    }
}

TEST(TeamLaunch, ScratchIsPrivateAlignedAndBounded)
{
    for (const auto& exec : host_executors()) {
        SCOPED_TRACE(exec->name());
        constexpr size_type league = 64;
        std::vector<int> ok(league, 0);
        team_parallel_for(*exec, TeamPolicy{league, 1, 1}.set_scratch_bytes(100),
                          [&](const auto& member) {
                              const auto t = member.league_rank();
                              auto* a = member.template team_scratch<double>(5);   // 48 bytes
                              auto* b = member.template team_scratch<std::int32_t>(9);  // 48 bytes
                              auto* c = member.team_scratch(8);                   // does not fit
                              bool good = a != nullptr && b != nullptr && c == nullptr;
                              good = good && reinterpret_cast<std::uintptr_t>(a) % 16 == 0 &&
                                     reinterpret_cast<std::uintptr_t>(b) % 16 == 0 &&
                                     reinterpret_cast<char*>(b) >= reinterpret_cast<char*>(a + 5);
                              for (int i = 0; i < 5; ++i) a[i] = double(t);
                              for (int i = 0; i < 9; ++i) b[i] = static_cast<std::int32_t>(t);
                              for (int i = 0; i < 5; ++i) good = good && a[i] == double(t);
                              for (int i = 0; i < 9; ++i) good = good && b[i] == t;
                              ok[t] = good;
                          });
        for (auto v : ok) EXPECT_TRUE(v);
    }
}

TEST(TeamLaunch, RejectsPoliciesTheGpuCannotRun)
{
    const auto exec = loom::ReferenceExecutor::create();
    const auto nothing = [](const auto&) {};
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{-1, 1, 1}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 0, 1}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 1, 3}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 1, 64}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 3, 4}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 3, 16}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 64, 32}, nothing), loom::BadInput);
    EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{4, 1, 1}.set_scratch_bytes(-1), nothing),
                 loom::BadInput);
    EXPECT_NO_THROW(team_parallel_for(*exec, TeamPolicy{4, 3, 32}, nothing));
    EXPECT_NO_THROW(team_parallel_for(*exec, TeamPolicy{4, 2, 8}, nothing));
    EXPECT_NO_THROW(team_parallel_for(*exec, TeamPolicy{4, 1024, 1}, nothing));
}

TEST(TeamLaunch, FunctorExceptionsReachTheCaller)
{
    for (const auto& exec : host_executors()) {
        SCOPED_TRACE(exec->name());
        EXPECT_THROW(team_parallel_for(*exec, TeamPolicy{100, 1, 1},
                                       [](const auto& member) {
                                           if (member.league_rank() == 57) {
                                               throw std::runtime_error("team 57");
                                           }
                                       }),
                     std::runtime_error);
    }
}

}  // namespace
