// Binary search written once for host and device code (a kernel body, a device lambda or a
// host loop): the CUDA families had three copies of this loop, and thrust's needs an
// execution policy argument in device code.
#pragma once

#include "loom/launch/macros.hpp"

namespace loom::detail {

/// The first position in the sorted keys[0, n) whose key is not below value (n when none).
template <typename K, typename T>
LOOM_HOST_DEVICE long long lower_bound(const K* keys, long long n, const T& value)
{
    long long lo = 0;
    while (n > 0) {
        const long long half = n / 2;
        if (keys[lo + half] < value) {
            lo += half + 1;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return lo;
}

}  // namespace loom::detail
