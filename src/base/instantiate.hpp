// Explicit-instantiation lists, narrowed by the CMake options LOOM_VALUE_TYPES and
// LOOM_INDEX_TYPES. A kernel family writes `LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(M)` once per
// translation unit, where M(V, I) expands to one explicit instantiation (ending in ';').
#pragma once

#include <complex>

#include "loom/base/types.hpp"
#include "loom/config.hpp"

#define LOOM_EXPAND_IF_0(...)
#define LOOM_EXPAND_IF_1(...) __VA_ARGS__
#define LOOM_EXPAND_IF_(flag) LOOM_EXPAND_IF_##flag
#define LOOM_EXPAND_IF(flag) LOOM_EXPAND_IF_(flag)

#define LOOM_FOR_EACH_INDEX_TYPE(M)                  \
    LOOM_EXPAND_IF(LOOM_HAS_INT32)(M(::loom::int32)) \
    LOOM_EXPAND_IF(LOOM_HAS_INT64)(M(::loom::int64))

#define LOOM_FOR_EACH_VALUE_TYPE(M)                                   \
    LOOM_EXPAND_IF(LOOM_HAS_FLOAT)(M(float))                          \
    LOOM_EXPAND_IF(LOOM_HAS_DOUBLE)(M(double))                        \
    LOOM_EXPAND_IF(LOOM_HAS_COMPLEX_FLOAT_)(M(std::complex<float>))   \
    LOOM_EXPAND_IF(LOOM_HAS_COMPLEX_DOUBLE_)(M(std::complex<double>))

#define LOOM_WITH_EACH_INDEX_TYPE(M, V)                 \
    LOOM_EXPAND_IF(LOOM_HAS_INT32)(M(V, ::loom::int32)) \
    LOOM_EXPAND_IF(LOOM_HAS_INT64)(M(V, ::loom::int64))

#define LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(M)                                             \
    LOOM_EXPAND_IF(LOOM_HAS_FLOAT)(LOOM_WITH_EACH_INDEX_TYPE(M, float))                   \
    LOOM_EXPAND_IF(LOOM_HAS_DOUBLE)(LOOM_WITH_EACH_INDEX_TYPE(M, double))                 \
    LOOM_EXPAND_IF(LOOM_HAS_COMPLEX_FLOAT_)(LOOM_WITH_EACH_INDEX_TYPE(M, std::complex<float>)) \
    LOOM_EXPAND_IF(LOOM_HAS_COMPLEX_DOUBLE_)(LOOM_WITH_EACH_INDEX_TYPE(M, std::complex<double>))

/// The real value types only (kernels without a complex meaning, such as FusedMM's sigmoid).
#define LOOM_FOR_EACH_REAL_VALUE_AND_INDEX_TYPE(M)                          \
    LOOM_EXPAND_IF(LOOM_HAS_FLOAT)(LOOM_WITH_EACH_INDEX_TYPE(M, float))     \
    LOOM_EXPAND_IF(LOOM_HAS_DOUBLE)(LOOM_WITH_EACH_INDEX_TYPE(M, double))
