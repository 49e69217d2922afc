// SIMD packs: Simd<T, W> holds one value of each of W matrices, so that a Serial routine called
// on views of packs factors W matrices at once, lane by lane. On the host the lane loops
// compile to vector instructions (W = 4 doubles for AVX2, 8 for AVX-512); on the GPU the
// compact layout they live in is read coalesced by consecutive threads (see lane_view).
//
// Routines that support packs (no data-dependent control flow): Gemm, Gemv, Trsm, Trmm, Trsv,
// Trtri, Getrf/Getrs/Gesv/InverseLU with Pivot::None, QR and ApplyQ, Potrf and Potrs, Syr,
// Axpy, Dot, Nrm2, Scale, AddRadial, Copy, Set. Pivoting routines (Getrf/Getrs/Gesv/InverseLU
// with Pivot::Partial, UTV, SolveUTV, Gbtrf, Gbtrs) need one pivot sequence per matrix: call
// them on scalar views (lane_view gives one per matrix of a compact array). Routines that
// report failures return one info per lane (Simd<int, W>); packs hold real values only.
#pragma once

#include <cstring>
#include <type_traits>

#include "loom/base/types.hpp"
#include "loom/batched/scalar.hpp"
#include "loom/batched/view.hpp"
#include "loom/launch/macros.hpp"

namespace loom::batched {

/// One boolean per lane: what comparisons of packs return.
template <int W>
struct SimdMask {
    bool lane[W];

    LOOM_HOST_DEVICE LOOM_INLINE bool operator[](int l) const { return lane[l]; }

    LOOM_HOST_DEVICE LOOM_INLINE friend SimdMask operator&&(const SimdMask& a, const SimdMask& b)
    {
        SimdMask r;
        for (int l = 0; l < W; ++l) r.lane[l] = a.lane[l] && b.lane[l];
        return r;
    }
    LOOM_HOST_DEVICE LOOM_INLINE friend SimdMask operator||(const SimdMask& a, const SimdMask& b)
    {
        SimdMask r;
        for (int l = 0; l < W; ++l) r.lane[l] = a.lane[l] || b.lane[l];
        return r;
    }
    LOOM_HOST_DEVICE LOOM_INLINE friend SimdMask operator!(const SimdMask& a)
    {
        SimdMask r;
        for (int l = 0; l < W; ++l) r.lane[l] = !a.lane[l];
        return r;
    }
};

/// W values of a real type T (W a power of two), with elementwise arithmetic. A scalar
/// converts implicitly to the pack of W copies, so `2.0 * x` and `x + 1` work.
template <typename T, int W>
struct alignas(sizeof(T) * W <= 64 ? sizeof(T) * W : 64) Simd {
    static_assert(std::is_arithmetic_v<T>, "loom::batched::Simd packs real values only");
    static_assert(W >= 1 && (W & (W - 1)) == 0, "loom::batched::Simd width must be a power of two");

    using value_type = T;
    static constexpr int width = W;

    T lane[W];

    Simd() = default;
    LOOM_HOST_DEVICE LOOM_INLINE Simd(const T& value)
    {
        for (int l = 0; l < W; ++l) lane[l] = value;
    }

    LOOM_HOST_DEVICE LOOM_INLINE T& operator[](int l) { return lane[l]; }
    LOOM_HOST_DEVICE LOOM_INLINE const T& operator[](int l) const { return lane[l]; }

#define LOOM_SIMD_BINARY(op)                                                                  \
    LOOM_HOST_DEVICE LOOM_INLINE friend Simd operator op(const Simd& a, const Simd& b)        \
    {                                                                                         \
        Simd r;                                                                               \
        for (int l = 0; l < W; ++l) r.lane[l] = a.lane[l] op b.lane[l];                       \
        return r;                                                                             \
    }                                                                                         \
    LOOM_HOST_DEVICE LOOM_INLINE Simd& operator op##=(const Simd& b)                          \
    {                                                                                         \
        for (int l = 0; l < W; ++l) lane[l] op## = b.lane[l];                                 \
        return *this;                                                                         \
    }
    LOOM_SIMD_BINARY(+)
    LOOM_SIMD_BINARY(-)
    LOOM_SIMD_BINARY(*)
    LOOM_SIMD_BINARY(/)
#undef LOOM_SIMD_BINARY

