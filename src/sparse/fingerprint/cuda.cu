// CUDA pattern hash: CUB's device reduction over the terms of row pointers and columns as a
// single index range, read through a transform iterator (nothing materialised).
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "base/cuda/cub.cuh"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "sparse/fingerprint/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

constexpr const char* where = "loom::sparse::pattern_fingerprint";

template <typename I>
struct HashTerm {
    const I* ptrs;
    const I* cols;
    long long n;  ///< entries of ptrs
    __host__ __device__ unsigned long long operator()(long long i) const
    {
        const I value = i < n ? ptrs[i] : cols[i - n];
        return detail::hash_term(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(value));
    }
};

}  // namespace

template <typename I>
std::uint64_t pattern_hash(const CudaExecutor& exec, const Array<I>& row_ptrs,
                           const Array<I>& col_idxs)
{
    const long long n = row_ptrs.size();
    const long long total = n + col_idxs.size();
    if (total == 0) return 0;
    auto terms = thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0),
                                                 HashTerm<I>{row_ptrs.data(), col_idxs.data(), n});
    Array<unsigned long long> sum(exec.shared_from_this(), 1);
    loom::cuda::run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Sum(temp, bytes, terms, sum.data(), total,
                                      loom::cuda::stream_of(exec));
    });
    return loom::detail::load_element(sum, 0);
}

#define LOOM_INSTANTIATE_FINGERPRINT_CUDA(I) LOOM_INSTANTIATE_FINGERPRINT_KERNELS(CudaExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_FINGERPRINT_CUDA)

}  // namespace loom::sparse::cuda
