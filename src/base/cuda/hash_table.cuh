// Open-addressing hash tables of column indices for CUDA kernels, filled concurrently by the
// threads of a team: keys claimed by atomicCAS (empty slots hold -1), linear probing.
//  * One-level tables of S slots (a power of two, usually shared memory): insert a key
//    (counting distinct columns), or accumulate a value per key. With `direct` every column
//    has a slot of its own (columns < S): no collisions, and the table is in column order.
//  * Two-level tables: a first level (shared memory) probed over a bounded window, then a
//    second level (global memory) probed until found, for rows that may overflow the first.
// Used by SpGEMM: its light rows (one-level tables per team) and heavy rows with a wide B
// (two-level tables per block).
#pragma once

#include <cstddef>

#include "base/cuda/arithmetic.cuh"

namespace loom::cuda {

/// The key of an empty slot.
template <typename I>
constexpr I empty_key = I{-1};

/// atomicCAS on a column index of either width.
template <typename I>
__device__ inline I atomic_cas(I* address, I expected, I desired)
{
    if constexpr (sizeof(I) == 4) {
        return static_cast<I>(atomicCAS(reinterpret_cast<int*>(address), static_cast<int>(expected),
                                        static_cast<int>(desired)));
    } else {
        return static_cast<I>(atomicCAS(reinterpret_cast<unsigned long long*>(address),
                                        static_cast<unsigned long long>(expected),
                                        static_cast<unsigned long long>(desired)));
    }
}

/// A load that sees what other threads wrote with atomics (no stale L1 line for global
/// memory; shared memory is coherent anyway).
template <typename T>
__device__ inline T racy_load(const T* address)
{
    return *const_cast<const volatile T*>(address);
}

/// A load of global memory from L2, never from a possibly stale L1 line: for tables written
/// by stores and atomics of the block. T is 4, 8 or 16 bytes.
template <typename T>
__device__ inline T load_coherent(const T* address)
{
    static_assert(sizeof(T) % 4 == 0);
    T result;
    auto* to = reinterpret_cast<unsigned*>(&result);
    const auto* from = reinterpret_cast<const unsigned*>(address);
    for (std::size_t i = 0; i < sizeof(T) / 4; ++i) to[i] = __ldcg(from + i);
    return result;
}

/// Slot of `col` in a table of mask + 1 slots; `direct` when every column has a slot of its
/// own (no column beyond the table): no collisions, and the table is in column order.
template <typename I>
__device__ inline unsigned slot_of(I col, unsigned mask, bool direct)
{
    if (direct) return static_cast<unsigned>(col) & mask;
    const auto mixed = static_cast<unsigned long long>(col) * 0x9E3779B97F4A7C15ull;
    return static_cast<unsigned>(mixed >> 32) & mask;
}

/// Inserts col into keys[S]; true when it was not there yet.
template <int S, typename I>
__device__ inline bool hash_insert(I* keys, I col, bool direct)
{
    unsigned slot = slot_of(col, S - 1, direct);
    for (int probe = 0; probe < S; ++probe) {
        const I seen = racy_load(keys + slot);
        if (seen == col) return false;
        if (seen == empty_key<I>) {
            const I old = atomic_cas(keys + slot, empty_key<I>, col);
            if (old == empty_key<I>) return true;
            if (old == col) return false;
        }
        slot = (slot + 1) & (S - 1);
    }
    return false;  // full: impossible with at least twice the row's distinct columns
}

/// Adds value to col's slot of keys[S] / values[S], claiming a slot for a new column.
template <int S, typename V, typename I>
__device__ inline void hash_accumulate(I* keys, V* values, I col, V value, bool direct)
{
    unsigned slot = slot_of(col, S - 1, direct);
    for (int probe = 0; probe < S; ++probe) {
        I seen = racy_load(keys + slot);
        if (seen == empty_key<I>) {
            const I old = atomic_cas(keys + slot, empty_key<I>, col);
            seen = old == empty_key<I> ? col : old;
        }
        if (seen == col) {
            atomic_add(values + slot, value);
            return;
        }
        slot = (slot + 1) & (S - 1);
    }
}

// ---------------------------------------------------------------------- two-level tables

/// The tables of one row: a first level (shared memory), probed at most `probes` slots, and
/// (rows that may overflow it) a second level (global memory), probed until found: it holds
/// at least twice the keys that can reach it.
template <typename I>
struct TwoLevelTable {
    I* shared_keys;
    unsigned shared_mask;
    int probes;
    I* global_keys;  ///< null: the row fits in the first level (probes = its size)
    unsigned long long global_mask;
};

/// Second-level start slot: other bits than the first level's, so that keys that crowded one
/// stretch of shared memory spread out in global memory.
template <typename I>
__device__ inline unsigned long long global_slot_of(I col, unsigned long long mask)
{
    const auto mixed = static_cast<unsigned long long>(col) * 0xD6E8FEB86659FD93ull;
    return (mixed >> 20) & mask;
}

/// Claims (or finds) col's slot in keys[mask + 1] from `slot` on, at most `probes` slots.
/// Returns the slot or -1; `inserted` tells whether this call claimed it.
template <typename I, typename Slot>
__device__ inline long long claim_slot(I* keys, Slot slot, Slot mask, long long probes, I col,
                                       bool& inserted)
{
    for (long long probe = 0; probe < probes; ++probe) {
        I seen = racy_load(keys + slot);
        if (seen == empty_key<I>) {
            const I old = atomic_cas(keys + slot, empty_key<I>, col);
            if (old == empty_key<I>) {
                inserted = true;
                return static_cast<long long>(slot);
            }
            seen = old;
        }
        if (seen == col) return static_cast<long long>(slot);
        slot = (slot + 1) & mask;
    }
    return -1;
}

/// col's slot in the row's tables: [0, shared size) in shared memory, shared size + s for slot
/// s of the global table; -1 only if the tables were sized wrong. A column lives in one level
/// only: its bounded probe window in shared memory fills monotonically, so once a thread has
/// seen the whole window taken by other columns, no thread can place col there later.
template <typename I>
__device__ inline long long find_slot(const TwoLevelTable<I>& t, I col, bool& inserted)
{
    inserted = false;
    const long long first = claim_slot(t.shared_keys, slot_of(col, t.shared_mask, false),
                                       t.shared_mask, t.probes, col, inserted);
    if (first >= 0 || t.global_keys == nullptr) return first;
    const long long second =
        claim_slot(t.global_keys, global_slot_of(col, t.global_mask), t.global_mask,
                   static_cast<long long>(t.global_mask) + 1, col, inserted);
    return second < 0 ? -1 : second + t.shared_mask + 1;
}

}  // namespace loom::cuda
