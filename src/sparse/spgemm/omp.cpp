// OpenMP SpGEMM: Gustavson's row-wise product, rows split among threads by work.
//
// Work of a row = its multiply-adds ("flops"): the sum of the lengths of the rows of B that
// its entries select. The symbolic phase counts them per row, takes their prefix sum and
// cuts the rows into one contiguous piece per thread holding an equal share of the flops;
// the numeric phase reuses that partition (kept in the handle).
//
// Accumulator of a row, per thread:
// * dense, when B's columns times the threads stay below dense_accumulator_limit and B is
//   not much wider than the work of a thread (the accumulator is set up every phase): an array
//   indexed by column holding the last row that touched it (so it is never cleared) and,
//   in the numeric phase, the running sums. The columns of a row are recorded in C in the
//   order they first appear; sorting them (std::sort on the row, a small range) and then
//   gathering the sums from the dense array gives sorted rows without moving values around;
// * hashed otherwise: open addressing with linear probing in a power-of-two table of at
//   least twice the row's distinct columns (symbolic: its flops, capped by B's columns;
//   numeric: its exact length from the symbolic phase), mapping a column to its position in
//   C's row; cleared slot by slot after the row. Sorting moves (column, value) pairs.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/arithmetic.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::omp {
namespace {

constexpr const char* symbolic_where = "loom::sparse::spgemm_symbolic";
constexpr const char* numeric_where = "loom::sparse::spgemm_numeric";

/// Dense accumulators are used while B's columns times the threads stay below this (the
/// markers alone then take at most 128 MiB).
constexpr size_type dense_accumulator_limit = size_type{1} << 24;

/// ... and while B has at most this many columns per multiply-add of a thread (beyond, setting
/// up the dense arrays would cost more than the product).
constexpr size_type dense_columns_per_flop = 16;

/// Below this many flops one thread does all the work: forking a team costs more.
constexpr size_type min_parallel_flops = size_type{1} << 15;

using loom::omp::mul;

/// What the numeric phase reuses: piece p of the rows is [row_starts[p], row_starts[p+1]).
struct Partition {
    std::vector<size_type> row_starts;
    bool dense = true;
    int pieces() const { return static_cast<int>(row_starts.size()) - 1; }
};

/// Runs piece(p) for every piece, one per thread of a team (round robin, so that a smaller
/// team than asked for still covers every piece).
template <typename Piece>
void for_each_piece(int pieces, Piece&& piece)
{
#pragma omp parallel num_threads(pieces) if (pieces > 1)
    {
        for (int p = omp_get_thread_num(); p < pieces; p += omp_get_num_threads()) piece(p);
    }
}

/// The rows of B that row `row` of A (or of I + A) selects, with their factors: visit(k, a).
/// For the plain product a is A's value; for the Jacobi product the identity's 1 and
/// scale * A's values.
template <typename V, typename I, typename Visit>
inline void for_each_selected_row(const I* a_ptrs, const I* a_cols, const V* a_vals,
                                  size_type row, bool with_identity, V scale, Visit&& visit)
{
    if (with_identity) visit(row, V{1});
    for (auto k = a_ptrs[row]; k < a_ptrs[row + 1]; ++k) {
        visit(static_cast<size_type>(a_cols[k]), with_identity ? mul(scale, a_vals[k]) : a_vals[k]);
    }
}

/// Smallest power of two >= 2 * n (and >= 2).
inline size_type table_size_for(size_type n)
{
    const auto wanted = static_cast<std::uint64_t>(std::max<size_type>(2 * n, 2));
    return static_cast<size_type>(std::bit_ceil(wanted));
}

template <typename I>
inline size_type hash_slot(I col, size_type mask)
{
    return static_cast<size_type>((static_cast<std::uint64_t>(col) * 0x9E3779B97F4A7C15ull) >> 32) &
           mask;
}

/// Splits rows into `pieces` contiguous pieces of about equal flops (prefix: exclusive
/// prefix sums of the row flops, rows + 1 entries).
Partition partition_rows(const std::vector<int64>& prefix, size_type rows, int pieces,
                         bool dense)
{
    Partition partition;
    partition.dense = dense;
    partition.row_starts.resize(static_cast<std::size_t>(pieces) + 1);
    const int64 total = prefix[rows];
    for (int p = 0; p <= pieces; ++p) {
        const int64 target = static_cast<int64>(static_cast<double>(total) * p / pieces);
        partition.row_starts[p] =
            p == pieces ? rows
                        : std::lower_bound(prefix.begin(), prefix.begin() + rows, target) -
                              prefix.begin();
    }
    partition.row_starts[0] = 0;
    return partition;
}

// ----------------------------------------------------------------------------- symbolic

/// Number of distinct columns of rows [begin, end) of the product, into counts.
template <typename V, typename I>
void count_rows_dense(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                      bool with_identity, size_type begin, size_type end,
                      std::vector<int64>& marker, I* counts)
{
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    for (size_type r = begin; r < end; ++r) {
        I count = 0;
        for_each_selected_row(a_ptrs, a_cols, A.values().data(), r, with_identity, V{1},
                              [&](size_type k, const V&) {
                                  for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) {
                                      const auto c = b_cols[j];
                                      if (marker[c] != r) {
                                          marker[c] = r;
                                          ++count;
                                      }
                                  }
                              });
        counts[r] = count;
    }
}

