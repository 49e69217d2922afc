// How the CUDA front-level calls launch the batched routines, through the team launcher:
//
//   serial       a team (thread block) of L threads takes L consecutive matrices, one per
//                thread. The block first copies its matrices into shared memory with
//                consecutive threads on consecutive addresses (coalesced, whatever n), entry e
//                of matrix t at e * (L + 1) + t, so that the threads' own accesses during the
//                routine hit distinct banks; it copies the results back the same way.
//   team         a team per matrix, its threads as one flat set of workers;
//   team_vector  a team per matrix, team threads over rows, vector lanes within them.
//                Both stage the matrix row-major in the team's shared memory.
// Matrices too large for shared memory are worked on in place (global memory).
#pragma once

#include <algorithm>

#include "base/cuda/helpers.cuh"
#include "batched/front/cuda_rows.cuh"
#include "batched/front/kernels.hpp"
#include "batched/front/operand.hpp"
#include "batched/front/routines.hpp"
#include "loom/batched/front.hpp"
#include "loom/launch/team.hpp"

namespace loom::batched::cuda_front {

using front::Operand;
using front::Operands;
using launch::CudaTeamMember;

/// Shared memory one team may stage (several teams then share an SM).
constexpr size_type staging_budget = 48 * 1024;
/// Matrices per serial team, at most (and at least 32: a team must be a whole block).
constexpr int max_serial_lanes = 128;

/// Loads each staging thread has in flight before it stores any.
constexpr int staging_unroll = 4;

/// g / d for 0 <= g < 2^22 without an integer division: the float quotient is off by at most
/// one (relative error below 2^-22), which one comparison each way corrects.
struct Divisor {
    int d = 1;
    float inverse = 1.f;

    Divisor() = default;
    explicit Divisor(int divisor) : d(divisor), inverse(1.f / static_cast<float>(divisor)) {}
    __device__ LOOM_INLINE int quotient(int g) const
    {
        int q = __float2int_rz(__int2float_rn(g) * inverse);
        if (q * d > g) {
            --q;
        } else if ((q + 1) * d <= g) {
            ++q;
        }
        return q;
    }
};

/// Element offsets of each operand in a team's staging area, and how to find entry e of a
/// staged matrix in global memory without integer divisions.
template <int K>
struct Layout {
    size_type offset[K] = {};
    size_type total = 0;
    Divisor entries[K];
    Divisor cols[K];
    bool packed[K] = {};  ///< matrix b is the range [b * entries, (b + 1) * entries)
};

template <typename T, int K>
Layout<K> layout_of(const Operands<T, K>& ops, size_type pitch)
{
    Layout<K> l;
    for (int k = 0; k < K; ++k) {
        const auto& o = ops[k];
        l.offset[k] = l.total;
        l.total += static_cast<size_type>(o.entries()) * pitch;
        l.entries[k] = Divisor(o.entries() > 0 ? o.entries() : 1);
        l.cols[k] = Divisor(o.cols > 0 ? o.cols : 1);
        l.packed[k] = o.stride == o.cols && o.batch_stride == o.entries();
    }
    return l;
}

/// Where entry e of matrix b of operand k lives in global memory.
template <typename T, int K>
__device__ LOOM_INLINE size_type global_offset(const Operand<T>& o, const Layout<K>& l, int k,
                                               size_type b, int e)
{
    if (l.packed[k]) return b * o.batch_stride + e;
    const int row = l.cols[k].quotient(e);
    return b * o.batch_stride + row * o.stride + (e - row * o.cols);
}

/// store(g, load(g)) for g in [0, total), spread over `threads` threads of which this is
/// `rank`: each thread issues staging_unroll loads before their stores, so that enough bytes
/// are in flight to keep HBM busy.
template <typename Load, typename Store>
__device__ LOOM_INLINE void copy(int rank, int threads, int total, Load&& load, Store&& store)
{
    constexpr int U = staging_unroll;
    int g = rank;
    for (; g + (U - 1) * threads < total; g += U * threads) {
        decltype(load(0)) v[U];
        LOOM_PRAGMA_UNROLL
        for (int u = 0; u < U; ++u) v[u] = load(g + u * threads);
        LOOM_PRAGMA_UNROLL
        for (int u = 0; u < U; ++u) store(g + u * threads, v[u]);
    }
    for (; g < total; g += threads) store(g, load(g));
}

/// The thread's rank among the team's threads, and their number.
__device__ LOOM_INLINE int thread_in_team(const CudaTeamMember& m)
{
    return m.team_rank() * m.vector_length() + m.vector_rank();
}
__device__ LOOM_INLINE int threads_in_team(const CudaTeamMember& m)
{
    return m.team_size() * m.vector_length();
}

/// L matrices per team, one per thread, staged interleaved (staged = false: in place).
template <typename T, int K, typename F>
struct SerialTeams {
    F f;
    Operands<T, K> ops;
    Layout<K> layout;
    size_type count;
    int lanes;
    bool staged;

