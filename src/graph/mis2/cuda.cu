// CUDA MIS-2: the round's decision (the per-vertex kernels are unified.hpp's), one thread per
// vertex, applying the rules of rules.hpp (the same code as the host backends, so the same
// decisions). The keys are gathered, never scattered: no atomics touch them, and any thread
// order gives the reference's bits. The list of undecided vertices is appended to with
// atomics, so its order varies; only which vertices it holds matters (each one's result
// depends on the arrays, not on its slot).
#include <cooperative_groups.h>

#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/cuda/parallel.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "graph/mis2/kernels.hpp"
#include "graph/mis2/unified.hpp"

namespace loom::graph::cuda {

using namespace mis2_detail;
using loom::cuda::parallel_for;

/// Slot in a list for the converged lanes that append (used), one atomic per group of them.
__device__ inline long long append_slot(bool used, unsigned long long* counter)
{
    const auto group = cooperative_groups::coalesced_threads();
    const unsigned lanes = group.ballot(used);
    unsigned long long base = 0;
    if (group.thread_rank() == 0 && lanes != 0) {
        base = atomicAdd(counter, static_cast<unsigned long long>(__popc(lanes)));
    }
    base = group.shfl(base, 0);
    const unsigned before = lanes & ((1u << group.thread_rank()) - 1u);
    return used ? static_cast<long long>(base + __popc(before)) : -1;
}

template <typename I>
size_type decide(const CudaExecutor& exec, const GraphView<I>& graph, const KeyLayout& layout,
                 int round, Array<Key>& keys, const Array<Key>& within_1, const Array<I>& undecided,
                 size_type count, Array<I>& next_undecided)
{
    // Zeroed in stream order: the count read back below is the round's only synchronization.
    Array<unsigned long long> counter(exec.shared_from_this(), 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long),
                                    loom::cuda::stream_of(exec)),
                    mis2_where);
    Key* key = keys.data();
    const Key* in = within_1.data();
    const I* listed = undecided.data();
    I* next = next_undecided.data();
    unsigned long long* total = counter.data();
    const I* row_ptrs = graph.row_ptrs;
    parallel_for(
        exec, count,
        [=] __device__(long long i) {
            const I v = listed[i];
            const Key k = next_key(layout, v, row_ptrs[v + 1] - row_ptrs[v], round, key[v],
                                   largest_key(graph, in, v));
            key[v] = k;
            const long long slot = append_slot(is_undecided(k), total);
            if (slot >= 0) next[slot] = v;
        },
        mis2_where);
    return static_cast<size_type>(loom::detail::load_element(counter, 0));
}

}  // namespace loom::graph::cuda

namespace loom::graph {
#define LOOM_INSTANTIATE_MIS2_CUDA(I) LOOM_INSTANTIATE_MIS2_BACKEND(cuda, unified, CudaExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_MIS2_CUDA)
}  // namespace loom::graph
