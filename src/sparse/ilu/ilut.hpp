// Saad's ILUT(p, tau) (IluKind::ilut), on the host for every executor: row i of A is eliminated
// in a sparse work row (IKJ) by the rows of U before it; a multiplier smaller than tau ||a_i||
// is dropped before it is used, and at the end of the row the entries smaller than
// tau ||a_i|| go and L and U each keep their p largest. A zero or tiny pivot is replaced by
// sqrt(max(tau, 1e-12)) ||a_i|| (Eigen's IncompleteLUT rule with its default tau), counted.
//
// The pattern depends on A's values, so the symbolic phase runs the whole elimination and
// records its decisions (the pivots each row used, the entries it kept); a numeric phase
// repeats the elimination with those decisions for A's current values: the same numbers as
// the symbolic phase's for the same values, a fixed-pattern ILU for new ones.
#pragma once

#include <vector>

#include "loom/base/types.hpp"

namespace loom::sparse::detail {

/// The decisions of ILUT's symbolic phase: per row the pivots (columns of L) the elimination
/// used, in increasing order, and the kept entries: L with its unit diagonal last, U with its
/// diagonal first (sorted rows).
template <typename I>
struct IlutPattern {
    std::vector<I> pivot_ptrs, pivot_cols;
    std::vector<I> l_ptrs, l_cols;
    std::vector<I> u_ptrs, u_cols;
};

/// A on the host, plus shift * scale_i on the diagonal (scale: nullptr for none).
template <typename V, typename I>
struct IlutInput {
    size_type n = 0;
    const I* ptrs = nullptr;
    const I* cols = nullptr;
    const V* vals = nullptr;
    const V* scale = nullptr;
    V shift{};
};

/// ILUT's factors, on the host, with the pivots replaced.
template <typename V>
struct IlutValues {
    std::vector<V> l, u;
    size_type replaced_pivots = 0;
};

/// The symbolic phase: the elimination with dropping; L and U each keep at most `per_row`
/// off-diagonal entries a row. `values` receives the factors it computed on the way (what
/// ilut_values gives for the same A, which a numeric phase can then take as they are).
template <typename V, typename I>
IlutPattern<I> ilut_pattern(const IlutInput<V, I>& a, size_type per_row, double drop_tolerance,
                            IlutValues<V>& values);

/// The numeric phase: the elimination repeated with `pattern`'s decisions. Returns the first
/// row whose pivot is not finite, or n (then `values` holds the factors).
template <typename V, typename I>
size_type ilut_values(const IlutInput<V, I>& a, const IlutPattern<I>& pattern,
                      double drop_tolerance, IlutValues<V>& values);

}  // namespace loom::sparse::detail
