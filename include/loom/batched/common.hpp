// What every batched routine header needs: views, value-type arithmetic, packs, mode tags and
// the worker layouts (par.hpp), plus small helpers for reading op(A).
#pragma once

#include <cassert>
#include <type_traits>

#include "loom/batched/par.hpp"
#include "loom/batched/scalar.hpp"
#include "loom/batched/simd.hpp"
#include "loom/batched/tags.hpp"
#include "loom/batched/view.hpp"
#include "loom/launch/macros.hpp"

/// The size relations a routine relies on, checked in debug builds (without NDEBUG; on the GPU
/// a failed check traps the kernel). Release builds trust the caller: the front-level calls
/// check sizes and throw before launching.
#define LOOM_BATCHED_ASSERT(condition) assert(condition)

namespace loom::batched {

template <typename V>
struct is_view : std::false_type {};
template <typename T>
struct is_view<View<T>> : std::true_type {};
template <typename V>
struct is_vector_view : std::false_type {};
template <typename T>
struct is_vector_view<VectorView<T>> : std::true_type {};

/// A matrix view (View<T>, T possibly const).
template <typename V>
concept MatrixViewType = is_view<std::remove_cvref_t<V>>::value;
/// A vector view (VectorView<T>, T possibly const).
template <typename V>
concept VectorViewType = is_vector_view<std::remove_cvref_t<V>>::value;
/// A view whose elements can be written.
template <typename V>
concept WritableView = (MatrixViewType<V> || VectorViewType<V>) &&
                       !std::is_const_v<std::remove_reference_t<decltype(*std::declval<V>().data())>>;

namespace detail {

template <typename V>
using value_of = typename std::remove_cvref_t<V>::value_type;

/// op(A) as a view: A itself or A transposed (conjugation is applied on load).
template <typename TransT, typename V>
LOOM_HOST_DEVICE LOOM_INLINE V op_view(const V& A)
{
    if constexpr (transposes_v<TransT>) {
        return A.transposed();
    } else {
        return A;
    }
}

/// x, or conj(x) when Conj.
template <bool Conj, typename T>
LOOM_HOST_DEVICE LOOM_INLINE T maybe_conj(const T& x)
{
    if constexpr (Conj) {
        return math::conj(x);
    } else {
        return x;
    }
}

template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE void swap_values(T& a, T& b)
{
    const T t = a;
    a = b;
    b = t;
}

LOOM_HOST_DEVICE LOOM_INLINE constexpr int min_int(int a, int b) { return a < b ? a : b; }
LOOM_HOST_DEVICE LOOM_INLINE constexpr int max_int(int a, int b) { return a > b ? a : b; }

/// Whether a scalar argument (alpha, beta) is zero, or one, in every lane.
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE bool all_zero(const T& x)
{
    return math::all(math::is_zero(x));
}
template <typename T>
LOOM_HOST_DEVICE LOOM_INLINE bool all_one(const T& x)
{
    return math::all(math::is_zero(x - T(1)));
}

/// A right-hand side as a matrix: a vector becomes its one column.
template <typename B>
LOOM_HOST_DEVICE LOOM_INLINE auto as_column_matrix(const B& b)
{
    if constexpr (VectorViewType<B>) {
        return b.as_column();
    } else {
        return b;
    }
}

}  // namespace detail

/// The two entry points of a routine: invoke(args...) under Mode::Serial and
/// invoke(member, args...) under a team mode, both running Routine::run(par, args...) on the
/// workers of the mode. A routine derives from Invoke<ModeT, itself> and writes its body once.
template <typename ModeT, typename Routine>
struct Invoke {
    static_assert(is_mode_v<ModeT>);
    template <typename... Args>
        requires std::is_same_v<ModeT, Mode::Serial>
    LOOM_HOST_DEVICE static auto invoke(const Args&... args)
    {
        return Routine::run(detail::SerialPar{}, args...);
    }
    template <typename Member, typename... Args>
        requires is_team_mode_v<ModeT>
    LOOM_HOST_DEVICE static auto invoke(const Member& member, const Args&... args)
    {
        return Routine::run(detail::make_par<ModeT>(member), args...);
    }
};

}  // namespace loom::batched
