// Type lists for typed tests, narrowed like the library by LOOM_VALUE_TYPES/LOOM_INDEX_TYPES.
#pragma once

#include <complex>
#include <tuple>

#include <gtest/gtest.h>

#include "loom/base/types.hpp"
#include "loom/config.hpp"

namespace loom::test {

template <typename... T>
struct concat;
template <typename... A>
struct concat<std::tuple<A...>> { using type = std::tuple<A...>; };
template <typename... A, typename... B, typename... Rest>
struct concat<std::tuple<A...>, std::tuple<B...>, Rest...> {
    using type = typename concat<std::tuple<A..., B...>, Rest...>::type;
};

template <bool on, typename T>
using if_t = std::conditional_t<on, std::tuple<T>, std::tuple<>>;

using value_tuple = typename concat<if_t<LOOM_HAS_FLOAT, float>, if_t<LOOM_HAS_DOUBLE, double>,
                                    if_t<LOOM_HAS_COMPLEX_FLOAT_, std::complex<float>>,
                                    if_t<LOOM_HAS_COMPLEX_DOUBLE_, std::complex<double>>>::type;
using index_tuple = typename concat<if_t<LOOM_HAS_INT32, int32>, if_t<LOOM_HAS_INT64, int64>>::type;

template <typename V, typename I>
struct VI {
    using value_type = V;
    using index_type = I;
};

template <typename Tuple>
struct to_testing_types;
template <typename... T>
struct to_testing_types<std::tuple<T...>> { using type = ::testing::Types<T...>; };

template <typename Values, typename Indices>
struct cross;
template <typename... V, typename... I>
struct cross<std::tuple<V...>, std::tuple<I...>> {
    template <typename One>
    using with = std::tuple<VI<One, I>...>;
    using type = typename concat<with<V>...>::type;
};

/// All instantiated value types.
using ValueTypes = typename to_testing_types<value_tuple>::type;
/// All instantiated (value, index) pairs, as VI<V, I>.
using ValueIndexTypes =
    typename to_testing_types<typename cross<value_tuple, index_tuple>::type>::type;

/// Tolerance for comparing results of different summation orders.
template <typename V>
double tolerance()
{
    return std::is_same_v<remove_complex_t<V>, float> ? 1e-4 : 1e-12;
}

}  // namespace loom::test
