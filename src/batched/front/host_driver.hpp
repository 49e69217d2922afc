// How the host backends (OpenMP and reference) run the front-level batched calls, through the
// team launcher: one team (one thread) per matrix on the executor's threads, in place on the
// batch. Launch::simd packs W matrices into SIMD packs per league rank (in the thread's team
// scratch, so a pack stays in cache from packing to unpacking) and runs the Serial routine on
// the packs; GEMM's simd launch runs the vectorized kernel of host_gemm.hpp instead where the
// CPU has it (see NOTES.md, "Host").
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "batched/front/calls.hpp"
#include "batched/front/host_gemm.hpp"
#include "batched/front/kernels.hpp"
#include "loom/batched/simd.hpp"
#include "loom/launch/team.hpp"

namespace loom::batched::host_front {

using front::Operands;

template <typename F>
inline constexpr bool is_gemm_call = false;
template <typename T, typename TA, typename TB>
inline constexpr bool is_gemm_call<front::GemmCall<T, TA, TB>> = true;

/// Matrices per league rank of the vectorized GEMM: enough to make the launch's per-rank
/// cost vanish, few enough to balance the threads.
constexpr size_type gemm_chunk = 32;

/// Packs of 32 bytes (AVX2): 4 doubles or 8 floats per pack.
template <typename T>
constexpr int simd_width = 32 / static_cast<int>(sizeof(T));

/// Bytes of team scratch for one pack of every operand, each aligned for its packs.
template <typename P, int K>
size_type pack_scratch_bytes(const Operands<P, K>& ops)
{
    return static_cast<size_type>(ops.total_entries() + K) * static_cast<size_type>(sizeof(P)) +
           alignof(P);
}

template <typename P>
P* aligned(void* raw)
{
    const auto address = reinterpret_cast<std::uintptr_t>(raw);
    return reinterpret_cast<P*>((address + alignof(P) - 1) / alignof(P) * alignof(P));
}

/// Runs a front-level call's functor over a batch on a host executor: one team (one thread)
/// per matrix, in place, or one per SIMD pack of W matrices. The reference executor always
/// runs the Serial routines, one matrix after the other (it is the oracle).
template <typename Exec>
struct Driver {
    const Exec& exec;

    template <typename V>
    using value = V;

    template <typename T, int K, typename F>
    void run(Launch launch, size_type count, const Operands<T, K>& ops, const F& f) const
    {
        if constexpr (std::is_same_v<Exec, ReferenceExecutor>) launch = Launch::serial;
        switch (launch) {
        case Launch::team: return run_teams(Mode::Team{}, count, ops, f);
        case Launch::team_vector: return run_teams(Mode::TeamVector{}, count, ops, f);
        case Launch::simd:
            if constexpr (!is_complex_v<T> && is_gemm_call<F>) {
                if (run_vector_gemm(count, ops, f)) return;
            }
            if constexpr (!is_complex_v<T> && front::has_pack_version<F>) {
                return run_simd<simd_width<T>>(count, ops, f);
            }
            [[fallthrough]];  // front.cpp refuses simd for these; serial is the safe reading
        default: return run_teams(Mode::Serial{}, count, ops, f);
        }
    }

    template <typename ModeT, typename T, int K, typename F>
    void run_teams(ModeT mode, size_type count, const Operands<T, K>& ops, const F& f) const
    {
        launch::team_parallel_for(exec, launch::TeamPolicy{count, 1, 1}, [&](const auto& m) {
            const size_type b = m.league_rank();
            front::with_views(
                ops, [&](int k) { return ops[k].global(b); },
                [&](const auto&... views) { f(mode, m, b, views...); });
        });
    }

