// The storage precision of the SpMM family (SpMM, SDDMM, FusedMM) on the command line and in
// its benchmark: `native` keeps the value type (--type float or double); fp16 and bf16 store
// A's values and the dense operands in 16 bits (loom::half, loom::bfloat16) and compute in
// float, the inputs rounded from the value type they were read or generated in.
#pragma once

#include <string>
#include <type_traits>

#include "loom/base/half.hpp"
#include "loom/base/names.hpp"

namespace loom::bench {

enum class StoragePrecision { native, fp16, bf16 };

LOOM_NAME_TABLE(StoragePrecision, storage_precision_names, "storage precision",
    {StoragePrecision::native, "native", "the value type of --type (fp32 or fp64)"},
    {StoragePrecision::fp16, "fp16", "IEEE half: 16-bit storage, float sums", {"half"}},
    {StoragePrecision::bf16, "bf16", "bfloat16: 16-bit storage, float sums", {"bfloat16"}},
);

inline StoragePrecision parse_storage_precision(const std::string& text)
{
    return names_of(StoragePrecision{}).parse(text, "loom::bench::parse_storage_precision");
}

/// f(std::type_identity<S>{}) with S the 16-bit type of a precision other than native.
template <typename F>
decltype(auto) with_storage_type(StoragePrecision precision, F&& f)
{
    if (precision == StoragePrecision::fp16) return f(std::type_identity<half>{});
    return f(std::type_identity<bfloat16>{});
}

}  // namespace loom::bench
