// CUB's radix sort and segmented sort: the peers of `loom bench sort` (keys alone). Apart from
// the network sorts of cuda.cu: CUB's sorts are the costliest code of the CUDA backend to
// compile, so they are instantiated for the benchmark's keys and offsets only (int32),
// LOOM_SORT_FOR_EACH_VENDOR_KEY in kernels.hpp.
#include <cub/cub.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "sort/kernels.hpp"

namespace loom::sort::cuda {

using loom::cuda::stream_of;

namespace {

/// Copies CUB's result back into keys when it ended in the alternate buffer.
template <typename K>
void settle(const CudaExecutor& exec, cub::DoubleBuffer<K>& buffers, K* keys, size_type n)
{
    if (buffers.Current() == keys) return;
    LOOM_CUDA_CHECK(cudaMemcpyAsync(keys, buffers.Current(), sizeof(K) * n,
                                    cudaMemcpyDeviceToDevice, stream_of(exec)),
                    "loom::sort::vendor_sort");
}

}  // namespace

template <typename K>
void vendor_sort(const CudaExecutor& exec, K* keys, size_type n, Order order)
{
    Array<K> alternate(exec.shared_from_this(), n);
    cub::DoubleBuffer<K> buffers(keys, alternate.data());
    loom::cuda::run_cub(exec, "loom::sort::vendor_sort", [&](void* temp, std::size_t& bytes) {
        return order == Order::ascending
                   ? cub::DeviceRadixSort::SortKeys(temp, bytes, buffers, n, 0, sizeof(K) * 8,
                                                    stream_of(exec))
                   : cub::DeviceRadixSort::SortKeysDescending(temp, bytes, buffers, n, 0,
                                                              sizeof(K) * 8, stream_of(exec));
    });
    settle(exec, buffers, keys, n);
}

template <typename K, typename I>
void vendor_sort_segments(const CudaExecutor& exec, const I* offsets, size_type num_segments,
                          K* keys, size_type n, Order order)
{
    Array<K> alternate(exec.shared_from_this(), n);
    cub::DoubleBuffer<K> buffers(keys, alternate.data());
    loom::cuda::run_cub(
        exec, "loom::sort::vendor_sort_segments", [&](void* temp, std::size_t& bytes) {
            return order == Order::ascending
                       ? cub::DeviceSegmentedSort::SortKeys(temp, bytes, buffers, n, num_segments,
                                                            offsets, offsets + 1, stream_of(exec))
                       : cub::DeviceSegmentedSort::SortKeysDescending(temp, bytes, buffers, n,
                                                                      num_segments, offsets,
                                                                      offsets + 1, stream_of(exec));
        });
    settle(exec, buffers, keys, n);
}

#define LOOM_INSTANTIATE_SORT_CUDA_VENDOR(K, I)                                                 \
    template void vendor_sort(const CudaExecutor&, K*, size_type, Order);                       \
    template void vendor_sort_segments(const CudaExecutor&, const I*, size_type, K*, size_type, \
                                       Order);
LOOM_SORT_FOR_EACH_VENDOR_KEY(LOOM_INSTANTIATE_SORT_CUDA_VENDOR)
#define LOOM_INSTANTIATE_SORT_CUDA_VENDOR_WHOLE(K) \
    template void vendor_sort(const CudaExecutor&, K*, size_type, Order);
LOOM_SORT_FOR_EACH_VENDOR_WHOLE_KEY(LOOM_INSTANTIATE_SORT_CUDA_VENDOR_WHOLE)

}  // namespace loom::sort::cuda