    __device__ void operator()(const CudaTeamMember& m) const
    {
        const size_type first = m.league_rank() * lanes;
        const int here = static_cast<int>(count - first < lanes ? count - first : lanes);
        if (!staged) {
            m.team_for(here, [&](int t) {
                const size_type b = first + t;
                front::with_views(
                    ops, [&](int k) { return ops[k].global(b); },
                    [&](const auto&... views) { f(Mode::Serial{}, m, b, views...); });
            });
            return;
        }
        T* scratch = m.template team_scratch<T>(layout.total);
        const size_type pitch = lanes + 1;
        for (int k = 0; k < K; ++k) {
            const auto& o = ops[k];
            if (!o.read) continue;
            const int entries = o.entries();
            T* s = scratch + layout.offset[k];
            // Consecutive threads on consecutive entries of the block's matrices: one
            // contiguous range for a packed batch.
            copy(
                thread_in_team(m), threads_in_team(m), here * entries,
                [&](int g) {
                    const int t = layout.entries[k].quotient(g);
                    return o.data[global_offset(o, layout, k, first + t, g - t * entries)];
                },
                [&](int g, const T& v) {
                    const int t = layout.entries[k].quotient(g);
                    s[(g - t * entries) * pitch + t] = v;
                });
        }
        m.team_barrier();
        m.team_for(here, [&](int t) {
            front::with_views(
                ops, [&](int k) { return ops[k].interleaved(scratch + layout.offset[k], t, lanes); },
                [&](const auto&... views) { f(Mode::Serial{}, m, first + t, views...); });
        });
        m.team_barrier();
        for (int k = 0; k < K; ++k) {
            const auto& o = ops[k];
            if (!o.written) continue;
            const int entries = o.entries();
            const T* s = scratch + layout.offset[k];
            copy(
                thread_in_team(m), threads_in_team(m), here * entries,
                [&](int g) {
                    const int t = layout.entries[k].quotient(g);
                    return s[(g - t * entries) * pitch + t];
                },
                [&](int g, const T& v) {
                    const int t = layout.entries[k].quotient(g);
                    o.data[global_offset(o, layout, k, first + t, g - t * entries)] = v;
                });
        }
    }
};

/// One matrix per team, staged row-major (staged = false: in place).
template <typename ModeT, typename T, int K, typename F>
struct MatrixTeams {
    F f;
    Operands<T, K> ops;
    Layout<K> layout;
    bool staged;

