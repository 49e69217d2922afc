// What one row (or one aggregate) contributes to the multigrid setup kernels, written once for
// every backend: the reference visits them in order, OpenMP and CUDA through the unified
// launchers (unified.hpp). The value type is the one a kernel body sees (thrust::complex on
// CUDA, std::complex on the host), so only real()/imag() and arithmetic are used; magnitudes
// are summed in double, as the host setup did.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "base/kernel_scalar.hpp"
#include "base/search.hpp"
#include "graph/mis2/rules.hpp"
#include "loom/base/types.hpp"
#include "loom/launch/macros.hpp"

namespace loom::multigrid::setup_rows {

template <typename T>
LOOM_HOST_DEVICE double squared_magnitude(const T& x)
{
    if constexpr (std::is_arithmetic_v<T>) {
        return static_cast<double>(x) * static_cast<double>(x);
    } else {
        const auto re = static_cast<double>(x.real());
        const auto im = static_cast<double>(x.imag());
        return re * re + im * im;
    }
}

using loom::detail::conjugate;
using loom::detail::real_part;

/// The tie-break of two couplings of equal strength: a hash of the edge {r, c}, the same
/// from both ends. Ties by plain index would pair a grid's vertices one pair per round (each
/// vertex picking its lowest neighbour makes a chain with one mutual pair at its end); hashed
/// edges are locally maximal all over the graph, so a round pairs a fixed share of them.
template <typename I>
LOOM_HOST_DEVICE std::uint64_t edge_hash(I r, I c)
{
    const auto lo = static_cast<std::uint64_t>(r < c ? r : c);
    const auto hi = static_cast<std::uint64_t>(r < c ? c : r);
    return graph::mis2_detail::mix((lo << 32) ^ hi);
}

/// The neighbour c of vertex r, among the unmatched ones (matched = false) or the matched
/// ones (true: where a vertex left alone joins), with the strongest negative coupling
/// relative to the larger diagonal, -Re s_rc / max(|s_rr|, |s_cc|) > 0 (Ginkgo's PGM weight:
/// without the diagonal a large aggregate, whose couplings are the sums of many entries,
/// draws every neighbour to itself and the next levels pair one vertex each), compared in
/// single precision; ties: the larger edge_hash, then the lowest c. -1 when there is none.
/// partner[c] >= 0 marks a matched vertex; `diagonal` is a column of stride `stride`. The
/// choice depends on the set of entries only, not their order, so every backend makes it
/// alike.
template <typename V, typename I>
LOOM_HOST_DEVICE I strongest_neighbour(const I* ptrs, const I* cols, const V* vals,
                                       const V* diagonal, size_type stride, const I* partner,
                                       bool matched, size_type r)
{
    const auto self = static_cast<I>(r);
    const double own = ::sqrt(squared_magnitude(diagonal[r * stride]));
    I best = -1;
    double best_weight = 0;
    std::uint64_t best_hash = 0;
    for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
        const auto c = cols[k];
        if (c == self || (partner[c] >= 0) != matched) continue;
        const double other = ::sqrt(squared_magnitude(diagonal[static_cast<size_type>(c) * stride]));
        const double larger = own > other ? own : other;
        // In single precision: coarse operators computed on two backends may differ in their
        // last bits, and a tie broken by rounding would pair differently.
        const double weight =
            static_cast<float>(-real_part(vals[k]) / (larger > 0 ? larger : 1.0));
        if (!(weight >= best_weight) || weight <= 0) continue;
        const auto hash = edge_hash(self, c);
        if (best < 0 || weight > best_weight || hash > best_hash ||
            (hash == best_hash && c < best)) {
            best = c;
            best_weight = weight;
            best_hash = hash;
        }
    }
    return best;
}

/// A matched pair's root is its lower vertex; a vertex left alone that joins a pair
/// (joined[v] = a vertex of it) has that pair's root; any other vertex is its own root.
template <typename I>
LOOM_HOST_DEVICE I pair_root(const I* partner, const I* joined, size_type v)
{
    auto self = static_cast<I>(v);
    if (partner[v] < 0 && joined[v] >= 0) self = joined[v];
    const auto p = partner[self];
    return p >= 0 && p < self ? p : self;
}

/// Entry i of the power iteration's start vector: in [-0.5, 0.5), a hash of i (SplitMix64's
/// finalizer), so every backend makes the same vector where it is, with every frequency in it.
LOOM_HOST_DEVICE inline double start_value(size_type i)
{
    const auto hash = graph::mis2_detail::mix(static_cast<std::uint64_t>(i) + 0x9e3779b97f4a7c15ull);
    return static_cast<double>(hash >> 11) * 0x1p-53 - 0.5;
}

/// The strength filter's test for entry (r, c): |a|^2 >= theta^2 |d_r| |d_c|, the diagonal
/// always kept. `diagonal` is a rows x 1 column of stride `stride`.
template <typename V, typename I>
LOOM_HOST_DEVICE bool is_strong(const V& a, size_type r, I c, const V* diagonal,
                                size_type stride, double theta_squared)
{
    if (c == static_cast<I>(r)) return true;
    const double dr = ::sqrt(squared_magnitude(diagonal[r * stride]));
    const double dc = ::sqrt(squared_magnitude(diagonal[static_cast<size_type>(c) * stride]));
    return squared_magnitude(a) >= theta_squared * dr * dc;
}