    /// GEMM by the vectorized host kernel, chunk by chunk; false where the CPU has none.
    template <typename T, typename F>
    bool run_vector_gemm(size_type count, const Operands<T, 3>& ops, const F& f) const
    {
        const auto kernel = host_kernels::vector_gemm_kernel<T>();
        if (kernel == nullptr) return false;
        const auto& a = ops[0];
        const auto& b = ops[1];
        const auto& c = ops[2];
        // (row, column) strides of the matrix the routine sees (C is never transposed).
        const auto strides = [](const front::Operand<T>& o) {
            return o.transposed ? std::pair<size_type, size_type>{1, o.stride}
                                : std::pair<size_type, size_type>{o.stride, 1};
        };
        const auto [a_row, a_col] = strides(a);
        const auto [b_row, b_col] = strides(b);
        const int depth = a.transposed ? a.rows : a.cols;
        const host_kernels::GemmBatch<T> batch{a.data, a_row,    a_col,          a.batch_stride,
                                               b.data, b_row,    b_col,          b.batch_stride,
                                               c.data, c.stride, c.batch_stride, c.rows,
                                               c.cols, depth,    f.alpha,        f.beta};
        const size_type b_copy = b_col == 1 ? 0 : static_cast<size_type>(depth) * c.cols;
        launch::TeamPolicy policy{pack_count(count, gemm_chunk), 1, 1};
        policy.set_scratch_bytes(b_copy * static_cast<size_type>(sizeof(T)));
        launch::team_parallel_for(exec, policy, [&](const auto& m) {
            const size_type first = m.league_rank() * gemm_chunk;
            const size_type last = std::min(count, first + gemm_chunk);
            kernel(batch, first, last, b_copy > 0 ? m.template team_scratch<T>(b_copy) : nullptr);
        });
        return true;
    }

    /// One league rank per pack of W matrices: pack, compute, unpack, all in cache.
    template <int W, typename T, int K, typename F>
    void run_simd(size_type count, const Operands<T, K>& ops, const F& f) const
    {
        using P = Simd<T, W>;
        // Pack views: row-major packs of each stored matrix (packs are views of P).
        Operands<P, K> pack_ops;
        for (int k = 0; k < K; ++k) {
            pack_ops.op[k] = {nullptr, ops[k].rows, ops[k].cols, ops[k].cols, 0,
                              ops[k].read, ops[k].written, ops[k].transposed};
        }
        launch::TeamPolicy policy{pack_count(count, W), 1, 1};
        policy.set_scratch_bytes(pack_scratch_bytes(pack_ops));
        launch::team_parallel_for(exec, policy, [&](const auto& m) {
            const size_type p = m.league_rank();
            const size_type first = p * W;
            const size_type lanes = std::min<size_type>(W, count - first);
            P* packs[K];
            for (int k = 0; k < K; ++k) {
                const auto& o = ops[k];
                packs[k] = aligned<P>(m.team_scratch((o.entries() + 1) * sizeof(P)));
                // Outputs are packed too: the routines may read them (beta != 0, in-place).
                pack(o.data + first * o.batch_stride, lanes, o.rows, o.cols, o.stride,
                     o.batch_stride, packs[k]);
            }
            front::with_views(
                pack_ops, [&](int k) { return pack_ops[k].packed(packs[k]); },
                [&](const auto&... views) { f(Mode::Serial{}, m, p, views...); });
            // A lane whose routine failed keeps its matrix: its pack holds infinities.
            const int32* info = info_of(f);
            for (int l = 0; l < lanes; ++l) {
                if (info != nullptr && info[first + l] != 0) continue;
                for (int k = 0; k < K; ++k) {
                    if (ops[k].written) unpack_lane(packs[k], l, ops[k], first + l);
                }
            }
        });
    }

    /// Lane l of a pack array back into matrix b of the operand.
    template <typename P, typename T>
    static void unpack_lane(const P* packs, int l, const front::Operand<T>& o, size_type b)
    {
        T* out = o.data + b * o.batch_stride;
        for (int i = 0; i < o.rows; ++i) {
            for (int j = 0; j < o.cols; ++j) out[i * o.stride + j] = packs[i * o.cols + j][l];
        }
    }

    /// The info array a routine's functor fills, or null.
    template <typename F>
    static const int32* info_of(const F& f)
    {
        if constexpr (requires { f.info; }) {
            return f.info;
        } else {
            return nullptr;
        }
    }
};

}  // namespace loom::batched::host_front

namespace loom::batched::backend {
template <>
struct DriverOf<ReferenceExecutor> {
    using type = host_front::Driver<ReferenceExecutor>;
};
template <>
struct DriverOf<OmpExecutor> {
    using type = host_front::Driver<OmpExecutor>;
};
}  // namespace loom::batched::backend