    __device__ void operator()(const CudaTeamMember& m) const
    {
        const size_type b = m.league_rank();
        if (!staged) {
            front::with_views(
                ops, [&](int k) { return ops[k].global(b); },
                [&](const auto&... views) { f(ModeT{}, m, b, views...); });
            return;
        }
        T* scratch = m.template team_scratch<T>(layout.total);
        for (int k = 0; k < K; ++k) {
            const auto& o = ops[k];
            if (!o.read) continue;
            T* s = scratch + layout.offset[k];
            copy(
                thread_in_team(m), threads_in_team(m), o.entries(),
                [&](int e) { return o.data[global_offset(o, layout, k, b, e)]; },
                [&](int e, const T& v) { s[e] = v; });
        }
        m.team_barrier();
        front::with_views(
            ops, [&](int k) { return ops[k].packed(scratch + layout.offset[k]); },
            [&](const auto&... views) { f(ModeT{}, m, b, views...); });
        m.team_barrier();
        for (int k = 0; k < K; ++k) {
            const auto& o = ops[k];
            if (!o.written) continue;
            const T* s = scratch + layout.offset[k];
            copy(
                thread_in_team(m), threads_in_team(m), o.entries(),
                [&](int e) { return s[e]; },
                [&](int e, const T& v) { o.data[global_offset(o, layout, k, b, e)] = v; });
        }
    }
};

/// Threads of a team for matrices of order n: a warp up to 16, more for larger ones.
inline int team_threads(int n) { return n <= 16 ? 32 : n <= 32 ? 64 : n <= 64 ? 128 : 256; }

inline int next_power_of_two(int n)
{
    int p = 1;
    while (p < n) p *= 2;
    return p;
}

struct Driver {
    const CudaExecutor& exec;

    template <typename V>
    using value = loom::cuda::device_type_t<V>;

    template <typename T, int K, typename F>
    void run(Launch launch, size_type count, const Operands<T, K>& ops, const F& f) const
    {
        if (count == 0) return;
        // Square real matrices up to order 32 have lane-per-row kernels (cuda_rows.cuh).
        if (launch == Launch::team_vector && rows::run(exec, count, ops, f)) return;
        switch (launch) {
        case Launch::team: return run_matrix_teams<Mode::Team>(count, ops, f);
        case Launch::team_vector: return run_matrix_teams<Mode::TeamVector>(count, ops, f);
        default: return run_serial(count, ops, f);
        }
    }

    template <typename T, int K, typename F>
    void run_serial(size_type count, const Operands<T, K>& ops, const F& f) const
    {
        const auto bytes = static_cast<size_type>(ops.total_entries()) * sizeof(T);
        // As many matrices per block as fit the budget; a block of 32 may take twice as much
        // shared memory before the in-place path is the better one.
        int lanes = max_serial_lanes;
        while (lanes > 32 && (lanes + 1) * bytes > staging_budget) lanes /= 2;
        const bool staged = (lanes + 1) * bytes <= 2 * staging_budget;
        const auto layout = layout_of(ops, lanes + 1);
        launch::TeamPolicy policy{(count + lanes - 1) / lanes, lanes, 1};
        if (staged) policy.set_scratch_bytes(layout.total * static_cast<size_type>(sizeof(T)));
        launch::team_parallel_for(exec, policy,
                                  SerialTeams<T, K, F>{f, ops, layout, count, lanes, staged});
    }

    template <typename ModeT, typename T, int K, typename F>
    void run_matrix_teams(size_type count, const Operands<T, K>& ops, const F& f) const
    {
        const int n = ops.max_extent();
        const int threads = team_threads(n);
        const int vector = std::is_same_v<ModeT, Mode::TeamVector>
                               ? std::min(threads, std::min(32, next_power_of_two(n)))
                               : 1;
        const auto layout = layout_of(ops, 1);
        const auto bytes = layout.total * static_cast<size_type>(sizeof(T));
        const bool staged = bytes <= 2 * staging_budget;
        launch::TeamPolicy policy{count, threads / vector, vector};
        if (staged) policy.set_scratch_bytes(bytes);
        launch::team_parallel_for(exec, policy,
                                  MatrixTeams<ModeT, T, K, F>{f, ops, layout, staged});
    }
};

}  // namespace loom::batched::cuda_front

namespace loom::batched::backend {
template <>
struct DriverOf<CudaExecutor> {
    using type = cuda_front::Driver;
};
}  // namespace loom::batched::backend
