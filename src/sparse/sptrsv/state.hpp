// What an SptrsvHandle keeps between the analysis and the solves.
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "sparse/sptrsv/kernels.hpp"

namespace loom::sparse::detail {

template <typename V, typename I>
struct SptrsvState {
    std::shared_ptr<const Executor> exec;
    SptrsvAlgorithm algorithm = SptrsvAlgorithm::level_set;  ///< resolved
    /// T's pattern as the analysis saw it.
    PatternFingerprint pattern;
    /// op(T) transposed (op transpose or conj_transpose): the rows of T^T and, for each of
    /// their entries, where T stores its value. Empty for op none.
    Array<I> transposed_row_ptrs;
    Array<I> transposed_col_idxs;
    Array<I> transposed_value_index;
    /// What the analysis found (all algorithms), and the schedule of level_set (stages) and
    /// sync_free (its level order only).
    size_type levels = 0;
    size_type max_level_width = 0;
    LevelSchedule<I> schedule;
    /// CUDA persistent level set: op(T)'s rows in level order (empty otherwise).
    LevelOrderedRows<V, I> level_ordered;
    /// The supernode partition (every algorithm: automatic decides on it) and, for the
    /// supernodal algorithm, its schedule and inverted diagonal blocks.
    size_type supernode_count = 0;
    Supernodes<V, I> supernodes;
    /// vendor: cuSPARSE's descriptors, buffer and analysis (cusparse.cu).
    std::shared_ptr<void> vendor;
};

}  // namespace loom::sparse::detail
