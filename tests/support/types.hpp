// Type lists for typed tests, narrowed like the library by LOOM_VALUE_TYPES/LOOM_INDEX_TYPES.
#pragma once

#include <complex>
#include <tuple>
#include <type_traits>
#include <utility>

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

/// Each value type with one index type, taken in turn, so that every index type is met:
/// (float, int32), (double, int64), (complex<float>, int32), (complex<double>, int64).
template <typename Values, typename Indices, typename Seq>
struct alternate;
template <typename... V, typename Indices, std::size_t... k>
struct alternate<std::tuple<V...>, Indices, std::index_sequence<k...>> {
    using type =
        std::tuple<VI<V, std::tuple_element_t<k % std::tuple_size_v<Indices>, Indices>>...>;
};

template <typename T, typename Tuple>
struct contains;
template <typename T, typename... U>
struct contains<T, std::tuple<U...>> : std::bool_constant<(std::is_same_v<T, U> || ...)> {};

/// The pairs the typed tests run on. Kernels are written once for all index types, so a bug
/// tied to a type shows with that type: each value type once, each index type at least once,
/// plus (double, int32), the pair most users run. The full cross product of the build
/// (8 pairs where 5 say as much, and CI's time is bounded) with -DLOOM_TEST_ALL_TYPE_PAIRS=ON.
#if LOOM_TEST_ALL_TYPE_PAIRS
using tested_pairs = typename cross<value_tuple, index_tuple>::type;
#else
using alternated_pairs =
    typename alternate<value_tuple, index_tuple,
                       std::make_index_sequence<std::tuple_size_v<value_tuple>>>::type;
using common_pair = if_t<LOOM_HAS_DOUBLE && LOOM_HAS_INT32 &&
                             !contains<VI<double, int32>, alternated_pairs>::value,
                         VI<double, int32>>;
using tested_pairs = typename concat<common_pair, alternated_pairs>::type;
#endif

/// All instantiated value types.
using ValueTypes = typename to_testing_types<value_tuple>::type;
/// The (value, index) pairs tested, as VI<V, I>: `tested_pairs` above.
using ValueIndexTypes = typename to_testing_types<tested_pairs>::type;

/// Tolerance for comparing results of different summation orders.
template <typename V>
double tolerance()
{
    return std::is_same_v<remove_complex_t<V>, float> ? 1e-4 : 1e-12;
}

}  // namespace loom::test
