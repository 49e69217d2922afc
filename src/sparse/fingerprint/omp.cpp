// OpenMP pattern hash: one reduction over row pointers and columns as a single index range.
#include "base/instantiate.hpp"
#include "sparse/fingerprint/kernels.hpp"

namespace loom::sparse::omp {
namespace {

/// Below this many pointers and columns one thread is faster than waking a team.
constexpr size_type min_parallel_entries = size_type{1} << 15;

}  // namespace

template <typename I>
std::uint64_t pattern_hash(const OmpExecutor& exec, const Array<I>& row_ptrs,
                           const Array<I>& col_idxs)
{
    const I* ptrs = row_ptrs.data();
    const I* cols = col_idxs.data();
    const size_type n = row_ptrs.size();
    const size_type total = n + col_idxs.size();
    std::uint64_t sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static) num_threads(exec.num_threads()) \
    if (total > min_parallel_entries)
    for (size_type i = 0; i < total; ++i) {
        const I value = i < n ? ptrs[i] : cols[i - n];
        sum += detail::hash_term(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(value));
    }
    return sum;
}

#define LOOM_INSTANTIATE_FINGERPRINT_OMP(I) LOOM_INSTANTIATE_FINGERPRINT_KERNELS(OmpExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_FINGERPRINT_OMP)

}  // namespace loom::sparse::omp
