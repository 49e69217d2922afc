// Explicit-instantiation lists, narrowed by the CMake options LOOM_VALUE_TYPES and
// LOOM_INDEX_TYPES. A kernel family writes `LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(M)` once per
// translation unit, where M(V, I) expands to one explicit instantiation (ending in ';').
// A family whose list is written once for all its backends (M(Exec, V, I) in its kernels.hpp)
// instantiates it in each backend with `LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(M, Exec)`: the
// arguments after M come first in every expansion.
#pragma once

#include <complex>

#include "loom/base/types.hpp"
#include "loom/config.hpp"

#define LOOM_EXPAND_IF_0(...)
#define LOOM_EXPAND_IF_1(...) __VA_ARGS__
#define LOOM_EXPAND_IF_(flag) LOOM_EXPAND_IF_##flag
#define LOOM_EXPAND_IF(flag) LOOM_EXPAND_IF_(flag)

// M(args..., T) for each built type T; the plain forms below pass no args.
#define LOOM_FOR_EACH_INDEX_TYPE_ON(M, ...)                                        \
    LOOM_EXPAND_IF(LOOM_HAS_INT32)(M(__VA_ARGS__ __VA_OPT__(, ) ::loom::int32)) \
    LOOM_EXPAND_IF(LOOM_HAS_INT64)(M(__VA_ARGS__ __VA_OPT__(, ) ::loom::int64))

#define LOOM_FOR_EACH_VALUE_TYPE_ON(M, ...)                                                      \
    LOOM_EXPAND_IF(LOOM_HAS_FLOAT)(M(__VA_ARGS__ __VA_OPT__(, ) float))                        \
    LOOM_EXPAND_IF(LOOM_HAS_DOUBLE)(M(__VA_ARGS__ __VA_OPT__(, ) double))                      \
    LOOM_EXPAND_IF(LOOM_HAS_COMPLEX_FLOAT_)(M(__VA_ARGS__ __VA_OPT__(, ) std::complex<float>)) \
    LOOM_EXPAND_IF(LOOM_HAS_COMPLEX_DOUBLE_)(M(__VA_ARGS__ __VA_OPT__(, ) std::complex<double>))

#define LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(M, ...) \
    LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_FOR_EACH_INDEX_TYPE_ON, M __VA_OPT__(, ) __VA_ARGS__)

#define LOOM_FOR_EACH_INDEX_TYPE(M) LOOM_FOR_EACH_INDEX_TYPE_ON(M)
#define LOOM_FOR_EACH_VALUE_TYPE(M) LOOM_FOR_EACH_VALUE_TYPE_ON(M)
#define LOOM_WITH_EACH_INDEX_TYPE(M, V) LOOM_FOR_EACH_INDEX_TYPE_ON(M, V)
#define LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(M) LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(M)

/// The real value types only (kernels without a complex meaning, such as FusedMM's sigmoid).
#define LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(M)                          \
    LOOM_EXPAND_IF(LOOM_HAS_FLOAT)(LOOM_WITH_EACH_INDEX_TYPE(M, float))     \
    LOOM_EXPAND_IF(LOOM_HAS_DOUBLE)(LOOM_WITH_EACH_INDEX_TYPE(M, double))
