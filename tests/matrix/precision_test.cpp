// The 16-bit storage types and the precision conversions: every bit pattern survives a round
// trip through float, rounding is to nearest even (ties, subnormals, overflow to Inf), NaN
// and Inf are kept, and convert_precision on every backend gives the bits of the scalar
// conversion (on CUDA the hardware's cvt instructions).
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/config.hpp"
#include "loom/matrix/precision.hpp"
#include "support/executors.hpp"

namespace {

using loom::bfloat16;
using loom::half;
using loom::size_type;
namespace matrix = loom::matrix;

constexpr float inf = std::numeric_limits<float>::infinity();

std::uint16_t bits(half h) { return h.bits; }
std::uint16_t bits(bfloat16 b) { return b.bits; }

bool is_nan_half(std::uint16_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0; }
bool is_nan_bfloat16(std::uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0; }

/// Every 16-bit pattern of T read as a float and back is the same pattern; a NaN stays a NaN.
template <typename T>
void expect_every_pattern_round_trips(bool (*is_nan)(std::uint16_t))
{
    for (std::uint32_t b = 0; b <= 0xffffu; ++b) {
        const auto h = T::from_bits(static_cast<std::uint16_t>(b));
        const float f = h;
        if (is_nan(h.bits)) {
            EXPECT_TRUE(std::isnan(f)) << b;
            EXPECT_TRUE(is_nan(T(f).bits)) << b;
        } else {
            ASSERT_EQ(T(f).bits, b) << "pattern " << b << " read as " << f;
        }
    }
}

TEST(Half, EveryPatternSurvivesARoundTripThroughFloat)
{
    expect_every_pattern_round_trips<half>(is_nan_half);
}

TEST(Half, RoundsToNearestEven)
{
    const float ulp_at_one = std::ldexp(1.0f, -10);
    EXPECT_EQ(float(half(1.0f + ulp_at_one / 2)), 1.0f);  // a tie goes to the even 1.0
    EXPECT_EQ(float(half(1.0f + 3 * ulp_at_one / 2)), 1.0f + 2 * ulp_at_one);  // tie, even up
    EXPECT_EQ(float(half(1.0f + ulp_at_one * 0.51f)), 1.0f + ulp_at_one);
    EXPECT_EQ(float(half(-1.0f - ulp_at_one * 0.49f)), -1.0f);
    EXPECT_EQ(float(half(65504.0f)), 65504.0f);
    EXPECT_EQ(float(half(65519.0f)), 65504.0f);  // below the midpoint to 2^16
    EXPECT_EQ(float(half(65520.0f)), inf);       // the midpoint: overflows
    EXPECT_EQ(float(half(-1e9f)), -inf);
    // Subnormals: multiples of 2^-24; 2^-25 is a tie between 0 and 2^-24.
    const float tiny = std::ldexp(1.0f, -24);
    EXPECT_EQ(half(tiny / 2).bits, 0u);
    EXPECT_EQ(half(-tiny / 2).bits, 0x8000u);
    EXPECT_EQ(float(half(tiny * 0.75f)), tiny);
    EXPECT_EQ(float(half(tiny * 1.5f)), 2 * tiny);  // tie: even
    EXPECT_EQ(float(half(tiny * 2.5f)), 2 * tiny);  // tie: even
    EXPECT_EQ(float(half(std::ldexp(1.0f, -14) * 0.99999f)), std::ldexp(1.0f, -14));
    EXPECT_EQ(float(half(inf)), inf);
    EXPECT_EQ(float(half(-inf)), -inf);
    EXPECT_TRUE(std::isnan(float(half(std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_TRUE(std::isnan(float(half(std::numeric_limits<float>::signaling_NaN()))));
}

TEST(Bfloat16, EveryPatternSurvivesARoundTripThroughFloat)
{
    expect_every_pattern_round_trips<bfloat16>(is_nan_bfloat16);
}

TEST(Bfloat16, RoundsToNearestEven)
{
    const float ulp_at_one = std::ldexp(1.0f, -7);
    EXPECT_EQ(float(bfloat16(1.0f + ulp_at_one / 2)), 1.0f);
    EXPECT_EQ(float(bfloat16(1.0f + 3 * ulp_at_one / 2)), 1.0f + 2 * ulp_at_one);
    EXPECT_EQ(float(bfloat16(1.0f + ulp_at_one * 0.51f)), 1.0f + ulp_at_one);
    const float largest = bfloat16::from_bits(0x7f7fu);
    EXPECT_EQ(float(bfloat16(largest)), largest);
    EXPECT_EQ(float(bfloat16(std::numeric_limits<float>::max())), inf);  // past the midpoint
    EXPECT_EQ(float(bfloat16(-inf)), -inf);
    EXPECT_TRUE(std::isnan(float(bfloat16(std::numeric_limits<float>::quiet_NaN()))));
    // A NaN whose payload sits in the dropped bits stays a NaN (not Inf).
    EXPECT_TRUE(std::isnan(float(bfloat16(loom::detail::float_of(0x7f800001u)))));
    const float subnormal = loom::detail::float_of(0x00010000u);
    EXPECT_EQ(float(bfloat16(subnormal)), subnormal);
}

/// Values that exercise every rounding path, host-converted bits as the expectation.
template <typename W>
std::vector<W> awkward_values()
{
    const float tiny = std::ldexp(1.0f, -24);
    std::vector<W> v = {W(0),
                        W(-0.0),
                        W(1),
                        W(1.0 + std::ldexp(1.0, -11)),
                        W(1.0 + 3 * std::ldexp(1.0, -11)),
                        W(-3.14159265358979),
                        W(65504),
                        W(65519),
                        W(65520),
                        W(1e6),
                        W(-1e30),
                        W(tiny / 2),
                        W(tiny * 1.5),
                        W(3e-39),
                        W(std::numeric_limits<W>::infinity()),
                        W(-std::numeric_limits<W>::infinity()),
                        std::numeric_limits<W>::quiet_NaN()};
    return v;
}

template <typename S, typename W>
void expect_backends_convert_like_the_scalars()
{
    const auto values = awkward_values<W>();
    const auto rows = static_cast<size_type>(values.size());
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto wide = matrix::Dense<W>::from_host(exec, {rows, 1}, values);
        const auto narrow = matrix::convert_precision<S>(wide).to_host();
        const auto back =
            matrix::convert_precision<W>(matrix::Dense<S>::from_host(exec, {rows, 1}, narrow))
                .to_host();
        for (size_type i = 0; i < rows; ++i) {
            const float once = static_cast<float>(values[i]);  // exact for these values
            const S expected(once);
            if (std::isnan(float(expected))) {
                // NaN stays NaN; its payload is the hardware's on CUDA (cvt gives 0x7fff).
                EXPECT_TRUE(std::isnan(float(narrow[i])));
                EXPECT_TRUE(std::isnan(back[i]));
                continue;
            }
            EXPECT_EQ(bits(narrow[i]), bits(expected)) << values[i];
            EXPECT_EQ(back[i], static_cast<W>(float(expected))) << values[i];
        }
    }
}

#if LOOM_HAS_DOUBLE
TEST(ConvertPrecision, DenseDoubleOnEveryBackend)
{
    expect_backends_convert_like_the_scalars<half, double>();
    expect_backends_convert_like_the_scalars<bfloat16, double>();
}

TEST(ConvertPrecision, DoubleIsRoundedOnceNotThroughFloat)
{
    // 1 + 2^-11 + 2^-40 lies just above the midpoint between 1 and 1 + 2^-10: through float it
    // would become the tie 1 + 2^-11 and then 1 (even); rounded once it is 1 + 2^-10.
    const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    const double above_bf_tie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
    for (const auto& exec : loom::test::all_executors()) {
        const auto d = matrix::Dense<double>::from_host(exec, {1, 2}, {above_tie, -above_tie});
        const auto h = matrix::convert_precision<half>(d).to_host();
        EXPECT_EQ(float(h[0]), 1.0f + std::ldexp(1.0f, -10)) << exec->name();
        EXPECT_EQ(float(h[1]), -1.0f - std::ldexp(1.0f, -10)) << exec->name();
        const auto db = matrix::Dense<double>::from_host(exec, {1, 1}, {above_bf_tie});
        const auto b = matrix::convert_precision<bfloat16>(db).to_host();
        EXPECT_EQ(float(b[0]), 1.0f + std::ldexp(1.0f, -7)) << exec->name();
    }
}

TEST(ConvertPrecision, CsrKeepsThePatternAndStridedDenseIsPacked)
{
    for (const auto& exec : loom::test::all_executors()) {
        const auto A = matrix::Csr<double, loom::int32>::from_host(exec, {3, 4}, {0, 2, 2, 3},
                                                                   {1, 3, 0}, {0.1, -2.5, 70000});
        const auto A16 = matrix::convert_precision<half>(A);
        EXPECT_EQ(A16.size(), A.size());
        EXPECT_EQ(A16.row_ptrs().to_host(), A.row_ptrs().to_host());
        EXPECT_EQ(A16.col_idxs().to_host(), A.col_idxs().to_host());
        const auto values = A16.values().to_host();
        EXPECT_EQ(bits(values[0]), bits(half(0.1f)));
        EXPECT_EQ(float(values[1]), -2.5f);
        EXPECT_EQ(float(values[2]), inf);
        const auto back = matrix::convert_precision<double>(A16);
        EXPECT_EQ(back.values().to_host()[1], -2.5);
        // A view with a stride: the result is packed, the skipped elements never read.
        auto wide = matrix::Dense<double>::from_host(exec, {2, 3}, {1, 2, 3, 4, 5, 6});
        const auto view = wide.columns(1, 2);
        const auto narrow = matrix::convert_precision<bfloat16>(view);
        EXPECT_EQ(narrow.stride(), 2);
        const auto got = narrow.to_host();
        ASSERT_EQ(got.size(), 4u);
        EXPECT_EQ(float(got[0]), 2.0f);
        EXPECT_EQ(float(got[3]), 6.0f);
    }
}
#endif

#if LOOM_HAS_FLOAT
TEST(ConvertPrecision, DenseFloatOnEveryBackend)
{
    expect_backends_convert_like_the_scalars<half, float>();
    expect_backends_convert_like_the_scalars<bfloat16, float>();
}
#endif

TEST(StorageDense, FillsAndCopiesBetweenStrides)
{
    for (const auto& exec : loom::test::all_executors()) {
        matrix::Dense<half> a(exec, {3, 2}, 5);
        a.fill(half(0.5f));
        auto view = a.columns(1, 1);
        view.fill(half(-2.0f));
        const auto packed = matrix::Dense<half>(exec, {3, 2});
        matrix::Dense<half> b = packed;
        b = a;  // same size, other stride: the strided copy
        const auto got = b.to_host();
        for (size_type i = 0; i < 3; ++i) {
            EXPECT_EQ(float(got[2 * i]), 0.5f);
            EXPECT_EQ(float(got[2 * i + 1]), -2.0f);
        }
        // No SpMV or GEMM takes 16-bit storage: applying one is NotSupported.
        matrix::Dense<half> square(exec, {2, 2});
        square.fill(half(1.0f));
        matrix::Dense<half> x(exec, {2, 1});
        EXPECT_THROW(square.apply(square.columns(0, 1), x), loom::NotSupported);
    }
}

}  // namespace
