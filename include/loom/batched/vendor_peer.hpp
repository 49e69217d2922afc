// The vendor library's batched factorizations called alone on a batch as it is stored: what a
// benchmark times as the peer of Loom's own routines. cuBLAS is column-major, so on Loom's
// row-major batch it factors the transposes, and its results (1-based pivots, the transposed
// factors) are the vendor's, not Loom's: for timing only. A solver wanting the vendor's speed
// asks the front-level routines for Launch::vendor (loom/batched/front.hpp) instead.
#pragma once

#include "loom/base/array.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/batch_dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::batched {

using matrix::BatchDense;

/// cuBLAS getrfBatched on a packed square batch on a CUDA executor; pivots holds
/// batch_count * rows entries and info batch_count, both on A's executor. BadInput for other
/// sizes, NotSupported on the host executors or beyond cuBLAS's 32-bit counts.
template <typename V>
LOOM_EXPORT void vendor_peer_getrf(BatchDense<V>& A, Array<int32>& pivots, Array<int32>& info);

/// cuBLAS geqrfBatched on a CUDA executor; tau holds min(rows, cols) contiguous entries per
/// matrix. NotSupported on the host executors or for other layouts.
template <typename V>
LOOM_EXPORT void vendor_peer_qr(BatchDense<V>& A, BatchDense<V>& tau);

}  // namespace loom::batched

LOOM_PUBLIC_END
