// What the CUDA SpMV caches on a Csr matrix (Csr::plans()): the row-length statistics and the
// algorithm they select, the merge-path partition of load_balanced, and cuSPARSE's workspace.
// Shared by cuda.cu and cusparse.cu; see CUDA_NOTES.md.
#pragma once

#include <array>
#include <cstddef>
#include <memory>

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::sparse::cuda {

/// Tiles [first_tile, end_tile) of the merge-path partition whose ends all cut `row`: a row
/// longer than many tiles, whose carries load_balanced's fix-up sums with a whole block.
struct MergeRun {
    long long first_tile;
    long long end_tile;
    long long row;
};

/// Entries [begin, end) of one long row, summed by one block of the binned kernel; `run`
/// indexes the row's run of segments (CsrPlan::segment_runs).
struct RowSegment {
    long long begin;
    long long end;
    long long run;
};

/// Long rows cut into segments of equal length, a block each: the segments, their partial
/// sums, per row the run of its segments [first_tile, end_tile) to add in order, and per run
/// the segments finished in the current call (zero between calls: the last one resets it).
template <typename V>
struct RowSegments {
    Array<RowSegment> segments;
    Array<V> sums;
    Array<MergeRun> runs;
    Array<unsigned> arrivals;
};

template <typename V, typename I>
struct CsrPlan {
    /// The pattern the plan describes; a plan found on a matrix whose row pointers were
    /// replaced behind its back (same object, other arrays) is rebuilt.
    const I* row_ptrs = nullptr;
    size_type rows = 0;
    size_type nnz = 0;

    bool has_stats = false;
    size_type max_row_length = 0;
    double mean_row_length = 0;
    /// Standard deviation of the row lengths over their mean.
    double row_length_cv = 0;
    /// Rows irregular or all long (rows_need_balancing).
    bool needs_balancing = false;
    SpmvAlgorithm automatic = SpmvAlgorithm::row_vector;

    /// Merge items per tile the partition was cut for (0: no partition yet).
    size_type tile_items = 0;
    /// Rows whose ends precede tile t's first merge item, for t in [0, tiles]: tile t covers
    /// row ends [tile_rows[t], tile_rows[t + 1]).
    Array<I> tile_rows;
    /// Per tile, its partial sum of the row cut by its end (written by every load_balanced call).
    Array<V> carries;
    /// The runs of more than a warp's worth of tiles cutting one row.
    Array<MergeRun> long_runs;

    /// binned: the rows listed bin by bin (rows in increasing order within a bin), bin b's
    /// being binned_rows[bin_offsets[b], bin_offsets[b + 1]), and their entry ranges in the
    /// same order (read coalesced, where the row pointers of scattered rows would cost a
    /// sector each); empty until first used.
    static constexpr int bins = 8;
    bool has_bins = false;
    Array<I> binned_rows;
    Array<I> binned_begins;
    Array<I> binned_ends;
    std::array<long long, bins + 1> bin_offsets{};
    /// binned's long rows cut into segments.
    RowSegments<V> binned_segments;

    /// stream's rows longer than stream_long_row (-1: not built), which blocks of their own
    /// sum in segments, in the same launch.
    long long stream_long_row = -1;
    RowSegments<V> stream_segments;

    Array<std::byte> vendor_workspace;
};

/// A's plan, made empty on first use or when A's pattern is not the one it describes.
/// The lookup is thread-safe; filling a plan's parts lazily is not, which is harmless since
/// work on one CUDA executor is serialized on its stream.
template <typename V, typename I>
std::shared_ptr<CsrPlan<V, I>> plan_of(const matrix::Csr<V, I>& A)
{
    return A.plans().template obtain<CsrPlan<V, I>>(
        [&](const CsrPlan<V, I>& plan) {
            return plan.row_ptrs == A.row_ptrs().data() && plan.rows == A.rows() &&
                   plan.nnz == A.nnz();
        },
        [&] {
            auto fresh = std::make_shared<CsrPlan<V, I>>();
            fresh->row_ptrs = A.row_ptrs().data();
            fresh->rows = A.rows();
            fresh->nnz = A.nnz();
            return fresh;
        });
}

}  // namespace loom::sparse::cuda
