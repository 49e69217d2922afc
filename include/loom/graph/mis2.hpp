// MIS-2: a maximal set of vertices no two of which are within distance 2 of each other, and
// the aggregation (coarsening) built on it, as multigrid uses them.
//
// A graph is the pattern of a square Csr (values are ignored; self-loops are ignored). The
// set is taken on the symmetrized pattern, pattern(A) + pattern(A^T), so an asymmetric matrix
// is fine; a caller who knows the pattern is symmetric says so (Mis2Options::symmetric) and
// saves that step.
//
// The result is deterministic: the same set on every backend, every thread count and every
// run (priorities come from a hash of the vertex id, never from random state; see
// src/graph/mis2/NOTES.md).
#pragma once

#include <string>

#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::graph {

/// `fast`: hashed priorities, re-drawn every round. `quality`: low-degree vertices first
/// (ties by hash), which usually gives larger sets, hence smaller aggregates.
enum class Mis2Mode { fast, quality };

LOOM_NAME_TABLE(Mis2Mode, mis2_mode_names, "MIS-2 mode",
    {Mis2Mode::fast, "fast", "hashed priorities, re-drawn every round"},
    {Mis2Mode::quality, "quality", "low degree first: usually larger sets"},
);

/// A name of mis2_mode_names; BadInput listing the names otherwise.
Mis2Mode parse_mis2_mode(const std::string& text);

struct Mis2Options {
    Mis2Mode mode = Mis2Mode::fast;
    /// The caller guarantees pattern(A) == pattern(A^T): the symmetrization is skipped. A
    /// wrong promise gives a set that is independent along A's stored edges only.
    bool symmetric = false;
};

/// The vertices of a maximal distance-2 independent set of A's graph, sorted, on A's
/// executor. BadInput for a non-square matrix or one without an executor; NotSupported when
/// the symmetrized pattern (up to 2 nnz(A) entries) would not fit the index type.
template <typename V, typename I>
LOOM_EXPORT Array<I> mis2(const matrix::Csr<V, I>& A, const Mis2Options& options = {});

/// Every vertex's aggregate: the roots are an MIS-2 (aggregate a has root roots[a], the
/// roots in increasing order); a vertex adjacent to a root joins it (it is adjacent to one
/// root only), every other vertex joins the aggregate it has most edges to among its
/// neighbours adjacent to a root (ties, and rows over 64 entries: the lowest aggregate id).
/// Every vertex is within distance 2 of its root.
template <typename I>
struct Aggregation {
    Array<I> aggregate_of;  ///< one aggregate id per vertex, in [0, count())
    Array<I> roots;         ///< the root vertex of every aggregate (the MIS-2, sorted)
    size_type count() const noexcept { return roots.size(); }
};

/// The MIS-2 aggregation of A's graph, on A's executor (errors as mis2()).
template <typename V, typename I>
LOOM_EXPORT Aggregation<I> mis2_aggregation(const matrix::Csr<V, I>& A, const Mis2Options& options = {});

/// The coarse graph P^T A P, where P (vertices x aggregates) has P(v, aggregate_of[v]) = 1:
/// count() x count(), columns sorted and distinct, values the sums of A's entries between
/// two aggregates (summed in A's stored order: the same bits on every backend). BadInput
/// when the aggregation does not belong to A (size, executor).
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> coarse_graph(const matrix::Csr<V, I>& A, const Aggregation<I>& aggregation);

}  // namespace loom::graph

LOOM_PUBLIC_END