template <typename V, typename I>
void count_rows_hashed(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                       bool with_identity, const int64* flops, size_type begin, size_type end,
                       std::vector<I>& table, I* counts)
{
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    constexpr I empty = -1;
    for (size_type r = begin; r < end; ++r) {
        const size_type size = table_size_for(std::min<size_type>(flops[r], B.cols()));
        const size_type mask = size - 1;
        I count = 0;
        for_each_selected_row(a_ptrs, a_cols, A.values().data(), r, with_identity, V{1},
                              [&](size_type k, const V&) {
                                  for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) {
                                      const auto c = b_cols[j];
                                      for (auto slot = hash_slot(c, mask);;
                                           slot = (slot + 1) & mask) {
                                          if (table[slot] == c) break;
                                          if (table[slot] == empty) {
                                              table[slot] = c;
                                              ++count;
                                              break;
                                          }
                                      }
                                  }
                              });
        counts[r] = count;
        std::fill(table.begin(), table.begin() + size, empty);
    }
}

/// Multiply-adds of every row, in parallel (rows of very different lengths: dynamic).
template <typename V, typename I>
void compute_row_flops(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                       const matrix::Csr<V, I>& B, bool with_identity, int64* flops)
{
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const I* b_ptrs = B.row_ptrs().data();
    const size_type rows = A.rows();
#pragma omp parallel for schedule(dynamic, 1024) num_threads(exec.num_threads()) \
    if (rows + A.nnz() > min_parallel_flops)
    for (size_type r = 0; r < rows; ++r) {
        int64 sum = with_identity ? b_ptrs[r + 1] - b_ptrs[r] : 0;
        for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) {
            sum += b_ptrs[a_cols[k] + 1] - b_ptrs[a_cols[k]];
        }
        flops[r] = sum;
    }
}

// ------------------------------------------------------------------------------ numeric

template <typename V, typename I>
struct RowOutput {
    I* cols;
    V* vals;
    bool overflow = false;  ///< more distinct columns than the symbolic phase counted
};

template <typename V, typename I>
void multiply_rows_dense(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                         const detail::JacobiScaling<V>* jacobi, const I* c_ptrs, bool sort,
                         size_type begin, size_type end, std::vector<int64>& marker,
                         std::vector<V>& sums, RowOutput<V, I>& out)
{
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const V* a_vals = A.values().data();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    const V* b_vals = B.values().data();
    for (size_type r = begin; r < end; ++r) {
        const size_type first = c_ptrs[r];
        const size_type last = c_ptrs[r + 1];
        size_type pos = first;
        const V scale = jacobi ? -jacobi->omega * jacobi->d_inv[r * jacobi->stride] : V{1};
        for_each_selected_row(a_ptrs, a_cols, a_vals, r, jacobi != nullptr, scale,
                              [&](size_type k, const V& a) {
                                  for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) {
                                      const auto c = b_cols[j];
                                      const V product = mul(a, b_vals[j]);
                                      if (marker[c] == r) {
                                          sums[c] += product;
                                      } else if (pos < last) {
                                          marker[c] = r;
                                          sums[c] = product;
                                          out.cols[pos++] = c;
                                      } else {
                                          out.overflow = true;
                                      }
                                  }
                              });
        if (sort) std::sort(out.cols + first, out.cols + pos);
        for (size_type q = first; q < pos; ++q) out.vals[q] = sums[out.cols[q]];
    }
}

