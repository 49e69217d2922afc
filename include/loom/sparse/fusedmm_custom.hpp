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
// vector lanes per chunk of fusedmm_chunk consecutive nonzeros of A (the short rows it holds
// one after the other, or a piece of a long row), the lanes along k for the dot products and
// along kw for the accumulation (kept in team scratch). A row cut by chunk ends leaves one
// partial row per chunk, which a second launch adds up in chunk order: a row of a million
// entries keeps thousands of teams busy, and the same input gives the same bits every run.
// On a CUDA executor the call must be compiled by nvcc (a .cu file with --extended-lambda);
// elsewhere it raises NotSupported there. The library's
// built-in operators (fusedmm.hpp) run this same kernel.
#pragma once

#include <algorithm>
#include <string>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/launch/row_search.hpp"
#include "loom/launch/team.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/fusedmm.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {
namespace detail {

/// Nonzeros of A per team: a longer row is split over several teams, so that a hub row of a
/// power-law graph (10^6 entries) spreads over the whole machine instead of one team.
inline constexpr size_type fusedmm_chunk = 256;

/// The partial rows of Z of the rows cut by chunk ends, kw sums each: per chunk, slot 0 holds
/// the row that began in an earlier chunk, slot 1 the row that goes on into a later one.
template <typename T>
struct CutRows {
    T* partials;  // [chunk][slot][kw]
    size_type kw;

    LOOM_HOST_DEVICE T* at(size_type chunk, int slot) const
    {
        return partials + (2 * chunk + slot) * kw;
    }
    /// The chunk holding entry e: a row of entries [begin, end) is cut when chunk_of(begin)
    /// and chunk_of(end - 1) differ.
    LOOM_HOST_DEVICE static size_type chunk_of(size_type entry) { return entry / fusedmm_chunk; }
};

/// First pass, a team per chunk of fusedmm_chunk consecutive nonzeros: each row (or piece of a
/// row) of the chunk is summed in team scratch, one dot product over the lanes and kw
/// multiply-adds spread over them per stored (i, j). A row wholly in the chunk goes to Z; a
/// piece of a cut row goes to its partial slot, for FusedmmCutRows.
template <typename V, typename I, typename Edge>
struct FusedmmChunks {
    Edge edge;
    const I* row_ptrs;
    const I* cols;
    const V* values;
    size_type rows;
    size_type nnz;
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
    CutRows<compute_type_t<V>> cut;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        using T = compute_type_t<V>;
        const size_type chunk = m.league_rank();
        const size_type first = chunk * fusedmm_chunk;
        const size_type last = first + fusedmm_chunk < nnz ? first + fusedmm_chunk : nnz;
        T* acc = m.template team_scratch<T>(kw);  // launch_fusedmm asks for kw sums of T
        size_type e = first;
        const auto first_row = static_cast<size_type>(row_of_entry(row_ptrs, rows, first));
        for (size_type i = first_row; e < last; ++i) {
            const size_type begin = row_ptrs[i];
            const size_type end = row_ptrs[i + 1];
            if (end <= e) continue;  // an empty row: FusedmmCutRows zeros it
            const size_type stop = end < last ? end : last;
            sum_row(m, i, e, stop, acc);
            // Each lane owns the same columns of acc in every vector_for: no barrier is needed.
            if (begin >= first && end <= last) {
                V* z_row = z + i * z_stride;
                m.vector_for(kw, [&](size_type q) { z_row[q] = static_cast<V>(acc[q]); });
            } else {
                T* partial = cut.at(chunk, begin < first ? 0 : 1);
                m.vector_for(kw, [&](size_type q) { partial[q] = acc[q]; });
            }
            e = stop;
        }
    }

    /// acc = sum over the entries [begin, end) of row i of edge(x_i . y_j, a_ij) * w_j.
    template <typename Member, typename T>
    LOOM_HOST_DEVICE void sum_row(const Member& m, size_type i, size_type begin, size_type end,
                                  T* acc) const
    {
        const V* x_row = x + i * x_stride;
        m.vector_for(kw, [&](size_type q) { acc[q] = T{0}; });
        for (size_type e = begin; e < end; ++e) {
            const size_type j = cols[e];
            const V* y_row = y + j * y_stride;
            const V* w_row = w + j * w_stride;
            const T dot = m.vector_reduce_sum(k, [&](size_type t) {
                return static_cast<T>(x_row[t]) * static_cast<T>(y_row[t]);
            });
            const T s = edge(dot, static_cast<T>(values[e]));
            m.vector_for(kw, [&](size_type q) { acc[q] += s * static_cast<T>(w_row[q]); });
        }
    }
};

/// Chunks per segment of the cut rows' sum: a row cut into many chunks (the hub row of a
/// power-law graph spans thousands) adds each whole segment's sum, taken by a team of its own
/// beforehand (FusedmmCutSegments), instead of one team walking every chunk's partial row.
inline constexpr size_type fusedmm_cut_segment = 32;

/// Whether the slots 0 of the chunks [c0, c0 + fusedmm_cut_segment) all hold pieces of the row
/// cut from first_chunk to last_chunk: the row began before chunk c0 and reaches the
/// segment's last chunk.
LOOM_HOST_DEVICE inline bool whole_segment(size_type c0, size_type first_chunk,
                                           size_type last_chunk)
{
    return c0 > first_chunk && c0 + fusedmm_cut_segment - 1 <= last_chunk;
}

