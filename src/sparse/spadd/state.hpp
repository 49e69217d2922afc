// What a SpaddHandle keeps between the symbolic and the numeric phase.
#pragma once

#include <cstdint>
#include <memory>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/sparse/spadd.hpp"

namespace loom::sparse::spadd_detail {

/// A pattern as the symbolic phase saw it: its shape and the fingerprint of its arrays.
struct PatternStamp {
    dim2 size;
    size_type nnz = 0;
    std::uint64_t fingerprint = 0;
};

template <typename V, typename I>
struct SpaddState {
    std::shared_ptr<const Executor> exec;
    SpaddAlgorithm algorithm = SpaddAlgorithm::native;  ///< resolved: native or vendor
    PatternStamp a;
    PatternStamp b;
    PatternStamp c;
    /// native: the offset of every entry of A (of B) within its row of C.
    Array<I> a_positions;
    Array<I> b_positions;
    /// vendor: cuSPARSE's descriptor and workspace (cusparse.cu).
    std::shared_ptr<void> vendor;
};

}  // namespace loom::sparse::spadd_detail
