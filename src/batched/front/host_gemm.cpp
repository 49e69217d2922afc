// Run-time choice of the vectorized host GEMM kernel (host_gemm.hpp). Compiled for the
// baseline architecture: only the kernels' own translation unit uses AVX2 instructions.
#include "batched/front/host_gemm.hpp"

namespace loom::batched::host_kernels {
namespace {

bool cpu_has_avx2_fma()
{
#if LOOM_HOST_AVX2_GEMM && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

}  // namespace

template <typename T>
GemmKernel<T> vector_gemm_kernel()
{
    [[maybe_unused]] static const bool available = cpu_has_avx2_fma();
#if LOOM_HOST_AVX2_GEMM
    if (available)
        return [](const GemmBatch<T>& batch, std::ptrdiff_t first, std::ptrdiff_t last,
                  T* scratch) { gemm_avx2(batch, first, last, scratch); };
#endif
    return nullptr;
}

template GemmKernel<double> vector_gemm_kernel<double>();
template GemmKernel<float> vector_gemm_kernel<float>();

}  // namespace loom::batched::host_kernels