/// Between the two passes, a team per segment of fusedmm_cut_segment chunks: where one cut row
/// fills the slot 0 of all of them, their partial rows are added in chunk order into the
/// segment's sum (kw each).
template <typename V, typename I>
struct FusedmmCutSegments {
    const I* row_ptrs;
    size_type rows;
    CutRows<compute_type_t<V>> cut;
    compute_type_t<V>* segment_sums;  // [segment][kw]

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        using T = compute_type_t<V>;
        const size_type c0 = m.league_rank() * fusedmm_cut_segment;
        const auto row = static_cast<size_type>(
            row_of_entry(row_ptrs, rows, c0 * fusedmm_chunk));
        const size_type begin = row_ptrs[row];
        const size_type end = row_ptrs[row + 1];
        if (!whole_segment(c0, cut.chunk_of(begin), cut.chunk_of(end - 1))) return;
        T* sum = segment_sums + m.league_rank() * cut.kw;
        m.vector_for(cut.kw, [&](size_type q) {
            T s = cut.at(c0, 0)[q];
            for (size_type c = c0 + 1; c < c0 + fusedmm_cut_segment; ++c) s += cut.at(c, 0)[q];
            sum[q] = s;
        });
    }
};

/// Second pass, a team per row of Z: a cut row becomes the sum of its partials in chunk order,
/// a whole segment's sum (FusedmmCutSegments) in place of its chunks (the same bits on every
/// run: no atomics), an empty row zero; other rows are done already.
template <typename V, typename I>
struct FusedmmCutRows {
    const I* row_ptrs;
    V* z;
    size_type z_stride;
    size_type kw;
    CutRows<compute_type_t<V>> cut;
    const compute_type_t<V>* segment_sums;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& m) const
    {
        using T = compute_type_t<V>;
        const size_type i = m.league_rank();
        const size_type begin = row_ptrs[i];
        const size_type end = row_ptrs[i + 1];
        V* z_row = z + i * z_stride;
        if (begin == end) {
            m.vector_for(kw, [&](size_type q) { z_row[q] = V{}; });
            return;
        }
        const size_type first_chunk = cut.chunk_of(begin);
        const size_type last_chunk = cut.chunk_of(end - 1);
        if (first_chunk == last_chunk) return;
        m.vector_for(kw, [&](size_type q) {
            T sum = cut.at(first_chunk, 1)[q];
            for (size_type c = first_chunk + 1; c <= last_chunk;) {
                if (c % fusedmm_cut_segment == 0 && whole_segment(c, first_chunk, last_chunk)) {
                    sum += segment_sums[c / fusedmm_cut_segment * kw + q];
                    c += fusedmm_cut_segment;
                } else {
                    sum += cut.at(c, 0)[q];
                    ++c;
                }
            }
            z_row[q] = static_cast<V>(sum);
        });
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

/// The two team launches of FusedmmChunks and FusedmmCutRows on exec's backend.
template <typename Exec, typename V, typename I, typename Edge>
void launch_fusedmm(const Exec& exec, Edge edge, const matrix::Csr<V, I>& A,
                    const matrix::Dense<V>& X, const matrix::Dense<V>& Y, const matrix::Dense<V>& W,
                    matrix::Dense<V>& Z)
{
    using T = compute_type_t<V>;
    const size_type k = X.cols();
    const size_type kw = W.cols();
    // Lanes enough for the wider of the two loops, at most a warp.
    int lanes = 1;
    while (lanes < 32 && lanes < std::max(k, kw)) lanes *= 2;
    const size_type chunks = (A.nnz() + fusedmm_chunk - 1) / fusedmm_chunk;
    // Two partial rows a chunk, then the segment sums.
    const size_type segments = chunks / fusedmm_cut_segment;
    Array<T> partials(A.executor(), (2 * chunks + segments) * kw);
    const CutRows<T> cut{partials.data(), kw};
    T* segment_sums = partials.data() + 2 * chunks * kw;
    launch::TeamPolicy chunk_policy{chunks, 1, lanes};
    chunk_policy.set_scratch_bytes(kw * static_cast<size_type>(sizeof(T)));
    launch::team_parallel_for(
        exec, chunk_policy,
        FusedmmChunks<V, I, Edge>{edge, A.row_ptrs().data(), A.col_idxs().data(),
                                  A.values().data(), A.rows(), A.nnz(), X.data(), X.stride(),
                                  Y.data(), Y.stride(), W.data(), W.stride(), Z.data(), Z.stride(),
                                  k, kw, cut});
    if (segments > 0) {
        launch::team_parallel_for(
            exec, launch::TeamPolicy{segments, 1, lanes},
            FusedmmCutSegments<V, I>{A.row_ptrs().data(), A.rows(), cut, segment_sums});
    }
    launch::team_parallel_for(
        exec, launch::TeamPolicy{A.rows(), 1, lanes},
        FusedmmCutRows<V, I>{A.row_ptrs().data(), Z.data(), Z.stride(), kw, cut, segment_sums});
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