template <typename V, typename I>
void multiply_rows_hashed(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                          const detail::JacobiScaling<V>* jacobi, const I* c_ptrs, bool sort,
                          size_type begin, size_type end, std::vector<I>& keys,
                          std::vector<I>& positions, std::vector<std::pair<I, V>>& row,
                          RowOutput<V, I>& out)
{
    const I* a_ptrs = A.row_ptrs().data();
    const I* a_cols = A.col_idxs().data();
    const V* a_vals = A.values().data();
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    const V* b_vals = B.values().data();
    constexpr I empty = -1;
    for (size_type r = begin; r < end; ++r) {
        const size_type first = c_ptrs[r];
        const size_type last = c_ptrs[r + 1];
        const size_type size = table_size_for(last - first);
        const size_type mask = size - 1;
        size_type pos = first;
        const V scale = jacobi ? -jacobi->omega * jacobi->d_inv[r * jacobi->stride] : V{1};
        for_each_selected_row(
            a_ptrs, a_cols, a_vals, r, jacobi != nullptr, scale, [&](size_type k, const V& a) {
                for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) {
                    const auto c = b_cols[j];
                    const V product = mul(a, b_vals[j]);
                    for (auto slot = hash_slot(c, mask);; slot = (slot + 1) & mask) {
                        if (keys[slot] == c) {
                            out.vals[positions[slot]] += product;
                            break;
                        }
                        if (keys[slot] == empty) {
                            if (pos == last) {  // the table still has room: it is twice as big
                                out.overflow = true;
                                break;
                            }
                            keys[slot] = c;
                            positions[slot] = static_cast<I>(pos);
                            out.cols[pos] = c;
                            out.vals[pos] = product;
                            ++pos;
                            break;
                        }
                    }
                }
            });
        std::fill(keys.begin(), keys.begin() + size, empty);
        if (sort) {
            row.clear();
            for (size_type q = first; q < pos; ++q) row.emplace_back(out.cols[q], out.vals[q]);
            std::sort(row.begin(), row.end(),
                      [](const auto& x, const auto& y) { return x.first < y.first; });
            for (size_type q = first; q < pos; ++q) {
                out.cols[q] = row[q - first].first;
                out.vals[q] = row[q - first].second;
            }
        }
    }
}

// ------------------------------------------------------------------ recorded positions

/// Where every multiply-add of the product lands in C (an index into C's entries), in the
/// order the numeric phase visits them: row by row, the entries of A's row (the identity's
/// first), each one's row of B in order. The values-only phase then needs no hashing.
template <typename I>
struct Recorded {
    std::vector<I> positions;
    std::vector<size_type> piece_starts;  ///< first multiply-add of every piece (pieces + 1)
};

/// The sum's starting value that changes no addend's bits: -0 (+0 + -0 would give +0), so
/// that adding the first multiply-add to it gives exactly what assigning it gives.
template <typename V>
V additive_identity()
{
    using R = remove_complex_t<V>;
    if constexpr (is_complex_v<V>) {
        return V(-R(0), -R(0));
    } else {
        return -R(0);
    }
}

/// Records the positions of the multiply-adds of C = A * B (or (I + A) * B) whose rows C
/// now holds, sorted.
template <typename V, typename I>
std::shared_ptr<Recorded<I>> record_positions(const detail::SpgemmState<I>& state,
                                              const Partition& partition,
                                              const matrix::Csr<V, I>& A,
                                              const matrix::Csr<V, I>& B,
                                              const matrix::Csr<V, I>& C)
{
    auto recorded = std::make_shared<Recorded<I>>();
    recorded->positions.resize(static_cast<std::size_t>(state.multiply_adds));
    recorded->piece_starts.assign(static_cast<std::size_t>(partition.pieces()) + 1, 0);
    for (int p = 0; p < partition.pieces(); ++p) {
        size_type flops = 0;
        for (auto r = partition.row_starts[p]; r < partition.row_starts[p + 1]; ++r) {
            flops += state.row_flops.data()[r];
        }
        recorded->piece_starts[p + 1] = recorded->piece_starts[p] + flops;
    }
    const I* b_ptrs = B.row_ptrs().data();
    const I* b_cols = B.col_idxs().data();
    const I* c_ptrs = state.row_ptrs.data();
    const I* c_cols = C.col_idxs().data();
    I* positions = recorded->positions.data();
    for_each_piece(partition.pieces(), [&](int p) {
        auto q = recorded->piece_starts[p];
        for (auto r = partition.row_starts[p]; r < partition.row_starts[p + 1]; ++r) {
            const I* first = c_cols + c_ptrs[r];
            const I* last = c_cols + c_ptrs[r + 1];
            for_each_selected_row(A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), r,
                                  state.jacobi, V{1}, [&](size_type k, const V&) {
                                      for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) {
                                          positions[q++] = static_cast<I>(
                                              std::lower_bound(first, last, b_cols[j]) - c_cols);
                                      }
                                  });
        }
    });
    return recorded;
}

}  // namespace

