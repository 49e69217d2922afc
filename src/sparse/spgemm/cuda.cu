// The pattern checksum of the CUDA SpGEMM (the product itself: cuda_*.cu beside it, whose
// design cuda_common.cuh explains).
#include <cstdint>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_reduce.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/spgemm/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

using loom::cuda::run_cub;
using loom::cuda::stream_of;

constexpr const char* checksum_where = "loom::sparse::spgemm (pattern checksum)";

template <typename I>
struct ChecksumTerm {
    const I* ptrs;
    const I* cols;
    long long n;  ///< entries of ptrs
    __host__ __device__ unsigned long long operator()(long long i) const
    {
        const I value = i < n ? ptrs[i] : cols[i - n];
        return detail::checksum_term(static_cast<std::uint64_t>(i),
                                     static_cast<std::uint64_t>(value));
    }
};

}  // namespace

template <typename I>
std::uint64_t pattern_checksum(const CudaExecutor& exec, const Array<I>& row_ptrs,
                               const Array<I>& col_idxs)
{
    const long long n = row_ptrs.size();
    const long long total = n + col_idxs.size();
    if (total == 0) return 0;
    auto terms = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0),
                                                 ChecksumTerm<I>{row_ptrs.data(),
                                                                 col_idxs.data(), n});
    Array<unsigned long long> result(exec.shared_from_this(), 1);
    run_cub(exec, checksum_where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Sum(temp, bytes, terms, result.data(), total, stream_of(exec));
    });
    return loom::detail::load_element(result, 0);
}

#define LOOM_INSTANTIATE_SPGEMM_CHECKSUM_CUDA(I)                                               \
    template std::uint64_t pattern_checksum(const CudaExecutor&, const Array<I>&,              \
                                            const Array<I>&);
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_SPGEMM_CHECKSUM_CUDA)

}  // namespace loom::sparse::cuda
