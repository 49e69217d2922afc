// Conversions between value precisions: float or double to the 16-bit storage types half and
// bfloat16 (loom/base/half.hpp) and back, for Dense matrices and for a Csr's values. Each runs
// on the source's executor and returns the result there. Narrowing rounds to nearest even
// (a double once, not through float's rounding), keeps NaN and Inf and overflows to Inf;
// widening is exact.
//
//     auto B16 = convert_precision<half>(B);            // Dense<float> -> Dense<half>
//     auto A16 = convert_precision<bfloat16>(A);        // Csr<double, I> -> Csr<bfloat16, I>
//     auto C = convert_precision<float>(C16);           // back to float, exactly
#pragma once

#include "loom/base/half.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

/// A packed copy of source (stride = cols) with every value converted to To. To and From:
/// one a 16-bit storage type, the other float or double (a built value type).
template <typename To, typename From>
LOOM_EXPORT Dense<To> convert_precision(const Dense<From>& source);

/// source's pattern with its values converted to To (same pairs as for Dense).
template <typename To, typename From, typename I>
LOOM_EXPORT Csr<To, I> convert_precision(const Csr<From, I>& source);

}  // namespace loom::matrix

LOOM_PUBLIC_END