/// A's rows as the strength filter reads them (values as the backend's kernels see them), for
/// its two passes: count the kept entries of each row, then copy them.
template <typename V, typename I>
struct StrengthRows {
    const I* ptrs;
    const I* cols;
    const V* vals;
    const V* diagonal;  ///< a rows x 1 column of stride `stride`
    size_type stride;
    double theta_squared;

    /// Row r's entries that the filter keeps.
    LOOM_HOST_DEVICE I count(size_type r) const
    {
        I kept = 0;
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            kept += is_strong(vals[k], r, cols[k], diagonal, stride, theta_squared) ? 1 : 0;
        }
        return kept;
    }

    /// Row r's kept entries, in order, into CSR arrays from position `at` on.
    LOOM_HOST_DEVICE void copy(size_type r, I at, I* out_cols, V* out_vals) const
    {
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (is_strong(vals[k], r, cols[k], diagonal, stride, theta_squared)) {
                out_cols[at] = cols[k];
                out_vals[at++] = vals[k];
            }
        }
    }
};

/// 1 / sum_j |a_rj|, or 0 for a zero row.
template <typename V, typename I>
LOOM_HOST_DEVICE V l1_inverse(const I* ptrs, const V* vals, size_type r)
{
    double sum = 0;
    for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) sum += ::sqrt(squared_magnitude(vals[k]));
    return sum == 0 ? V(0) : V(1.0 / sum);
}

/// Where P's entries of row r sit in R = P^T (R's rows sorted, entries distinct): entry k,
/// column c, is the entry of column r in R's row c, found by binary search.
template <typename I>
LOOM_HOST_DEVICE void transpose_positions_of_row(const I* p_ptrs, const I* p_cols,
                                                 const I* r_ptrs, const I* r_cols, size_type r,
                                                 I* positions)
{
    const auto row = static_cast<I>(r);
    for (auto k = p_ptrs[r]; k < p_ptrs[r + 1]; ++k) {
        const auto c = p_cols[k];
        positions[k] = r_ptrs[c] + static_cast<I>(loom::detail::lower_bound(
                                       r_cols + r_ptrs[c], r_ptrs[c + 1] - r_ptrs[c], row));
    }
}

/// The tentative prolongator of aggregate a, whose rows are members[first[a] .. first[a+1])
/// in increasing order: B's rows there = Q R by modified Gram-Schmidt, Q(r, j) into
/// Q[r m + j], R into rows a m .. a m + m - 1 of R (stride rstride, lower part zero). A column
/// that is rounding only once projected (relative to its own size) leaves R(j, j) = 0 and the
/// rest of the aggregate unfinished: the caller raises the error.
template <typename V, typename I>
LOOM_HOST_DEVICE void orthonormalize_aggregate(const I* first, const I* members, const V* B,
                                               size_type bstride, size_type m, V* Q, V* R,
                                               size_type rstride, size_type a)
{
    const auto begin = first[a];
    const auto end = first[a + 1];
    V* Ra = R + a * m * rstride;
    for (size_type j = 0; j < m; ++j) {
        double original = 0;
        for (auto k = begin; k < end; ++k) {
            const auto r = static_cast<size_type>(members[k]);
            Q[r * m + j] = B[r * bstride + j];
            original += squared_magnitude(Q[r * m + j]);
        }
        for (size_type i = 0; i < j; ++i) {
            V projection(0);
            for (auto k = begin; k < end; ++k) {
                const auto r = static_cast<size_type>(members[k]);
                projection += conjugate(Q[r * m + i]) * Q[r * m + j];
            }
            for (auto k = begin; k < end; ++k) {
                const auto r = static_cast<size_type>(members[k]);
                Q[r * m + j] -= projection * Q[r * m + i];
            }
            Ra[i * rstride + j] = projection;
        }
        for (size_type i = j + 1; i < m; ++i) Ra[i * rstride + j] = V(0);
        double norm = 0;
        for (auto k = begin; k < end; ++k) {
            norm += squared_magnitude(Q[static_cast<size_type>(members[k]) * m + j]);
        }
        norm = ::sqrt(norm);
        // What is left of the column is rounding, not a direction.
        if (!(norm > 1e-10 * ::sqrt(original))) {
            Ra[j * rstride + j] = V(0);
            return;
        }
        const V scale(1.0 / norm);
        for (auto k = begin; k < end; ++k) Q[static_cast<size_type>(members[k]) * m + j] *= scale;
        Ra[j * rstride + j] = V(norm);
    }
}

/// Whether aggregate a's R has a zero on its diagonal (orthonormalize_aggregate failed there).
template <typename V>
LOOM_HOST_DEVICE bool has_failed(const V* R, size_type m, size_type rstride, size_type a)
{
    for (size_type j = 0; j < m; ++j) {
        if (squared_magnitude(R[(a * m + j) * rstride + j]) == 0) return true;
    }
    return false;
}

}  // namespace loom::multigrid::setup_rows
