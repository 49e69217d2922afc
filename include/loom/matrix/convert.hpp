// Conversions between the matrix formats. Each runs on the source's executor and returns the
// result there; nothing travels through the host (only a count, a width or a flag is read
// back to size the result or pick a path). The source is never modified.
//
// What each target keeps:
// * Csr, Coo, Ell, Sellp from a sparse format keep every stored entry, explicit zeros and
//   duplicates included, ordered by row and in their original order within a row (a Coo
//   need not be sorted; its entries are stably sorted by row). Merging duplicates is not a
//   conversion.
// * from Dense: the non-zero values, columns ascending within a row.
// * to Dense: duplicates are summed (in stored order, so every backend gives the same bits).
//
// Conversions trust the source's structure, which the containers validate when they are
// built from user arrays (Csr, Coo) or on request (validate()).
#pragma once

#include "loom/base/types.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

template <typename V, typename I>
LOOM_EXPORT Csr<V, I> to_csr(const Coo<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Csr<V, I> to_csr(const Ell<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Csr<V, I> to_csr(const Sellp<V, I>& source);
/// The index type is chosen by the caller: to_csr<int64>(dense).
template <typename I = int32, typename V>
LOOM_EXPORT Csr<V, I> to_csr(const Dense<V>& source);

template <typename V, typename I>
LOOM_EXPORT Coo<V, I> to_coo(const Csr<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Coo<V, I> to_coo(const Ell<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Coo<V, I> to_coo(const Sellp<V, I>& source);
template <typename I = int32, typename V>
LOOM_EXPORT Coo<V, I> to_coo(const Dense<V>& source);

/// Width = the longest row; stride = rows.
template <typename V, typename I>
LOOM_EXPORT Ell<V, I> to_ell(const Csr<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Ell<V, I> to_ell(const Coo<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Ell<V, I> to_ell(const Sellp<V, I>& source);
template <typename I = int32, typename V>
LOOM_EXPORT Ell<V, I> to_ell(const Dense<V>& source);

/// Slices of slice_size rows, each as wide as its longest row rounded up to a multiple of
/// stride_factor. BadInput unless both are positive.
template <typename V, typename I>
LOOM_EXPORT Sellp<V, I> to_sellp(const Csr<V, I>& source,
                                 size_type slice_size = Sellp<V, I>::default_slice_size,
                                 size_type stride_factor = Sellp<V, I>::default_stride_factor);
template <typename V, typename I>
LOOM_EXPORT Sellp<V, I> to_sellp(const Coo<V, I>& source,
                                 size_type slice_size = Sellp<V, I>::default_slice_size,
                                 size_type stride_factor = Sellp<V, I>::default_stride_factor);
template <typename V, typename I>
LOOM_EXPORT Sellp<V, I> to_sellp(const Ell<V, I>& source,
                                 size_type slice_size = Sellp<V, I>::default_slice_size,
                                 size_type stride_factor = Sellp<V, I>::default_stride_factor);
template <typename I = int32, typename V>
LOOM_EXPORT Sellp<V, I> to_sellp(const Dense<V>& source,
                                 size_type slice_size = Sellp<V, I>::default_slice_size,
                                 size_type stride_factor = Sellp<V, I>::default_stride_factor);

/// A packed (stride = cols) dense matrix; duplicate entries are summed.
template <typename V, typename I>
LOOM_EXPORT Dense<V> to_dense(const Csr<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Dense<V> to_dense(const Coo<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Dense<V> to_dense(const Ell<V, I>& source);
template <typename V, typename I>
LOOM_EXPORT Dense<V> to_dense(const Sellp<V, I>& source);

}  // namespace loom::matrix

LOOM_PUBLIC_END
