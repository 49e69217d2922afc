// What a SpaddHandle keeps between the symbolic and the numeric phase.
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "loom/sparse/spadd.hpp"

namespace loom::sparse::detail {

template <typename V, typename I>
struct SpaddState {
    std::shared_ptr<const Executor> exec;
    SpaddAlgorithm algorithm = SpaddAlgorithm::native;  ///< resolved: native or vendor
    /// The patterns the symbolic phase saw (C's as it made it).
    PatternFingerprint a;
    PatternFingerprint b;
    PatternFingerprint c;
    /// native: the offset of every entry of A (of B) within its row of C.
    Array<I> a_positions;
    Array<I> b_positions;
    /// vendor: cuSPARSE's descriptor and workspace (cusparse.cu).
    std::shared_ptr<void> vendor;
};

}  // namespace loom::sparse::detail
