// Rows grouped into bins by the work they need, so that each bin runs with a launch shape of
// its own (a team size, a table size, a kernel): one pass classifies every row (bin_of(row))
// and counts the rows per bin and the sum of a per-row weight, then a stable radix sort of
// (bin, row) pairs lists the rows bin by bin, each bin in row order. Used by SpGEMM (light
// rows by hash table size, heavy rows by accumulator, empty rows).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

#include <cub/device/device_radix_sort.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/prefix_sum.hpp"
#include "loom/base/array.hpp"

namespace loom::cuda {

/// Rows listed bin by bin: rows[offsets[b] .. offsets[b + 1]) are bin b's.
template <typename I, int Bins>
struct RowBins {
    Array<I> rows;
    std::array<long long, Bins + 1> offsets{};
    unsigned long long weight = 0;  ///< the sum of the rows' weights

    long long size(int bin) const { return offsets[bin + 1] - offsets[bin]; }
    const I* begin(int bin) const { return rows.data() + offsets[bin]; }
};

namespace row_binning {

/// What the classification counts: rows per bin, and the weights of all rows.
template <int Bins>
struct BinCounts {
    unsigned long long rows[Bins];
    unsigned long long weight;
};

template <int Bins, typename BinOf>
__global__ void __launch_bounds__(256)
    classify_kernel(long long rows, BinOf bin_of, const unsigned long long* weights,
                    unsigned char* bins, BinCounts<Bins>* counts)
{
    __shared__ unsigned long long local[Bins + 1];
    if (threadIdx.x <= Bins) local[threadIdx.x] = 0;
    __syncthreads();
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += static_cast<long long>(gridDim.x) * blockDim.x) {
        const int bin = bin_of(r);
        bins[r] = static_cast<unsigned char>(bin);
        atomicAdd(local + bin, 1ull);
        if (weights != nullptr) atomicAdd(local + Bins, weights[r]);
    }
    __syncthreads();
    if (threadIdx.x < Bins && local[threadIdx.x] > 0) {
        atomicAdd(counts->rows + threadIdx.x, local[threadIdx.x]);
    }
    if (threadIdx.x == Bins && local[Bins] > 0) atomicAdd(&counts->weight, local[Bins]);
}

template <typename I>
__global__ void __launch_bounds__(256) iota_kernel(long long n, I* values)
{
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        values[i] = static_cast<I>(i);
    }
}

}  // namespace row_binning

/// The rows [0, rows) grouped into Bins bins (a power of two, at most 255) by bin_of(row), a
/// __device__ functor; weights (device, may be null) are summed into the result's weight.
template <typename I, int Bins, typename BinOf>
RowBins<I, Bins> bin_rows(const CudaExecutor& exec, long long rows, BinOf bin_of,
                          const unsigned long long* weights, const char* where)
{
    static_assert(Bins > 1 && Bins < 256 && std::has_single_bit(static_cast<unsigned>(Bins)));
    using namespace row_binning;
    constexpr int bits = std::bit_width(static_cast<unsigned>(Bins - 1));
    const auto self = exec.shared_from_this();
    const auto stream = stream_of(exec);
    RowBins<I, Bins> result;
    result.rows = Array<I>(self, rows);
    if (rows == 0) return result;
    if (rows > std::numeric_limits<int>::max()) {
        throw NotSupported(where, "more than 2^31 - 1 rows");
    }
    Array<unsigned char> bins(self, rows);
    Array<BinCounts<Bins>> counts(self, 1);
    LOOM_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, sizeof(BinCounts<Bins>), stream), where);
    classify_kernel<Bins><<<grid_for(exec, rows, 256, 8), 256, 0, stream>>>(
        rows, bin_of, weights, bins.data(), counts.data());
    check_launch(where);
    const BinCounts<Bins> host = loom::detail::load_element(counts, 0);
    result.weight = host.weight;
    for (int b = 0; b < Bins; ++b) {
        result.offsets[b + 1] = result.offsets[b] + static_cast<long long>(host.rows[b]);
    }
    iota_kernel<<<grid_for(exec, rows, 256, 8), 256, 0, stream>>>(rows, result.rows.data());
    check_launch(where);
    const bool one_bin = std::any_of(host.rows, host.rows + Bins, [&](unsigned long long c) {
        return static_cast<long long>(c) == rows;
    });
    if (one_bin) return result;  // row order is already binned
    Array<I> ids_in(std::move(result.rows));
    result.rows = Array<I>(self, rows);
    Array<unsigned char> sorted_bins(self, rows);
    const int n = static_cast<int>(rows);
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, bins.data(), sorted_bins.data(),
                                               ids_in.data(), result.rows.data(), n, 0, bits,
                                               stream);
    });
    return result;
}

}  // namespace loom::cuda