template <typename V, typename I>
void spgemm_symbolic(const OmpExecutor& exec, const matrix::Csr<V, I>& A,
                     const matrix::Csr<V, I>& B, bool with_identity,
                     detail::SpgemmState<I>& state)
{
    const auto self = exec.shared_from_this();
    const size_type rows = A.rows();
    state.row_flops = Array<int64>(self, rows);
    compute_row_flops(exec, A, B, with_identity, state.row_flops.data());

    std::vector<int64> prefix(state.row_flops.data(), state.row_flops.data() + rows);
    prefix.push_back(0);
    loom::omp::exclusive_prefix_sum(exec, prefix.data(), rows + 1);
    state.multiply_adds = prefix[rows];

    const int threads = std::max(exec.num_threads(), 1);
    const int pieces = state.multiply_adds < min_parallel_flops ? 1 : threads;
    const size_type flops_per_piece = state.multiply_adds / pieces;
    const bool dense = B.cols() * pieces <= dense_accumulator_limit &&
                       B.cols() <= dense_columns_per_flop * flops_per_piece + 4096;
    auto partition = std::make_shared<Partition>(partition_rows(prefix, rows, pieces, dense));

    state.row_ptrs = Array<I>(self, rows + 1);
    I* counts = state.row_ptrs.data();
    // One accumulator per piece, allocated here: an allocation failure inside the parallel
    // region could not be reported.
    std::vector<std::vector<int64>> markers(dense ? pieces : 0);
    std::vector<std::vector<I>> tables(dense ? 0 : pieces);
    for (int p = 0; p < pieces; ++p) {
        if (dense) {
            markers[p].assign(static_cast<std::size_t>(B.cols()), -1);
            continue;
        }
        size_type widest = 0;
        for (auto r = partition->row_starts[p]; r < partition->row_starts[p + 1]; ++r) {
            widest = std::max<size_type>(widest, std::min<size_type>(state.row_flops[r], B.cols()));
        }
        tables[p].assign(static_cast<std::size_t>(table_size_for(widest)), I{-1});
    }
    for_each_piece(pieces, [&](int p) {
        const auto begin = partition->row_starts[p];
        const auto end = partition->row_starts[p + 1];
        if (dense) {
            count_rows_dense(A, B, with_identity, begin, end, markers[p], counts);
        } else {
            count_rows_hashed(A, B, with_identity, state.row_flops.data(), begin, end,
                              tables[p], counts);
        }
    });

    size_type nnz = 0;
#pragma omp parallel for reduction(+ : nnz) num_threads(threads) if (rows > min_parallel_flops)
    for (size_type r = 0; r < rows; ++r) nnz += counts[r];
    if (nnz > std::numeric_limits<I>::max()) {
        throw OutOfRange(symbolic_where,
                         std::string("C has more stored entries than the index type ") +
                             type_name<I>() + " can count (use 64-bit indices); entries",
                         nnz, std::numeric_limits<I>::max());
    }
    loom::omp::exclusive_prefix_sum(exec, counts, rows + 1);
    state.nnz = nnz;
    state.backend = std::move(partition);
}

