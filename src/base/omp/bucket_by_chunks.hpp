// A stable counting sort of items into buckets on OpenMP threads, for the kernels that place
// entries by another index than the one they are stored by (COO -> CSR by row, transposition
// by column). The items are cut into `chunks` contiguous chunks, one thread each; a chunk
// counts its items per bucket, and within a bucket the chunks' items are placed one chunk
// after the other, each chunk in input order. So the result is the sequential stable sort's,
// for any number of chunks. The chunks x buckets counters are the memory cost: callers bound
// the number of chunks by it.
#pragma once

#include <vector>

#include "base/omp/launch.hpp"
#include "base/prefix_sum.hpp"

namespace loom::omp {

/// for_chunk(c, visit) calls visit(bucket, item...) for every item of chunk c in input order;
/// bucket_ptrs (buckets + 1 entries) receives the first slot of each bucket, and
/// place(slot, item...) is called once per item with its slot in the sorted order.
template <typename I, typename ForChunk, typename Place>
void bucket_by_chunks(const OmpExecutor& exec, int chunks, size_type buckets, I* bucket_ptrs,
                      ForChunk for_chunk, Place place)
{
    // counts[c * buckets + b]: items of bucket b in chunk c, then their first slot in bucket b.
    std::vector<I> counts(static_cast<std::size_t>(chunks) * buckets, I{0});
    I* const all_counts = counts.data();
#pragma omp parallel for schedule(static, 1) num_threads(chunks)
    for (int c = 0; c < chunks; ++c) {
        I* count = all_counts + c * buckets;
        for_chunk(c, [&](I bucket, const auto&...) { ++count[bucket]; });
    }
    parallel_for(exec, buckets, [&](size_type b) {
        I in_bucket = 0;
        for (int c = 0; c < chunks; ++c) {
            const I count = all_counts[c * buckets + b];
            all_counts[c * buckets + b] = in_bucket;
            in_bucket += count;
        }
        bucket_ptrs[b] = in_bucket;
    });
    exclusive_prefix_sum(exec, bucket_ptrs, buckets + 1);
#pragma omp parallel for schedule(static, 1) num_threads(chunks)
    for (int c = 0; c < chunks; ++c) {
        I* next = all_counts + c * buckets;
        for_chunk(c, [&](I bucket, const auto&... item) {
            place(bucket_ptrs[bucket] + next[bucket]++, item...);
        });
    }
}

}  // namespace loom::omp
