// CUDA SpGEMM, numeric phase: the light groups' columns and values by teams in shared-memory
// hash tables (or, values only, by binary search in C's known columns), the heavy ones by
// cuda_heavy.cu and cuda_hash.cu. cuda_common.cuh explains the design.
#include <type_traits>

#include "base/cuda/hash_table.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/base/resources.hpp"
#include "loom/sort/bitonic.hpp"
#include "sparse/spgemm/cuda_common.cuh"

namespace loom::sparse::cuda::spgemm_kernels {
namespace {

using loom::cuda::claim_slot;
using loom::cuda::empty_key;
using loom::cuda::exact_grid;
using loom::cuda::slot_of;

/// Team<G> as the team of loom::sort's team-level sort.
template <int G>
struct SortTeam {
    template <typename F>
    __device__ void team_vector_for(int n, const F& f) const
    {
        for (int i = Team<G>::rank(); i < n; i += G) f(i);
    }
    __device__ void team_barrier() const { Team<G>::sync(); }
};

/// Columns as unsigned: the empty slots (all bits set) sort after every column.
struct UnsignedLess {
    template <typename I>
    __device__ bool operator()(I a, I b) const
    {
        return static_cast<std::make_unsigned_t<I>>(a) < static_cast<std::make_unsigned_t<I>>(b);
    }
};

/// In-place sort of a team's table of S slots by column (empty slots last).
template <int G, int S, typename V, typename I>
__device__ void sort_table(I* keys, V* values)
{
    loom::sort::team_sort_pairs(SortTeam<G>{}, keys, values, S, UnsignedLess{});
}

// ----------------------------------------------------------------------- numeric kernels

/// Calls write(i, s) for the used slots s of a table in column order (direct addressing),
/// i their rank among the used slots, below `length`: a team scan over the table in chunks
/// of G slots.
template <int G, int S, typename I, typename Write>
__device__ void compact_in_order(const I* keys, Batch<G>& batch, long long length, Write&& write)
{
    long long written = 0;
    for (int base = 0; base < S; base += G) {
        const int s = base + Team<G>::rank();
        const bool used = keys[s] != empty_key<I>;
        const long long inclusive = team_inclusive_scan<G>(used ? 1 : 0, batch);
        if (used && written + inclusive - 1 < length) write(written + inclusive - 1, s);
        batch.inclusive[Team<G>::rank()] = inclusive;
        Team<G>::sync();
        written += batch.inclusive[G - 1];
        Team<G>::sync();
    }
}

/// Shared memory of a team of columns_light_kernel.
template <int G, typename I>
struct ColumnsShared {
    I keys[slots_per_thread * G];
    I columns[slots_per_thread * G / 2];  ///< the row's, gathered from the table to be sorted
    Batch<G> batch;
};

/// C's columns, sorted, of every row of one light group of the numeric grouping (rows by
/// exact length; a team per row, the numeric phase's table sizes): the row's columns hashed
/// into a table of keys, then gathered (in order, direct) and sorted, and written. What the
/// numeric kernel does for the columns, without values. Only the row's columns are sorted,
/// not the table's S slots, of which the grouping uses at most half: a network of half the
/// size, about 2.6 times fewer comparisons for a 125-entry row of a 256-slot table.
template <int G, typename I>
__global__ void __launch_bounds__(Team<G>::block_threads)
    columns_light_kernel(const I* group_rows, long long n, Pattern<I> in, const I* c_ptrs,
                         bool direct, I* c_cols)
{
    using T = Team<G>;
    constexpr int S = slots_per_thread * G;
    auto& sh = team_shared<G, ColumnsShared<G, I>>();
    bool active = false;
    const long long row = team_row<G>(group_rows, n, active);
    for (int s = T::rank(); s < S; s += G) sh.keys[s] = empty_key<I>;
    T::sync();
    insert_row_columns<G, S>(in, active, row, sh.keys, sh.batch, direct);
    T::sync();
    const long long out = active ? static_cast<long long>(c_ptrs[row]) : 0;
    // at most S / 2 by the grouping; the clamp keeps the kernel inside its arrays regardless
    const long long length =
        active ? min(static_cast<long long>(c_ptrs[row + 1]) - out, static_cast<long long>(S / 2))
               : 0;
    if (direct) {
        compact_in_order<G, S>(sh.keys, sh.batch, length,
                               [&](long long i, int s) { c_cols[out + i] = sh.keys[s]; });
    } else {
        compact_in_order<G, S>(sh.keys, sh.batch, length,
                               [&](long long i, int s) { sh.columns[i] = sh.keys[s]; });
        loom::sort::team_sort(SortTeam<G>{}, sh.columns, static_cast<int>(length),
                              UnsignedLess{});
        for (long long i = T::rank(); i < length; i += G) c_cols[out + i] = sh.columns[i];
    }
}

/// The light groups' columns, teams of G = 4 << group threads (the numeric grouping).
template <int G = 4, typename I>
void columns_of_group(const CudaExecutor& exec, const RowGroups<I>& groups, int group, int level,
                      const Pattern<I>& in, long long b_cols, const I* c_ptrs, I* c_cols)
{
    // up to the largest numeric table (max_numeric_table)
    if constexpr (slots_per_thread * G <= 8192) {
        if (level > 0) {
            return columns_of_group<2 * G>(exec, groups, group, level - 1, in, b_cols, c_ptrs,
                                           c_cols);
        }
        using T = Team<G>;
        const std::size_t bytes = sizeof(ColumnsShared<G, I>) * T::per_block;
        allow_shared(exec, columns_light_kernel<G, I>, bytes, symbolic_where);
        columns_light_kernel<G, I>
            <<<exact_grid(groups.size(group), T::per_block, symbolic_where), T::block_threads,
               bytes, stream_of(exec)>>>(groups.begin(group), groups.size(group), in, c_ptrs,
                                         b_cols <= slots_per_thread * G, c_cols);
        check_launch(symbolic_where);
    }
}

template <int G, typename V, typename I>
struct MultiplyShared {
    V values[slots_per_thread * G];
    V factors[G];  ///< the factor of each entry of the current batch
    I keys[slots_per_thread * G];
    int owners[G > 32 ? slots_per_thread * G : 1];  ///< block teams: ordered_add's, per slot
    Batch<G> batch;
    int count;
};

/// Columns and values of every row of one light group (a team per row).
template <int G, typename V, typename I>
__global__ void __launch_bounds__(Team<G>::block_threads)
    multiply_light_kernel(const I* group_rows, long long n, Operands<V, I> in, bool direct,
                          bool sort)
{
    using T = Team<G>;
    constexpr int S = slots_per_thread * G;
    auto& sh = team_shared<G, MultiplyShared<G, V, I>>();
    bool active = false;
    const long long row = team_row<G>(group_rows, n, active);
    for (int s = T::rank(); s < S; s += G) {
        sh.keys[s] = empty_key<I>;
        sh.values[s] = V(0);
        if constexpr (G > 32) sh.owners[s] = no_owner;
    }
    if (T::rank() == 0) sh.count = 0;
    T::sync();
    for_each_row_product_step<G>(
        in, active, row, sh.batch, sh.factors, [&](long long j, int s, bool valid) {
            // the key is claimed in any order (only its slot depends on that); the value is
            // added in product order when asked
            long long slot = -1;
            V product{};
            if (valid) {
                const I col = in.pattern.b_cols[j];
                bool inserted = false;
                slot = claim_slot(sh.keys, slot_of(col, S - 1, direct), unsigned{S - 1}, S, col,
                                  inserted);
                product = unfused_product(sh.factors[s], in.b_vals[j]);
            }
            const int at = slot < 0 ? 0 : static_cast<int>(slot);
            ordered_add<G>(in.ordered, sh.values + at, product, slot >= 0,
                           sh.owners + (G > 32 ? at : 0));
        });
    T::sync();
    const long long out = active ? static_cast<long long>(in.c_ptrs[row]) : 0;
    const long long length = active ? in.c_ptrs[row + 1] - out : 0;
    if (sort && !direct) sort_table<G, S>(sh.keys, sh.values);
    if (sort) {
        // sorted (or, direct, already in column order): the used slots come first, or are
        // spread in order over the table
        if (direct) {
            compact_in_order<G, S>(sh.keys, sh.batch, length, [&](long long i, int s) {
                in.c_cols[out + i] = sh.keys[s];
                in.c_vals[out + i] = sh.values[s];
            });
        } else {
            for (long long i = T::rank(); i < length; i += G) {
                in.c_cols[out + i] = sh.keys[i];
                in.c_vals[out + i] = sh.values[i];
            }
        }
    } else {
        for (int s = T::rank(); s < S; s += G) {
            if (sh.keys[s] == empty_key<I>) continue;
            const int position = atomicAdd(&sh.count, 1);
            if (position < length) {
                in.c_cols[out + position] = sh.keys[s];
                in.c_vals[out + position] = sh.values[s];
            }
        }
    }
}

/// Position of col in the ascending cols[0 .. length), or -1.
template <typename I>
__device__ inline int find_column(const I* cols, int length, I col)
{
    int lo = 0;
    int hi = length;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (cols[mid] < col) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < length && cols[lo] == col ? lo : -1;
}

/// Values of every row of one light group whose columns C already holds, sorted, as a
/// previous numeric call wrote them: the team stages the row's columns in the key array
/// (coalesced), finds every product's column by binary search and adds into the value of
/// that position; then writes the values only. No keys to claim, no table to clear or sort,
/// no columns to write. Same shared layout and launch as multiply_light_kernel.
template <int G, typename V, typename I>
__global__ void __launch_bounds__(Team<G>::block_threads)
    multiply_known_columns_kernel(const I* group_rows, long long n, Operands<V, I> in)
{
    using T = Team<G>;
    constexpr int S = slots_per_thread * G;
    auto& sh = team_shared<G, MultiplyShared<G, V, I>>();
    bool active = false;
    const long long row = team_row<G>(group_rows, n, active);
    const long long out = active ? static_cast<long long>(in.c_ptrs[row]) : 0;
    // at most S / 2 by the grouping; the clamp keeps the kernel inside its arrays regardless
    const long long stored = active ? in.c_ptrs[row + 1] - out : 0;
    const int length = static_cast<int>(max(0ll, min(stored, static_cast<long long>(S))));
    for (int s = T::rank(); s < length; s += G) {
        sh.keys[s] = in.c_cols[out + s];
        sh.values[s] = V(0);
        if constexpr (G > 32) sh.owners[s] = no_owner;
    }
    T::sync();
    for_each_row_product_step<G>(
        in, active, row, sh.batch, sh.factors, [&](long long j, int s, bool valid) {
            // a column missing from the row cannot happen when C's pattern is the one the
            // handle recorded; skipped, to stay memory-safe
            const int position = valid ? find_column(sh.keys, length, in.pattern.b_cols[j]) : -1;
            const V product = position >= 0 ? unfused_product(sh.factors[s], in.b_vals[j]) : V{};
            const int at = max(position, 0);
            ordered_add<G>(in.ordered, sh.values + at, product, position >= 0,
                           sh.owners + (G > 32 ? at : 0));
        });
    T::sync();
    for (int s = T::rank(); s < length; s += G) in.c_vals[out + s] = sh.values[s];
}

/// Pieces (G consecutive entries of one B row) a lane loads and positions before adding
/// them: loads of several pieces in flight at once.
constexpr int pieces_in_flight = 4;

/// How multiply_in_entry_order_kernel finds each product's position in C's row.
enum class Positions {
    search,           ///< binary search in the row's columns
    search_and_keep,  ///< ... and keep it (KeptProduct) for later calls
    kept,             ///< read back what search_and_keep kept (values_kept_kernel)
    keep_only,        ///< search_and_keep without values (the symbolic phase's record)
};

/// What the record keeps of a multiply-add of the rows of teams within a warp, at its index
/// in product order: its position in C's row.
using KeptProduct = std::uint8_t;

/// A position kept for a column not in C's row (cannot happen when C's pattern is the one
/// the handle recorded): skipped. The kernel's rows have at most 128 entries.
constexpr int no_position = 255;

/// Shared memory of a team of multiply_in_entry_order_kernel.
template <int G, typename V, typename I>
struct EntryOrderShared {
    V values[slots_per_thread * G];
    I cols[slots_per_thread * G];
    V factors[G];              ///< of the batch's entries of A
    long long b_first[G];      ///< where the B rows they select start
    long long before[G];       ///< the row's multiply-adds before each
    int b_lengths[G];          ///< and their lengths
    int pieces_inclusive[G];   ///< inclusive prefix sums of their pieces
};

/// Values of every row of one light group of teams within a warp whose columns C already
/// holds, sorted, as a previous numeric call wrote them, for a B whose rows have no repeated
/// column. No hashing and no ordering of adds: the team walks the row's entries of A in
/// order, and for each the lanes take the selected B row's entries G at a time (a "piece"),
/// find each column's position in C's row and add the product there. The columns of one
/// piece are distinct, so are their positions: plain adds; a barrier of the team between
/// pieces keeps every entry's sum in product order (from 0, as the full phase adds it: the
/// same bits). A lane loads and positions pieces_in_flight pieces before adding them, so
/// that their loads overlap. Positions: a binary search over the row's columns in shared
/// memory; search_and_keep and keep_only also keep them (a KeptProduct per multiply-add at
/// its index in product order, first_products[row] the row's first) for values_kept_kernel.
template <int G, Positions P, typename V, typename I>
__global__ void __launch_bounds__(light_block)
    multiply_in_entry_order_kernel(const I* group_rows, long long n, Operands<V, I> in,
                                   const long long* first_products, KeptProduct* kept)
{
    using T = Team<G>;
    constexpr int S = slots_per_thread * G;
    static_assert(G <= 32 && S / 2 < no_position && P != Positions::kept);
    auto& sh = team_shared<G, EntryOrderShared<G, V, I>>();
    const int rank = T::rank();
    const long long team = blockIdx.x * static_cast<long long>(T::per_block) + T::index();
    if (team >= n) return;  // a whole team: the barriers below are the team's only
    const long long row = group_rows[team];
    const long long out = in.c_ptrs[row];
    // at most S / 2 by the grouping; the clamp keeps the kernel inside its arrays regardless
    const int length =
        static_cast<int>(max(0ll, min(in.c_ptrs[row + 1] - out, static_cast<long long>(S))));
    constexpr bool with_values = P != Positions::keep_only;
    for (int s = rank; s < length; s += G) {
        sh.cols[s] = in.c_cols[out + s];
        if constexpr (with_values) sh.values[s] = V(0);
    }
    long long first = 0;
    long long end = 0;
    entry_range(in.pattern, row, first, end);
    const V scale = with_values ? row_scale(in, row) : V(1);
    long long before_batch = P == Positions::search ? 0 : first_products[row];
    for (long long base = first; base < end; base += G) {
        const long long k = base + rank;
        int b_length = 0;
        if (k < end) {
            const long long b_row =
                with_values ? selected_row(in, row, scale, k, sh.factors[rank])
                            : (k < in.pattern.a_ptrs[row] ? row : in.pattern.a_cols[k]);
            const long long b_first = in.pattern.b_ptrs[b_row];
            b_length = static_cast<int>(in.pattern.b_ptrs[b_row + 1] - b_first);
            sh.b_first[rank] = b_first;
        }
        sh.b_lengths[rank] = b_length;
        const long long inclusive =
            loom::cuda::warp_inclusive_scan<G>(static_cast<long long>(b_length), T::mask());
        sh.before[rank] = before_batch + inclusive - b_length;
        sh.pieces_inclusive[rank] =
            loom::cuda::warp_inclusive_scan<G>((b_length + G - 1) / G, T::mask());
        T::sync();
        const int total = sh.pieces_inclusive[G - 1];
        before_batch = sh.before[G - 1] + sh.b_lengths[G - 1];
        int s = 0;  // the batch entry of the current piece, the same on every lane
        for (int p0 = 0; p0 < total; p0 += pieces_in_flight) {
            int at[pieces_in_flight];
            [[maybe_unused]] V products[pieces_in_flight];
#pragma unroll
            for (int u = 0; u < pieces_in_flight; ++u) {
                const int p = p0 + u;
                at[u] = -1;
                if (p < total) {
                    while (sh.pieces_inclusive[s] <= p) ++s;
                    const int offset =
                        (p - (s == 0 ? 0 : sh.pieces_inclusive[s - 1])) * G + rank;
                    const bool valid = offset < sh.b_lengths[s];
                    const long long q = sh.before[s] + offset;
                    if (valid) {
                        const long long j = sh.b_first[s] + offset;
                        at[u] = find_column(sh.cols, length, in.pattern.b_cols[j]);
                        if constexpr (with_values) {
                            products[u] = unfused_product(sh.factors[s], in.b_vals[j]);
                        }
                    }
                    if constexpr (P != Positions::search) {
                        if (valid) {
                            kept[q] = static_cast<KeptProduct>(at[u] < 0 ? no_position : at[u]);
                        }
                    }
                }
            }
            if constexpr (with_values) {
#pragma unroll
                for (int u = 0; u < pieces_in_flight; ++u) {
                    if (at[u] >= 0 && at[u] < length) sh.values[at[u]] += products[u];
                    T::sync();
                }
            }
        }
        T::sync();
    }
    if constexpr (with_values) {
        for (int s = rank; s < length; s += G) in.c_vals[out + s] = sh.values[s];
    }
}

/// One entry of A (or the identity) of a batch of values_kept_kernel: the factor of its
/// products and the B row it selects; 16 bytes for double/int32, one shared load.
template <typename V, typename I>
struct alignas(16) KeptEntry {
    V factor;
    I b_first;
    I b_length;
};

/// Shared memory of a team of values_kept_kernel: C's row (at most S / 2 values) and the
/// batch's entries; no columns.
template <int G, typename V, typename I>
struct KeptShared {
    V values[slots_per_thread * G / 2];
    KeptEntry<V, I> entries[G];
};

/// c = v, not kept in L1 (C's values are written once and not read again by the kernel).
template <typename V>
__device__ inline void store_streaming(V* c, V v)
{
    if constexpr (std::is_same_v<V, double> || std::is_same_v<V, float>) {
        __stcs(c, v);
    } else {
        *c = v;
    }
}

/// Rows a team of values_kept_kernel takes, one after the other; the teams of a block take
/// neighbouring rows at any time (for stencils, B rows they share come from L1).
constexpr int kept_rows_per_team = 1;
/// Blocks of values_kept_kernel an SM holds at least (registers bounded to match).
constexpr int kept_min_blocks = 8;

/// Values of every row of one light group of teams within a warp from the kept products
/// (a KeptProduct per multiply-add at its index in product order, first_products[row] the
/// row's first), for a B whose rows have no repeated column. The team walks the row's
/// entries of A in order; for each, its lanes take the selected B row G entries at a time (a
/// piece: contiguous B values, contiguous positions), and add them at their kept positions
/// in C's row in shared memory; a barrier of the team between pieces. The adds are those of
/// the full phase, in the same order (the same bits). Per piece: one shared load of the
/// entry (factor, B row), the position and B's value (both coalesced), the add;
/// pieces_in_flight pieces are loaded before they are added. Nothing else is in shared
/// memory (1.5 KiB per warp for double): L1 keeps more of B's rows.
template <int G, typename V, typename I>
__global__ void __launch_bounds__(light_block, kept_min_blocks)
    values_kept_kernel(const I* group_rows, long long n, Operands<V, I> in,
                       const long long* first_products, const KeptProduct* kept)
{
    using T = Team<G>;
    constexpr int F = pieces_in_flight;
    constexpr int max_length = slots_per_thread * G / 2;
    static_assert(G <= 32 && max_length < no_position);
    auto& sh = team_shared<G, KeptShared<G, V, I>>();
    const int rank = T::rank();
    const long long block_first =
        blockIdx.x * static_cast<long long>(T::per_block) * kept_rows_per_team + T::index();
    for (int r = 0; r < kept_rows_per_team; ++r) {
        const long long team = block_first + static_cast<long long>(T::per_block) * r;
        if (team >= n) return;  // a whole team: the barriers below are the team's only
        const long long row = group_rows[team];
        const long long out = in.c_ptrs[row];
        // at most S / 2 by the grouping; the clamp keeps the kernel inside its arrays
        const int length = static_cast<int>(
            max(0ll, min(in.c_ptrs[row + 1] - out, static_cast<long long>(max_length))));
        for (int s = rank; s < length; s += G) sh.values[s] = V(0);
        long long first = 0;
        long long end = 0;
        entry_range(in.pattern, row, first, end);
        const V scale = row_scale(in, row);
        long long q = first_products[row];  // the current piece's first multiply-add
        for (long long base = first; base < end; base += G) {
            const long long k = base + rank;
            if (k < end) {
                V factor;
                const long long b_row = selected_row(in, row, scale, k, factor);
                const I b_first = in.pattern.b_ptrs[b_row];
                sh.entries[rank] = {factor, b_first,
                                    static_cast<I>(in.pattern.b_ptrs[b_row + 1] - b_first)};
            }
            T::sync();
            const int batch = static_cast<int>(min(static_cast<long long>(G), end - base));
            int s = 0;       // the batch entry of the next piece, the same on every lane
            int offset = 0;  // the piece's first entry in that entry's B row
            while (s < batch) {
                int at[F];
                V products[F];
#pragma unroll
                for (int u = 0; u < F; ++u) {
                    at[u] = -1;
                    products[u] = V(0);
                    if (s < batch) {
                        const KeptEntry<V, I> e = sh.entries[s];
                        const int o = offset + rank;
                        if (o < e.b_length) {
                            at[u] = __ldcs(kept + q + o);
                            products[u] = unfused_product(
                                e.factor, in.b_vals[static_cast<long long>(e.b_first) + o]);
                        }
                        offset += G;
                        if (offset >= e.b_length) {
                            q += e.b_length;
                            ++s;
                            offset = 0;
                        }
                    }
                }
#pragma unroll
                for (int u = 0; u < F; ++u) {
                    if (at[u] >= 0 && at[u] < length) sh.values[at[u]] += products[u];
                    T::sync();
                }
            }
            T::sync();  // the next batch rewrites the entries
        }
        for (int s = rank; s < length; s += G) store_streaming(in.c_vals + out + s, sh.values[s]);
        T::sync();  // the next row zeroes the values
    }
}

/// How the light groups' kernels find C's columns and values.
struct LightPass {
    enum Kind {
        full,           ///< hash, sort, write columns and values
        known_columns,  ///< C's columns in place (sorted): look products up, values only
        entry_order,    ///< ... and B's rows free of repeated columns: teams within a warp
                        ///< add piece by piece (multiply_in_entry_order_kernel), larger
                        ///< teams as known_columns
    } kind = full;
    /// entry_order: how positions are found, and where they are kept (see the kernel).
    Positions positions = Positions::search;
    const long long* first_products = nullptr;
    KeptProduct* kept = nullptr;
};

template <int G, typename V, typename I>
void launch_multiply(const CudaExecutor& exec, const RowGroups<I>& groups, int group,
                     const Operands<V, I>& in, long long b_cols, bool sort, LightPass pass)
{
    using T = Team<G>;
    const unsigned blocks = exact_grid(groups.size(group), T::per_block, numeric_where);
    const auto stream = stream_of(exec);
    if constexpr (G <= 32) {
        if (pass.kind == LightPass::entry_order) {
            if (pass.positions == Positions::kept) {
                const auto kernel = values_kept_kernel<G, V, I>;
                const std::size_t bytes = sizeof(KeptShared<G, V, I>) * T::per_block;
                allow_shared(exec, kernel, bytes, numeric_where);
                kernel<<<exact_grid(groups.size(group),
                                    static_cast<long long>(T::per_block) * kept_rows_per_team,
                                    numeric_where),
                         T::block_threads, bytes, stream>>>(groups.begin(group), groups.size(group),
                                                            in, pass.first_products, pass.kept);
                check_launch(numeric_where);
                return;
            }
            const auto launch = [&](auto kernel) {
                const std::size_t bytes = sizeof(EntryOrderShared<G, V, I>) * T::per_block;
                allow_shared(exec, kernel, bytes, numeric_where);
                kernel<<<blocks, T::block_threads, bytes, stream>>>(
                    groups.begin(group), groups.size(group), in, pass.first_products, pass.kept);
                check_launch(numeric_where);
            };
            switch (pass.positions) {
            case Positions::search:
                return launch(multiply_in_entry_order_kernel<G, Positions::search, V, I>);
            case Positions::search_and_keep:
                return launch(
                    multiply_in_entry_order_kernel<G, Positions::search_and_keep, V, I>);
            case Positions::keep_only:
                return launch(multiply_in_entry_order_kernel<G, Positions::keep_only, V, I>);
            case Positions::kept:
                return;
            }
        }
    }
    const std::size_t bytes = sizeof(MultiplyShared<G, V, I>) * T::per_block;
    if (pass.kind != LightPass::full) {
        allow_shared(exec, multiply_known_columns_kernel<G, V, I>, bytes, numeric_where);
        multiply_known_columns_kernel<G, V, I><<<blocks, T::block_threads, bytes, stream>>>(
            groups.begin(group), groups.size(group), in);
    } else {
        allow_shared(exec, multiply_light_kernel<G, V, I>, bytes, numeric_where);
        const bool direct = b_cols <= slots_per_thread * G;
        multiply_light_kernel<G, V, I><<<blocks, T::block_threads, bytes, stream>>>(
            groups.begin(group), groups.size(group), in, direct, sort);
    }
    check_launch(numeric_where);
}

/// Group `group` has teams of G = 4 << group threads (V is the device value type, of the
/// same size as the host one).
template <int G = 4, typename V, typename I>
void multiply_group(const CudaExecutor& exec, const RowGroups<I>& groups, int group, int level,
                    const Operands<V, I>& in, long long b_cols, bool sort, LightPass pass)
{
    if constexpr (G <= max_numeric_table<V, I>() / slots_per_thread) {
        if (level == 0) {
            launch_multiply<G>(exec, groups, group, in, b_cols, sort, pass);
        } else {
            multiply_group<2 * G>(exec, groups, group, level - 1, in, b_cols, sort, pass);
        }
    }
}

/// The light groups [0, end) of the plan.
template <typename V, typename I>
void multiply_light_groups(const CudaExecutor& exec, const CudaPlan<I>& plan,
                           const Operands<V, I>& in, bool sort, int end, LightPass pass)
{
    for (int g = 0; g < end; ++g) {
        if (plan.groups.size(g) > 0) {
            multiply_group(exec, plan.groups, g, g, in, plan.b_cols, sort, pass);
        }
    }
}

/// Light groups whose teams are within a warp (tables of up to 8 * 32 slots, rows of at
/// most 128 entries): the rows multiply_in_entry_order_kernel takes.
constexpr int warp_team_groups = light_groups_for(slots_per_thread * 32);
constexpr long long warp_team_max_length = slots_per_thread * 32 / 2;

/// What the full phase needs to give its heavy and hash rows values through a record made
/// for the call (see numeric).
struct HeavyByRecord {
    long long rows;
    long long a_nnz;
    long long multiply_adds;
    long long nnz;
    const unsigned long long* flops;
    std::size_t limit;
};

/// Every row; pass: how the light groups go (heavy rows run their full paths, which write
/// the same sorted columns again when C's are known). With by_record (the full phase) and B
/// no wider than 2^23 columns, the heavy and hash rows' columns come from bitmaps and their
/// values from a record made for this call (the rows split over many blocks, where their
/// full kernels give each row one block, in product order: a power-law row of 30 M
/// multiply-adds then takes 200 ms alone); the full kernels when the record does not fit.
template <typename V, typename I>
void numeric(const CudaExecutor& exec, const CudaPlan<I>& plan, const Operands<V, I>& in, bool sort,
             int light_groups, LightPass pass, const HeavyByRecord* by_record = nullptr)
{
    const auto& groups = plan.groups;
    multiply_light_groups(exec, plan, in, sort, light_groups, pass);
    const long long wide = groups.size(hash_group) + groups.size(heavy_group);
    if (wide > 0 && by_record != nullptr && by_record->limit > 0 && plan.b_cols <= (1ll << 23)) {
        // hash_group and heavy_group are neighbours in the grouping; the light rows are
        // those of at most half the largest table
        write_bitmap_columns(exec, in.pattern, groups.begin(hash_group), wide, by_record->flops,
                             by_record->rows, by_record->a_nnz, plan.b_cols, in.c_ptrs,
                             in.c_cols);
        const auto record = record_products(
            exec, in.pattern, by_record->rows, by_record->a_nnz, by_record->multiply_adds,
            by_record->nnz, in.c_ptrs, in.c_cols, max_numeric_table<V, I>() / 2,
            by_record->limit, by_record->flops, groups, plan.b_cols);
        if (record) {
            values_from_record(exec, record.get(), in);
            return;
        }
    }
    if (groups.size(hash_group) > 0) multiply_hash_rows(exec, groups, plan.hash, in, sort);
    if (groups.size(heavy_group) > 0) multiply_heavy_rows(exec, groups, in, plan.b_cols);
}

/// Rows in the groups [first, end).
template <typename I>
long long rows_in_groups(const RowGroups<I>& groups, int first, int end)
{
    long long rows = 0;
    for (int g = first; g < end; ++g) rows += groups.size(g);
    return rows;
}

/// What a handle keeps for values-only calls (state.recorded): the positions of the
/// multiply-adds of the rows that values_kept_kernel takes (one byte each, at their index
/// in product order), and pairs (record_products) for the other rows, or for
/// every row when B's rows may repeat a column. Either may be missing.
template <typename I>
struct ValuesRecord {
    Array<int64> first_products;  ///< every row's first multiply-add (rows + 1)
    Array<KeptProduct> positions;     ///< per multiply-add (those of other rows unused)
    bool positions_kept = false;      ///< filled by a call (the first one fills them)
    std::shared_ptr<void> pairs;
    std::size_t bytes = 0;
};

/// The record of a handle's first values-only call, within state.record_limit and 3/4 of
/// the device's free memory; null when nothing fits or nothing is worth keeping.
template <typename V, typename I>
std::shared_ptr<ValuesRecord<I>> make_record(const CudaExecutor& exec,
                                             const detail::SpgemmState<I>& state,
                                             const CudaPlan<I>& plan, const Operands<V, I>& in,
                                             long long a_nnz, bool entry_order)
{
    const auto rows = static_cast<long long>(state.size.rows);
    const auto limit = static_cast<std::size_t>(state.record_limit);
    auto record = std::make_shared<ValuesRecord<I>>();
    try {
        // the pairs take the rows that the entry-order teams do not
        record->pairs = record_products(
            exec, in.pattern, rows, a_nnz,
            static_cast<long long>(state.multiply_adds), static_cast<long long>(state.nnz),
            state.row_ptrs.data(), in.c_cols, entry_order ? warp_team_max_length : 0, limit,
            reinterpret_cast<const unsigned long long*>(state.row_flops.data()), plan.groups,
            plan.b_cols);
        record->bytes = record->pairs ? record_size<I>(record->pairs.get()) : 0;
        const long long entry_order_rows = rows_in_groups(plan.groups, 0, warp_team_groups);
        const auto positions_bytes =
            static_cast<std::size_t>(state.multiply_adds) * sizeof(KeptProduct) +
                                     static_cast<std::size_t>(rows + 1) * sizeof(long long);
        std::size_t free_bytes = 0;
        std::size_t total_bytes = 0;
        LOOM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), numeric_where);
        if (entry_order && entry_order_rows > 0 &&
            record->bytes + positions_bytes <= limit &&
            static_cast<double>(positions_bytes) <= 0.75 * static_cast<double>(free_bytes)) {
            const auto self = exec.shared_from_this();
            record->first_products = Array<int64>(self, rows + 1);
            LOOM_CUDA_CHECK(cudaMemcpyAsync(record->first_products.data(), state.row_flops.data(),
                                            sizeof(long long) * rows, cudaMemcpyDeviceToDevice,
                                            stream_of(exec)),
                            numeric_where);
            loom::cuda::exclusive_prefix_sum(exec, record->first_products.data(), rows + 1);
            record->positions = Array<KeptProduct>(self, state.multiply_adds);
            record->bytes += positions_bytes;
        }
    } catch (const OutOfMemory&) {
        // the record only saves time on later calls (free memory was misjudged)
        return nullptr;
    }
    if (!record->pairs && record->positions.size() == 0) return nullptr;
    return record;
}

}  // namespace