template <typename V, typename I>
void spgemm_numeric(const OmpExecutor&, detail::SpgemmState<I>& state,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    const auto& partition = *static_cast<const Partition*>(state.backend.get());
    const int pieces = partition.pieces();
    const bool dense = partition.dense;
    const I* c_ptrs = state.row_ptrs.data();
    std::vector<std::vector<int64>> markers(dense ? pieces : 0);
    std::vector<std::vector<V>> sums(dense ? pieces : 0);
    std::vector<std::vector<I>> keys(dense ? 0 : pieces);
    std::vector<std::vector<I>> positions(dense ? 0 : pieces);
    std::vector<std::vector<std::pair<I, V>>> rows(dense ? 0 : pieces);
    for (int p = 0; p < pieces; ++p) {
        if (dense) {
            markers[p].assign(static_cast<std::size_t>(B.cols()), -1);
            sums[p].resize(static_cast<std::size_t>(B.cols()));
            continue;
        }
        // the longest row of the piece sizes its table
        size_type longest = 0;
        for (auto r = partition.row_starts[p]; r < partition.row_starts[p + 1]; ++r) {
            longest = std::max<size_type>(longest, c_ptrs[r + 1] - c_ptrs[r]);
        }
        keys[p].assign(static_cast<std::size_t>(table_size_for(longest)), I{-1});
        positions[p].resize(keys[p].size());
        rows[p].reserve(static_cast<std::size_t>(longest));
    }
    std::vector<RowOutput<V, I>> outputs(pieces, {C.col_idxs().data(), C.values().data()});
    for_each_piece(pieces, [&](int p) {
        const auto begin = partition.row_starts[p];
        const auto end = partition.row_starts[p + 1];
        if (dense) {
            multiply_rows_dense(A, B, jacobi, c_ptrs, state.sort_output, begin, end, markers[p],
                                sums[p], outputs[p]);
        } else {
            multiply_rows_hashed(A, B, jacobi, c_ptrs, state.sort_output, begin, end, keys[p],
                                 positions[p], rows[p], outputs[p]);
        }
    });
    for (const auto& out : outputs) {
        if (out.overflow) {
            throw BadInput(numeric_where,
                           "a row of the product has more entries than the symbolic phase "
                           "counted: the pattern of A or B changed since then");
        }
    }
    const auto record_bytes = static_cast<size_type>(sizeof(I)) * state.multiply_adds;
    if (state.sort_output && !state.recorded && state.record_limit > 0 &&
        record_bytes <= state.record_limit) {
        try {
            state.recorded = record_positions(state, partition, A, B, C);
            state.recorded_bytes = record_bytes;
        } catch (const std::bad_alloc&) {
            // the record only saves time on later calls; without it they run the full phase
        }
    }
}

template <typename V, typename I>
void spgemm_numeric_recorded(const OmpExecutor&, const detail::SpgemmState<I>& state,
                             const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                             const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    const auto& partition = *static_cast<const Partition*>(state.backend.get());
    const auto& recorded = *static_cast<const Recorded<I>*>(state.recorded.get());
    const I* b_ptrs = B.row_ptrs().data();
    const V* b_vals = B.values().data();
    const I* c_ptrs = state.row_ptrs.data();
    const I* positions = recorded.positions.data();
    V* c_vals = C.values().data();
    for_each_piece(partition.pieces(), [&](int p) {
        auto q = recorded.piece_starts[p];
        for (auto r = partition.row_starts[p]; r < partition.row_starts[p + 1]; ++r) {
            std::fill(c_vals + c_ptrs[r], c_vals + c_ptrs[r + 1], additive_identity<V>());
            const V scale = jacobi ? -jacobi->omega * jacobi->d_inv[r * jacobi->stride] : V{1};
            for_each_selected_row(A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), r,
                                  jacobi != nullptr, scale, [&](size_type k, const V& a) {
                                      for (auto j = b_ptrs[k]; j < b_ptrs[k + 1]; ++j) {
                                          c_vals[positions[q++]] += mul(a, b_vals[j]);
                                      }
                                  });
        }
    });
}

template <typename V, typename I>
int64 inverse_diagonal(const OmpExecutor& exec, const matrix::Csr<V, I>& A, Array<V>& d_inv)
{
    const I* ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* vals = A.values().data();
    V* out = d_inv.data();
    const size_type rows = A.rows();
    int64 first_zero = std::numeric_limits<int64>::max();
#pragma omp parallel for reduction(min : first_zero) num_threads(exec.num_threads()) \
    if (rows + A.nnz() > min_parallel_flops)
    for (size_type r = 0; r < rows; ++r) {
        V diagonal{};
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (static_cast<size_type>(cols[k]) == r) diagonal += vals[k];
        }
        if (diagonal == V{}) first_zero = std::min<int64>(first_zero, static_cast<int64>(r));
        out[r] = diagonal == V{} ? V{} : V{1} / diagonal;
    }
    return first_zero == std::numeric_limits<int64>::max() ? -1 : first_zero;
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPGEMM_KERNELS, OmpExecutor)

#define LOOM_INSTANTIATE_SPGEMM_RECORDED_OMP(V, I)                                             \
    template void spgemm_numeric_recorded(const OmpExecutor&, const detail::SpgemmState<I>&,   \
                                          const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,  \
                                          const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORDED_OMP)

}  // namespace loom::sparse::omp