    LOOM_HOST_DEVICE LOOM_INLINE friend Simd operator-(const Simd& a)
    {
        Simd r;
        for (int l = 0; l < W; ++l) r.lane[l] = -a.lane[l];
        return r;
    }

#define LOOM_SIMD_COMPARE(op)                                                                 \
    LOOM_HOST_DEVICE LOOM_INLINE friend SimdMask<W> operator op(const Simd& a, const Simd& b) \
    {                                                                                         \
        SimdMask<W> r;                                                                        \
        for (int l = 0; l < W; ++l) r.lane[l] = a.lane[l] op b.lane[l];                       \
        return r;                                                                             \
    }
    LOOM_SIMD_COMPARE(==)
    LOOM_SIMD_COMPARE(!=)
    LOOM_SIMD_COMPARE(<)
    LOOM_SIMD_COMPARE(<=)
    LOOM_SIMD_COMPARE(>)
    LOOM_SIMD_COMPARE(>=)
#undef LOOM_SIMD_COMPARE
};

template <typename T, int W>
struct is_simd<Simd<T, W>> : std::true_type {};
template <typename T, int W>
struct info_type<Simd<T, W>> {
    using type = Simd<int, W>;
};

/// Per-lane first failure (see the scalar record_info).
template <int W>
LOOM_HOST_DEVICE LOOM_INLINE void record_info(Simd<int, W>& info, const SimdMask<W>& failed, int k)
{
    for (int l = 0; l < W; ++l) {
        if (failed.lane[l] && info.lane[l] == 0) info.lane[l] = k + 1;
    }
}

namespace math {

#define LOOM_SIMD_UNARY(name, expr)                                                  \
    template <typename T, int W>                                                     \
    LOOM_HOST_DEVICE LOOM_INLINE Simd<T, W> name(const Simd<T, W>& x)                \
    {                                                                                \
        Simd<T, W> r;                                                                \
        for (int l = 0; l < W; ++l) r.lane[l] = expr;                                \
        return r;                                                                    \
    }
LOOM_SIMD_UNARY(sqrt, math::sqrt(x.lane[l]))
LOOM_SIMD_UNARY(abs, math::abs(x.lane[l]))
LOOM_SIMD_UNARY(abs1, math::abs(x.lane[l]))
LOOM_SIMD_UNARY(abs2, x.lane[l] * x.lane[l])
LOOM_SIMD_UNARY(real, x.lane[l])
LOOM_SIMD_UNARY(conj, x.lane[l])
#undef LOOM_SIMD_UNARY

template <typename T, int W>
LOOM_HOST_DEVICE LOOM_INLINE Simd<T, W> imag(const Simd<T, W>&)
{
    return Simd<T, W>(T(0));
}

template <typename T, int W>
LOOM_HOST_DEVICE LOOM_INLINE Simd<T, W> hypot(const Simd<T, W>& x, const Simd<T, W>& y)
{
    Simd<T, W> r;
    for (int l = 0; l < W; ++l) r.lane[l] = math::hypot(x.lane[l], y.lane[l]);
    return r;
}
template <typename T, int W>
LOOM_HOST_DEVICE LOOM_INLINE Simd<T, W> copysign(const Simd<T, W>& magnitude,
                                                 const Simd<T, W>& sign)
{
    Simd<T, W> r;
    for (int l = 0; l < W; ++l) r.lane[l] = math::copysign(magnitude.lane[l], sign.lane[l]);
    return r;
}
template <int W>
LOOM_HOST_DEVICE LOOM_INLINE bool any(const SimdMask<W>& mask)
{
    bool result = false;
    for (int l = 0; l < W; ++l) result = result || mask.lane[l];
    return result;
}
template <int W>
LOOM_HOST_DEVICE LOOM_INLINE bool all(const SimdMask<W>& mask)
{
    bool result = true;
    for (int l = 0; l < W; ++l) result = result && mask.lane[l];
    return result;
}
template <typename T, int W>
LOOM_HOST_DEVICE LOOM_INLINE Simd<T, W> select(const SimdMask<W>& mask, const Simd<T, W>& if_true,
                                               const Simd<T, W>& if_false)
{
    Simd<T, W> r;
    for (int l = 0; l < W; ++l) r.lane[l] = mask.lane[l] ? if_true.lane[l] : if_false.lane[l];
    return r;
}

}  // namespace math

// ---------------------------------------------------------------- compact layout
//
// A batch of rows × cols matrices in the compact (interleaved) layout is an array of packs:
// pack p holds matrices p*W .. p*W+W-1, element (i, j) of its matrices stored together at
// packs[p * rows * cols + i * cols + j] (row-major between elements). The last pack is padded
// with copies of the last matrix, so that every lane computes on valid numbers.

/// Packs needed for batch matrices.
constexpr size_type pack_count(size_type batch, int width) { return (batch + width - 1) / width; }

/// View of pack p of a compact array (rows × cols packs, row-major).
template <typename P>
LOOM_HOST_DEVICE LOOM_INLINE View<P> pack_view(P* packs, size_type p, int rows, int cols)
{
    return {packs + p * rows * cols, rows, cols};
}

/// Matrix b of a compact array seen as a strided scalar view: consecutive b (consecutive GPU
/// threads) read consecutive addresses. Use it for routines that do not take packs.
template <typename T, int W>
LOOM_HOST_DEVICE LOOM_INLINE View<T> lane_view(Simd<T, W>* packs, size_type b, int rows, int cols)
{
    T* base = reinterpret_cast<T*>(packs + (b / W) * rows * cols) + b % W;
    return {base, rows, cols, static_cast<size_type>(cols) * W, W};
}
template <typename T, int W>
LOOM_HOST_DEVICE LOOM_INLINE View<const T> lane_view(const Simd<T, W>* packs, size_type b,
                                                     int rows, int cols)
{
    const T* base = reinterpret_cast<const T*>(packs + (b / W) * rows * cols) + b % W;
    return {base, rows, cols, static_cast<size_type>(cols) * W, W};
}

/// Plain batch -> compact layout. Matrix b of the plain batch has element (i, j) at
/// plain[b * batch_stride + i * row_stride + j]; packs must hold pack_count(batch, W) * rows *
/// cols packs.
template <typename T, int W>
void pack(const T* plain, size_type batch, int rows, int cols, size_type row_stride,
          size_type batch_stride, Simd<T, W>* packs)
{
    if (batch == 0) return;
    const size_type count = pack_count(batch, W);
    for (size_type p = 0; p < count; ++p) {
        Simd<T, W>* out = packs + p * rows * cols;
        for (int l = 0; l < W; ++l) {
            const size_type b = p * W + l < batch ? p * W + l : batch - 1;
            const T* in = plain + b * batch_stride;
            for (int i = 0; i < rows; ++i) {
                for (int j = 0; j < cols; ++j) out[i * cols + j].lane[l] = in[i * row_stride + j];
            }
        }
    }
}

/// Compact layout -> plain batch (the padding lanes of the last pack are dropped).
template <typename T, int W>
void unpack(const Simd<T, W>* packs, size_type batch, int rows, int cols, T* plain,
            size_type row_stride, size_type batch_stride)
{
    for (size_type b = 0; b < batch; ++b) {
        const Simd<T, W>* in = packs + (b / W) * rows * cols;
        const int l = static_cast<int>(b % W);
        T* out = plain + b * batch_stride;
        for (int i = 0; i < rows; ++i) {
            for (int j = 0; j < cols; ++j) out[i * row_stride + j] = in[i * cols + j].lane[l];
        }
    }
}

}  // namespace loom::batched
