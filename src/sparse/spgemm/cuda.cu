// CUDA SpGEMM: Gustavson's row-wise product with the rows grouped by the work they need.
// NOTES.md beside this file explains the design and the expected speed; in short:
//
// * Symbolic: the multiply-adds ("flops") of every row (a thread per chunk of A's entries,
//   so that one huge row does not serialise), then the rows grouped by the size of the
//   hash table their distinct columns need (upper bound min(flops, B.cols)): a stable
//   radix sort of (group, row) pairs. A team of G threads per row counts distinct columns
//   in a shared-memory hash table of 32G slots, G from 1 (a thread per row, 256 rows per
//   block) to 256 (a block). Rows too wide for shared memory ("heavy") get a block each and,
//   when they would fill at least one bit in 256 of it, a bitmap of B's columns (in shared
//   memory when it fits, else one per block in global memory); sparser heavy rows a
//   two-level hash: a shared-memory first level and, for rows that may overflow it, a
//   global second level from a pool sized by the rows' needs. Scan of the counts ->
//   C's row pointers; then the rows are grouped again by their exact length for the numeric
//   phase, and that grouping (and the numeric second levels' layout) stays in the handle.
// * Numeric: teams of G = 4 .. 1024 threads insert (column, value) pairs into a shared table
//   of 8G slots (keys by atomicCAS, values by atomicAdd) sized for the row's exact length,
//   at most half full, then sort the table
//   in place (bitonic, empty slots sort last) and write the first `length` slots, or compact
//   it unsorted. Heavy rows, bitmap: set the bitmap bits, turn them into positions (block
//   scan of popcounts, which also writes the columns, sorted), then add every product
//   straight into C's value at its position. Heavy rows, two-level hash: accumulate in both
//   levels, append both to C's row (unsorted) or to a buffer that one CUB segmented sort
//   orders before the copy into C.
// * Inside a team, the products of a batch of G entries of A are spread evenly over the
//   team: each thread loads one entry, a team scan of the B row lengths gives the product
//   ranges, and thread t takes products t, t + G, ... (binary search for its entry).
//
// Every launch is on the executor's stream and checked. Values are summed with atomics in
// an order that can differ between runs (last-bit differences for floating point).
//
// Files: cuda_symbolic.cu and cuda_numeric.cu hold the phases and the light rows,
// cuda_heavy.cu the bitmap rows, cuda_hash.cu the two-level hash rows, cuda_jacobi.cu the
// inverse diagonal, cuda_common.cuh what they share; this file the pattern checksum. The
// hash tables, the row grouping and the team scans are base/cuda's (hash_table.cuh,
// row_binning.cuh, warp.cuh).
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