template <typename I>
void write_light_columns(const CudaExecutor& exec, const CudaPlan<I>& plan, const Pattern<I>& in,
                         int light_groups, const I* c_ptrs, I* c_cols)
{
    for (int g = 0; g < light_groups; ++g) {
        if (plan.groups.size(g) > 0) {
            columns_of_group(exec, plan.groups, g, g, in, plan.b_cols, c_ptrs, c_cols);
        }
    }
}

template <typename V, typename I>
void record_in_symbolic(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                        const Pattern<I>& in, long long a_nnz)
{
    const auto& plan = *static_cast<const CudaPlan<I>*>(state.backend.get());
    const Operands<V, I> positions_only{in,      nullptr, nullptr,
                                        nullptr, 0,       V(0),
                                        state.row_ptrs.data(), state.columns.data(),
                                        nullptr, state.deterministic};
    state.record_tried = true;
    auto record = make_record(exec, state, plan, positions_only, a_nnz, plan.b_rows_distinct);
    state.recorded_bytes = record ? record->bytes : 0;
    if (record && record->positions.size() > 0) {
        LightPass pass{LightPass::entry_order, Positions::keep_only,
                       reinterpret_cast<const long long*>(record->first_products.data()),
                       record->positions.data()};
        multiply_light_groups(exec, plan, positions_only, true, warp_team_groups, pass);
        record->positions_kept = true;
    }
    state.recorded = std::move(record);
}

