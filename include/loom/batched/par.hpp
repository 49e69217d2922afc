// How a routine's loops are spread over the workers of its mode. Each routine is written once
// against a "par" object; the mode picks the implementation:
//   SerialPar          one thread does everything (Mode::Serial, and the inside of Team splits)
//   TeamPar            every thread and lane of the team is one worker (Mode::Team)
//   TeamVectorPar      team threads take outer items, their vector lanes the inner ones
//   VectorPar          the lanes of one team thread (the inside of TeamVector splits)
// Operations: flat(n, f) and for2(m, n, f) run independent iterations over all workers;
// split(n, f) hands item i to a group of workers as f(i, sub_par); sum(n, f) is a reduction
// returned to every worker; single(f) runs f on one worker; barrier() makes the writes of all
// workers visible to all. A routine separates dependent phases with barrier().
#pragma once

#include <type_traits>

#include "loom/batched/tags.hpp"
#include "loom/launch/macros.hpp"

namespace loom::batched::detail {

struct SerialPar {
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void flat(int n, F&& f) const
    {
        for (int i = 0; i < n; ++i) f(i);
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void for2(int rows, int cols, F&& f) const
    {
        for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) f(i, j);
        }
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void split(int n, F&& f) const
    {
        for (int i = 0; i < n; ++i) f(i, SerialPar{});
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto sum(int n, F&& f) const
    {
        std::decay_t<decltype(f(0))> s(0);
        for (int i = 0; i < n; ++i) s += f(i);
        return s;
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void single(F&& f) const
    {
        f();
    }
    LOOM_HOST_DEVICE LOOM_INLINE void barrier() const {}
};

/// The lanes of one team thread.
template <typename Member>
struct VectorPar {
    const Member* member;

    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void flat(int n, F&& f) const
    {
        member->vector_for(n, f);
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void for2(int rows, int cols, F&& f) const
    {
        if (cols > 0) member->vector_for(rows * cols, [&](int t) { f(t / cols, t % cols); });
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void split(int n, F&& f) const
    {
        member->vector_for(n, [&](int i) { f(i, SerialPar{}); });
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto sum(int n, F&& f) const
    {
        return member->vector_reduce_sum(n, f);
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void single(F&& f) const
    {
        if (member->vector_rank() == 0) f();
    }
    LOOM_HOST_DEVICE LOOM_INLINE void barrier() const { member->vector_barrier(); }
};

/// Every thread and lane of the team as one flat set of workers.
template <typename Member>
struct TeamPar {
    const Member* member;

    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void flat(int n, F&& f) const
    {
        member->team_vector_for(n, f);
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void for2(int rows, int cols, F&& f) const
    {
        if (cols > 0) member->team_vector_for(rows * cols, [&](int t) { f(t / cols, t % cols); });
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void split(int n, F&& f) const
    {
        member->team_vector_for(n, [&](int i) { f(i, SerialPar{}); });
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE auto sum(int n, F&& f) const
    {
        return member->team_vector_reduce_sum(n, f);
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void single(F&& f) const
    {
        if (member->team_rank() == 0 && member->vector_rank() == 0) f();
    }
    LOOM_HOST_DEVICE LOOM_INLINE void barrier() const { member->team_barrier(); }
};

/// Team threads over outer items, vector lanes over inner ones.
template <typename Member>
struct TeamVectorPar : TeamPar<Member> {
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void for2(int rows, int cols, F&& f) const
    {
        const Member* m = this->member;
        m->team_for(rows, [&](int i) { m->vector_for(cols, [&](int j) { f(i, j); }); });
    }
    template <typename F>
    LOOM_HOST_DEVICE LOOM_INLINE void split(int n, F&& f) const
    {
        const Member* m = this->member;
        m->team_for(n, [&](int i) { f(i, VectorPar<Member>{m}); });
    }
};

/// The par of a team mode for member.
template <typename ModeTag, typename Member>
LOOM_HOST_DEVICE LOOM_INLINE auto make_par(const Member& member)
{
    static_assert(is_team_mode_v<ModeTag>, "Mode::Serial routines take no team member");
    if constexpr (std::is_same_v<ModeTag, Mode::Team>) {
        return TeamPar<Member>{&member};
    } else {
        return TeamVectorPar<Member>{{&member}};
    }
}

}  // namespace loom::batched::detail
