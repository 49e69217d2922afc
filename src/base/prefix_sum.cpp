#include "base/prefix_sum.hpp"

#include "base/dispatch.hpp"

namespace loom {
namespace reference {

template <typename I>
void exclusive_prefix_sum(const ReferenceExecutor&, I* values, size_type n)
{
    I sum{0};
    for (size_type i = 0; i < n; ++i) {
        const I count = values[i];
        values[i] = sum;
        sum += count;
    }
}

}  // namespace reference

namespace detail {

template <typename I>
void exclusive_prefix_sum(Array<I>& values)
{
    [[maybe_unused]] constexpr const char* where = "loom::detail::exclusive_prefix_sum";
    if (values.empty()) return;
    const auto n = values.size();
    LOOM_RUN_KERNEL(where, *values.executor(), exclusive_prefix_sum, values.data(), n);
}

}  // namespace detail

#define LOOM_INSTANTIATE_PREFIX_SUM(I)                                                     \
    template void reference::exclusive_prefix_sum(const ReferenceExecutor&, I*, size_type); \
    template void detail::exclusive_prefix_sum(Array<I>&);
LOOM_INSTANTIATE_PREFIX_SUM(int32)
LOOM_INSTANTIATE_PREFIX_SUM(int64)

}  // namespace loom
