// Explicit-instantiation lists of the 16-bit storage types (loom/base/half.hpp), built in
// every configuration but only for the containers and kernels that take them (Dense, Csr,
// SpMM, SDDMM, FusedMM and the precision conversions): they are not value types of
// LOOM_VALUE_TYPES. M(T) / M(T, I) as in base/instantiate.hpp.
#pragma once

#include "base/instantiate.hpp"
#include "loom/base/half.hpp"

#define LOOM_FOR_EACH_STORAGE_TYPE_ON(M, ...) \
    M(__VA_ARGS__ __VA_OPT__(, )::loom::half) \
    M(__VA_ARGS__ __VA_OPT__(, )::loom::bfloat16)
#define LOOM_FOR_EACH_STORAGE_TYPE(M) LOOM_FOR_EACH_STORAGE_TYPE_ON(M)
#define LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(M) \
    LOOM_FOR_EACH_STORAGE_TYPE_ON(LOOM_FOR_EACH_INDEX_TYPE_ON, M)
