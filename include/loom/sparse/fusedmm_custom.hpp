// FusedMM with an edge operator of the user's: z_i = sum_j edge(x_i . y_j, a_ij) * w_j.
// Header-only, so that any callable works: a class with a LOOM_HOST_DEVICE (or
// __host__ __device__) `T operator()(T dot, T a_ij) const`, T the compute type of V (V itself,
// float for the 16-bit storage types half and bfloat16, whose Z is rounded once at the end).
//
//     struct LeakyRelu {
//         LOOM_HOST_DEVICE float operator()(float dot, float) const
//         { return dot > 0 ? dot : 0.2f * dot; }
//     };
//     loom::sparse::fusedmm_with(LeakyRelu{}, A, X, Y, W, Z);
//
// Runs on the executor of A through the team launcher (loom/launch/team.hpp): a team of
// vector lanes per row of A, the lanes along k for the dot products and along kw for the
// accumulation (kept in team scratch). On a CUDA executor the call must be compiled by nvcc
// (a .cu file with --extended-lambda); elsewhere it raises NotSupported there. The library's
// built-in operators (fusedmm.hpp) run this same kernel.
#pragma once

#include <algorithm>
#include <string>

#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/launch/team.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/fusedmm.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {
namespace detail {

/// Row i of Z per team: zero the accumulator, then per stored (i, j) one dot product over the
/// lanes and kw multiply-adds spread over them.
template <typename V, typename I, typename Edge>
struct FusedmmRows {
    Edge edge;
    const I* row_ptrs;
    const I* cols;
    const V* values;
    const V* x;
    size_type x_stride;
    const V* y;
    size_type y_stride;
    const V* w;
    size_type w_stride;
    V* z;
    size_type z_stride;
    size_type k;
    size_type kw;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        using T = compute_type_t<V>;
        const size_type i = m.league_rank();
        const V* x_row = x + i * x_stride;
        V* z_row = z + i * z_stride;
        // Each lane owns the same columns of acc in every vector_for: no barrier is needed.
        // The policy asks for kw sums of T (launch_fusedmm); for V == T, Z itself would do.
        T* acc = m.template team_scratch<T>(kw);
        if constexpr (std::is_same_v<T, V>) {
            if (acc == nullptr) acc = z_row;
        }
        m.vector_for(kw, [&](size_type q) { acc[q] = T{0}; });
        for (size_type e = row_ptrs[i]; e < row_ptrs[i + 1]; ++e) {
            const size_type j = cols[e];
            const V* y_row = y + j * y_stride;
            const V* w_row = w + j * w_stride;
            const T dot = m.vector_reduce_sum(k, [&](size_type t) {
                return static_cast<T>(x_row[t]) * static_cast<T>(y_row[t]);
            });
            const T s = edge(dot, static_cast<T>(values[e]));
            m.vector_for(kw, [&](size_type q) { acc[q] += s * static_cast<T>(w_row[q]); });
        }
        if (static_cast<void*>(acc) != static_cast<void*>(z_row)) {
            m.vector_for(kw, [&](size_type q) { z_row[q] = static_cast<V>(acc[q]); });
        }
    }
};

inline std::string executor_name(const Executor* exec) { return exec ? exec->name() : "none"; }

/// Shapes, one executor, Z apart from the inputs; DimensionMismatch / BadInput otherwise.
template <typename V, typename I>
void check_fusedmm(const matrix::Csr<V, I>& A, const matrix::Dense<V>& X, const matrix::Dense<V>& Y,
                   const matrix::Dense<V>& W, const matrix::Dense<V>& Z)
{
    constexpr const char* where = "loom::sparse::fusedmm";
    if (X.rows() != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "X", X.size(),
                                "X needs one row per row of A");
    }
    if (Y.rows() != A.cols()) {
        throw DimensionMismatch(where, "A", A.size(), "Y", Y.size(),
                                "Y needs one row per column of A");
    }
    if (X.cols() != Y.cols()) {
        throw DimensionMismatch(where, "X", X.size(), "Y", Y.size(),
                                "X and Y need the same number of columns");
    }
    if (W.rows() != A.cols()) {
        throw DimensionMismatch(where, "A", A.size(), "W", W.size(),
                                "W needs one row per column of A");
    }
    if (Z.rows() != A.rows() || Z.cols() != W.cols()) {
        throw DimensionMismatch(where, "W", W.size(), "Z", Z.size(),
                                "Z needs one row per row of A and W's columns");
    }
    const auto* exec = A.executor().get();
    for (const auto* operand : {&X, &Y, &W, &Z}) {
        if (!exec || !operand->executor() || !exec->same_memory_as(*operand->executor())) {
            throw BadInput(where, "A, X, Y, W and Z must live in one executor's memory (A is on " +
                                      executor_name(exec) + ", Z on " +
                                      executor_name(Z.executor().get()) + ")");
        }
    }
    const auto* z_begin = Z.data();
    const auto* z_end = z_begin + Z.values().size();
    for (const auto* operand : {&X, &Y, &W}) {
        const auto* begin = operand->data();
        const auto* end = begin + operand->values().size();
        if (Z.size().count() > 0 && operand->size().count() > 0 && begin < z_end && z_begin < end) {
            throw BadInput(where,
                           "Z shares memory with an input; the result needs its own storage");
        }
    }
}

// What calls the launcher differs between host-compiled and nvcc-compiled translation units
// (only the latter reach CUDA): distinct inline namespaces keep the two apart at link time, as
// loom/launch/team.hpp does for team_parallel_for.
#if defined(__CUDACC__)
inline namespace with_cuda {
#else
inline namespace host_only {
#endif

/// The team launch of FusedmmRows on exec's backend.
template <typename Exec, typename V, typename I, typename Edge>
void launch_fusedmm(const Exec& exec, Edge edge, const matrix::Csr<V, I>& A,
                    const matrix::Dense<V>& X, const matrix::Dense<V>& Y, const matrix::Dense<V>& W,
                    matrix::Dense<V>& Z)
{
    const size_type k = X.cols();
    const size_type kw = W.cols();
    // Lanes enough for the wider of the two loops, at most a warp.
    int lanes = 1;
    while (lanes < 32 && lanes < std::max(k, kw)) lanes *= 2;
    launch::TeamPolicy policy{A.rows(), 1, lanes};
    policy.set_scratch_bytes(kw * static_cast<size_type>(sizeof(compute_type_t<V>)));
    launch::team_parallel_for(
        exec, policy,
        FusedmmRows<V, I, Edge>{edge, A.row_ptrs().data(), A.col_idxs().data(), A.values().data(),
                                X.data(), X.stride(), Y.data(), Y.stride(), W.data(), W.stride(),
                                Z.data(), Z.stride(), k, kw});
}

}  // inline namespace
}  // namespace detail

#if defined(__CUDACC__)
inline namespace with_cuda {
#else
inline namespace host_only {
#endif

/// Z = edge(X Y^T o pattern(A)) W for any edge callable (see the top of this header).
template <typename Edge, typename V, typename I>
void fusedmm_with(Edge edge, const matrix::Csr<V, I>& A, const matrix::Dense<V>& X,
                  const matrix::Dense<V>& Y, const matrix::Dense<V>& W, matrix::Dense<V>& Z)
{
    static_assert(!is_complex_v<V>, "FusedMM takes real value types");
    detail::check_fusedmm(A, X, Y, W, Z);
    if (Z.rows() == 0 || Z.cols() == 0) return;
    detail::launch_fusedmm(*A.executor(), edge, A, X, Y, W, Z);
}

}  // inline namespace

}  // namespace loom::sparse

LOOM_PUBLIC_END
