// What an IluHandle keeps between the symbolic and the numeric phases.
#pragma once

#include <memory>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "loom/sparse/ilu.hpp"
#include "sparse/ilu/ilut.hpp"
#include "sparse/ilu/kernels.hpp"

namespace loom::sparse::detail {

template <typename V, typename I>
struct IluState {
    std::shared_ptr<const Executor> exec;
    /// The patterns the symbolic phase saw (A) and made (L, U).
    PatternFingerprint a_pattern;
    PatternFingerprint l_pattern;
    PatternFingerprint u_pattern;
    /// F, the combined factor (rows.hpp), on exec.
    Array<I> row_ptrs;
    Array<I> col_idxs;
    Array<I> diag;
    /// Which entries of A make each entry of F (rows.hpp: assemble_row).
    Array<I> gather_ptrs;
    Array<I> sources;
    /// Where each entry of F goes in L and U (rows.hpp: extract_row); -1: nowhere.
    Array<I> l_index;
    Array<I> u_index;
    /// The rows of F grouped by the levels of their strictly lower dependencies.
    IluSchedule<I> schedule;
    size_type l_nnz = 0;
    size_type u_nnz = 0;
    /// The shift the last numeric phase used.
    double shift = 0.0;
    /// ilut: its decisions, on the host (F above stays empty), and the pivots the last
    /// numeric phase replaced.
    IlutPattern<I> ilut;
    size_type replaced_pivots = 0;
    /// ilut: the factors the symbolic phase computed and the values of A it saw, for a
    /// numeric phase with the same values (host).
    IlutValues<V> ilut_factors;
    std::vector<V> ilut_a_values;
    /// IluAlgorithm::vendor: cuSPARSE's csrilu02 analysis and buffers (cusparse.cu).
    std::shared_ptr<void> vendor;

    FactorPattern<I> pattern() const
    {
        return {static_cast<size_type>(diag.size()), static_cast<size_type>(col_idxs.size()),
                row_ptrs.const_data(),
                col_idxs.const_data(), diag.const_data()};
    }
};

}  // namespace loom::sparse::detail