#define LOOM_INSTANTIATE_SPGEMM_RECORD_IN_SYMBOLIC_CUDA(V, I)                                  \
    template void record_in_symbolic<loom::cuda::device_type_t<V>, I>(                         \
        const CudaExecutor&, detail::SpgemmState<I>&, const Pattern<I>&, long long);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_RECORD_IN_SYMBOLIC_CUDA)

#define LOOM_INSTANTIATE_SPGEMM_LIGHT_COLUMNS_CUDA(I)                                          \
    template void write_light_columns(const CudaExecutor&, const CudaPlan<I>&,                 \
                                      const Pattern<I>&, int, const I*, I*);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_LIGHT_COLUMNS_CUDA)

}  // namespace loom::sparse::cuda::spgemm_kernels

namespace loom::sparse::cuda {
namespace {

template <typename V, typename I>
spgemm_kernels::Operands<loom::cuda::device_type_t<V>, I> operands(
    const detail::SpgemmState<I>& state, const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    using loom::cuda::as_device;
    using DV = loom::cuda::device_type_t<V>;
    return {{A.row_ptrs().data(), A.col_idxs().data(), B.row_ptrs().data(), B.col_idxs().data(),
             jacobi != nullptr},
            as_device(A.values().data()),
            as_device(B.values().data()),
            jacobi ? as_device(jacobi->d_inv) : nullptr,
            jacobi ? static_cast<long long>(jacobi->stride) : 0,
            jacobi ? as_device(jacobi->omega) : DV(0),
            state.row_ptrs.data(),
            C.col_idxs().data(),
            as_device(C.values().data()),
            state.deterministic};
}

template <typename I>
spgemm_kernels::CudaPlan<I>& plan_of(const detail::SpgemmState<I>& state)
{
    return *static_cast<spgemm_kernels::CudaPlan<I>*>(state.backend.get());
}

}  // namespace

template <typename V, typename I>
void spgemm_numeric(const CudaExecutor& exec, detail::SpgemmState<I>& state,
                    const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                    const detail::JacobiScaling<V>* jacobi, matrix::Csr<V, I>& C)
{
    using namespace spgemm_kernels;
    const HeavyByRecord by_record{static_cast<long long>(A.rows()),
                                  static_cast<long long>(A.nnz()),
                                  static_cast<long long>(state.multiply_adds),
                                  static_cast<long long>(state.nnz),
                                  reinterpret_cast<const unsigned long long*>(
                                      state.row_flops.data()),
                                  static_cast<std::size_t>(state.transient_record_limit)};
    numeric(exec, plan_of(state), operands(state, A, B, jacobi, C), state.sort_output,
            light_groups_for(max_numeric_table<V, I>()), LightPass{}, &by_record);
}

template <typename V, typename I>
SpgemmValuesPath spgemm_numeric_known_columns(const CudaExecutor& exec,
                                              detail::SpgemmState<I>& state,
                                              const matrix::Csr<V, I>& A,
                                              const matrix::Csr<V, I>& B,
                                              const detail::JacobiScaling<V>* jacobi,
                                              matrix::Csr<V, I>& C)
{
    using namespace spgemm_kernels;
    if (!state.sort_output) {
        throw NotSupported(numeric_where, "the values-only numeric phase needs sorted rows");
    }
    const auto in = operands(state, A, B, jacobi, C);
    const auto& plan = plan_of(state);
    // B's rows free of repeated columns: the rows of teams within a warp add in entry order
    const bool entry_order = plan.b_rows_distinct;
    if (!state.record_tried && state.record_limit > 0) {
        // made on the first values-only call, not the full one: a product computed once
        // never pays for it
        state.record_tried = true;
        state.recorded =
            make_record(exec, state, plan, in, static_cast<long long>(A.nnz()), entry_order);
        state.recorded_bytes =
            state.recorded ? static_cast<ValuesRecord<I>*>(state.recorded.get())->bytes : 0;
    }
    auto* record = static_cast<ValuesRecord<I>*>(state.recorded.get());
    LightPass pass{entry_order ? LightPass::entry_order : LightPass::known_columns};
    if (record && record->positions.size() > 0) {
        pass.positions = record->positions_kept ? Positions::kept : Positions::search_and_keep;
        pass.first_products = reinterpret_cast<const long long*>(record->first_products.data());
        pass.kept = record->positions.data();
        record->positions_kept = true;
    }
    // the entry-order rows, and the others (every row without entry order)
    const int short_groups = entry_order ? warp_team_groups : 0;
    const bool short_rows_kept =
        pass.positions == Positions::kept || rows_in_groups(plan.groups, 0, short_groups) == 0;
    const bool pairs = record && record->pairs;
    const bool other_rows_kept = pairs || rows_in_groups(plan.groups, short_groups, empty_group) == 0;
    if (pairs) {
        values_from_record(exec, record->pairs.get(), in);
        if (entry_order) {
            multiply_light_groups(exec, plan, in, true, warp_team_groups, pass);
        }
    } else {
        numeric(exec, plan, in, true, light_groups_for(max_numeric_table<V, I>()), pass);
    }
    return short_rows_kept && other_rows_kept ? SpgemmValuesPath::recorded
                                              : SpgemmValuesPath::known_columns;
}

#define LOOM_INSTANTIATE_SPGEMM_NUMERIC_CUDA(V, I)                                             \
    template void spgemm_numeric(const CudaExecutor&, detail::SpgemmState<I>&,                 \
                                 const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,           \
                                 const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);         \
    template SpgemmValuesPath spgemm_numeric_known_columns(                                    \
        const CudaExecutor&, detail::SpgemmState<I>&, const matrix::Csr<V, I>&,                \
        const matrix::Csr<V, I>&, const detail::JacobiScaling<V>*, matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_NUMERIC_CUDA)

}  // namespace loom::sparse::cuda
