// Sequential pattern hash, the oracle.
#include "base/instantiate.hpp"
#include "sparse/fingerprint/kernels.hpp"

namespace loom::sparse::reference {

template <typename I>
std::uint64_t pattern_hash(const ReferenceExecutor&, const Array<I>& row_ptrs,
                           const Array<I>& col_idxs)
{
    const auto n = static_cast<std::uint64_t>(row_ptrs.size());
    std::uint64_t sum = 0;
    for (size_type i = 0; i < row_ptrs.size(); ++i) {
        sum += detail::hash_term(static_cast<std::uint64_t>(i),
                                 static_cast<std::uint64_t>(row_ptrs.data()[i]));
    }
    for (size_type k = 0; k < col_idxs.size(); ++k) {
        sum += detail::hash_term(n + static_cast<std::uint64_t>(k),
                                 static_cast<std::uint64_t>(col_idxs.data()[k]));
    }
    return sum;
}

#define LOOM_INSTANTIATE_FINGERPRINT_REFERENCE(I) \
    LOOM_INSTANTIATE_FINGERPRINT_KERNELS(ReferenceExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_FINGERPRINT_REFERENCE)

}  // namespace loom::sparse::reference
