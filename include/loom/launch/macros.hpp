// Portability macros for code that runs on the host and inside CUDA kernels alike (the team
// launcher, the batched routines, user kernels, and every header shared by a host backend and
// a .cu file). The one copy of these macros in Loom: define no others.
#pragma once

#if defined(__CUDACC__)
/// Callable from host and device code when compiled by nvcc; plain C++ otherwise.
#define LOOM_HOST_DEVICE __host__ __device__
#define LOOM_DEVICE __device__
#else
#define LOOM_HOST_DEVICE
#define LOOM_DEVICE
#endif

/// For small helpers on hot paths (element access, SIMD lane arithmetic), which must vanish.
#if defined(__CUDACC__)
#define LOOM_INLINE __forceinline__
#elif defined(__GNUC__)
#define LOOM_INLINE inline __attribute__((always_inline))
#else
#define LOOM_INLINE inline
#endif

#define LOOM_PRAGMA_(x) _Pragma(#x)

/// Asks the host compiler to vectorize the next loop (its iterations are independent).
/// Honoured with -fopenmp or -fopenmp-simd; GCC and Clang take a hint of their own otherwise.
#if defined(__CUDA_ARCH__)
#define LOOM_PRAGMA_SIMD
#elif defined(_OPENMP)
#define LOOM_PRAGMA_SIMD LOOM_PRAGMA_(omp simd)
#elif defined(__clang__)
#define LOOM_PRAGMA_SIMD LOOM_PRAGMA_(clang loop vectorize(enable))
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define LOOM_PRAGMA_SIMD LOOM_PRAGMA_(GCC ivdep)
#else
#define LOOM_PRAGMA_SIMD
#endif

/// Unrolls the next loop where the compiler can (trip counts known at compile time).
#if defined(__CUDACC__) || defined(__clang__)
#define LOOM_PRAGMA_UNROLL LOOM_PRAGMA_(unroll)
#elif defined(__GNUC__)
#define LOOM_PRAGMA_UNROLL LOOM_PRAGMA_(GCC unroll 16)
#else
#define LOOM_PRAGMA_UNROLL
#endif
