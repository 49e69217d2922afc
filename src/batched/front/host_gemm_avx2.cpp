// The AVX2+FMA batched GEMM kernels (host_gemm.hpp). This is the one translation unit built
// with -mavx2 -mfma: it includes no Loom or standard-library header with inline functions (an
// inline function compiled here could be the copy the linker keeps for the whole library, and
// run on a CPU without AVX2), and everything but the two entry points has internal linkage.
//
// One matrix at a time: a block of R rows by NV vectors of C stays in registers while k runs;
// per k, NV vectors of a row of op(B) are loaded and each of the R entries of op(A) is
// broadcast (R * NV fused multiply-adds for NV + R loads). The last vector of a row is a
// masked load and a partial store where n is not a multiple of the vector width.
#if !defined(__AVX2__) || !defined(__FMA__)
#error "host_gemm_avx2.cpp must be compiled with -mavx2 -mfma"
#endif

#include <immintrin.h>

#include <cstddef>

#include "batched/front/host_gemm.hpp"

namespace loom::batched::host_kernels {
namespace {

using std::ptrdiff_t;

struct F64 {
    using T = double;
    using V = __m256d;
    static constexpr int lanes = 4;
    static V zero() { return _mm256_setzero_pd(); }
    static V splat(T x) { return _mm256_set1_pd(x); }
    static V load(const T* p) { return _mm256_loadu_pd(p); }
    static V load(const T* p, __m256i mask) { return _mm256_maskload_pd(p, mask); }
    static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
    static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
    static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
    /// Lanes [0, count) of a vector, count in 1..3.
    static void store(T* p, V v, int count)
    {
        const __m128d low = _mm256_castpd256_pd128(v);
        if (count == 1) return _mm_store_sd(p, low);
        _mm_storeu_pd(p, low);
        if (count == 3) _mm_store_sd(p + 2, _mm256_extractf128_pd(v, 1));
    }
    static __m256i mask(int count)
    {
        alignas(32) static const long long table[8] = {-1, -1, -1, -1, 0, 0, 0, 0};
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 4 - count));
    }
};

struct F32 {
    using T = float;
    using V = __m256;
    static constexpr int lanes = 8;
    static V zero() { return _mm256_setzero_ps(); }
    static V splat(T x) { return _mm256_set1_ps(x); }
    static V load(const T* p) { return _mm256_loadu_ps(p); }
    static V load(const T* p, __m256i mask) { return _mm256_maskload_ps(p, mask); }
    static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
    static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
    static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
    /// Lanes [0, count) of a vector, count in 1..7.
    static void store(T* p, V v, int count)
    {
        __m128 part = _mm256_castps256_ps128(v);
        if (count >= 4) {
            _mm_storeu_ps(p, part);
            part = _mm256_extractf128_ps(v, 1);
            p += 4;
            count -= 4;
        }
        if (count >= 2) {
            _mm_store_sd(reinterpret_cast<double*>(p), _mm_castps_pd(part));
            part = _mm_movehl_ps(part, part);
            p += 2;
            count -= 2;
        }
        if (count == 1) _mm_store_ss(p, part);
    }
    static __m256i mask(int count)
    {
        alignas(32) static const int table[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                  0,  0,  0,  0,  0,  0,  0,  0};
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(table + 8 - count));
    }
};

/// One matrix's operands, op(B) with unit column stride.
template <typename T>
struct Matrix {
    const T* a;
    ptrdiff_t a_row, a_col;
    const T* b;
    ptrdiff_t b_row;
    T* c;
    ptrdiff_t c_row;
    int k;
    T alpha, beta;
};

/// C(i0 .. i0+R-1, j0 .. j0+NV*lanes-1) of one matrix, the last vector holding `tail` lanes
/// when Tail (its mask in `mask`).
template <typename S, int R, int NV, bool Tail>
inline void block(const Matrix<typename S::T>& x, int i0, int j0, __m256i mask, int tail)
{
    using V = typename S::V;
    V acc[R][NV];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) acc[r][v] = S::zero();
    }
    const auto* a = x.a + i0 * x.a_row;
    const auto* b = x.b + j0;
    for (int kk = 0; kk < x.k; ++kk) {
        V bv[NV];
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
            const auto* p = b + kk * x.b_row + v * S::lanes;
            bv[v] = Tail && v == NV - 1 ? S::load(p, mask) : S::load(p);
            // Keeps the row of op(B) in registers: folded into each multiply-add, it would be
            // loaded R times, and the loads, not the multiply-adds, would set the pace.
            __asm__("" : "+x"(bv[v]));
        }
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
            const V av = S::splat(a[r * x.a_row + kk * x.a_col]);
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) acc[r][v] = S::fma(av, bv[v], acc[r][v]);
        }
    }
    const V alpha = S::splat(x.alpha);
    const V beta = S::splat(x.beta);
    const bool read_c = x.beta != 0;  // beta == 0: C may hold NaN and is not read (BLAS)
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
            auto* p = x.c + (i0 + r) * x.c_row + j0 + v * S::lanes;
            const bool partial = Tail && v == NV - 1;
            V result = S::mul(alpha, acc[r][v]);
            if (read_c) result = S::fma(beta, partial ? S::load(p, mask) : S::load(p), result);
            if (partial) {
                S::store(p, result, tail);
            } else {
                S::store(p, result);
            }
        }
    }
}

/// Rows per block for NV vectors: R * NV accumulators (about 12, to cover the multiply-add
/// latency on two pipes), NV vectors of op(B) and a broadcast within the 16 vector registers.
template <int NV>
constexpr int rows_per_block = NV == 1 ? 4 : NV == 2 ? 6 : 3;

/// Vectors per column block: two, and three for the last one where two and one would
/// remain (n = 11: 12 lanes in one block rather than 8 and 4 in two).
constexpr int max_vectors = 3;

/// Rows [i, m) of one column block, fewer than R of them: one block of exactly that many.
template <typename S, int NV, bool Tail, int R>
void last_rows(const Matrix<typename S::T>& x, int rows, int i, int j0, __m256i mask, int tail)
{
    if constexpr (R > 0) {
        if (rows == R) return block<S, R, NV, Tail>(x, i, j0, mask, tail);
        last_rows<S, NV, Tail, R - 1>(x, rows, i, j0, mask, tail);
    }
}

/// Every row of one column block.
template <typename S, int NV, bool Tail>
void column_block(const Matrix<typename S::T>& x, int m, int j0, __m256i mask, int tail)
{
    constexpr int R = rows_per_block<NV>;
    int i = 0;
    for (; i + R <= m; i += R) block<S, R, NV, Tail>(x, i, j0, mask, tail);
    last_rows<S, NV, Tail, R - 1>(x, m - i, i, j0, mask, tail);
}

/// The columns of a row, cut into blocks of two vectors: full blocks first, then one
/// block of `last_vectors` vectors whose last one holds `tail` lanes (0: full).
struct ColumnPlan {
    int full_blocks;
    int last_vectors;
    int tail;
};

template <typename S>
ColumnPlan plan_columns(int n)
{
    constexpr int block_columns = 2 * S::lanes;
    int full = n / block_columns;
    int rest = n % block_columns;
    if (full > 0 && rest > 0 && rest <= S::lanes) {
        --full;
        rest += block_columns;
    }
    return {full, (rest + S::lanes - 1) / S::lanes, rest % S::lanes};
}

/// The last column block, of NV vectors (NV counting down from max_vectors).
template <typename S, int NV>
void last_columns(const Matrix<typename S::T>& x, int m, int j0, const ColumnPlan& plan,
                  __m256i mask)
{
    if constexpr (NV > 0) {
        if (plan.last_vectors != NV) return last_columns<S, NV - 1>(x, m, j0, plan, mask);
        if (plan.tail == 0) return column_block<S, NV, false>(x, m, j0, mask, 0);
        return column_block<S, NV, true>(x, m, j0, mask, plan.tail);
    }
}

template <typename S>
void one_matrix(const Matrix<typename S::T>& x, int m, const ColumnPlan& plan, __m256i mask)
{
    constexpr int block_columns = 2 * S::lanes;
    for (int jb = 0; jb < plan.full_blocks; ++jb) {
        column_block<S, 2, false>(x, m, jb * block_columns, mask, 0);
    }
    last_columns<S, max_vectors>(x, m, plan.full_blocks * block_columns, plan, mask);
}

template <typename S>
void run(const GemmBatch<typename S::T>& g, ptrdiff_t first, ptrdiff_t last, typename S::T* scratch)
{
    using T = typename S::T;
    const ColumnPlan plan = plan_columns<S>(g.n);
    const __m256i mask = S::mask(plan.tail == 0 ? S::lanes : plan.tail);
    const bool copy_b = g.b_col != 1;
    for (ptrdiff_t b = first; b < last; ++b) {
        const T* op_b = g.b + b * g.b_batch;
        ptrdiff_t b_row = g.b_row;
        if (copy_b) {
            // A transposed B: its rows are strided; copy op(B) row-major once per matrix.
            for (int kk = 0; kk < g.k; ++kk) {
                for (int j = 0; j < g.n; ++j)
                    scratch[kk * g.n + j] = op_b[kk * g.b_row + j * g.b_col];
            }
            op_b = scratch;
            b_row = g.n;
        }
        const Matrix<T> x{g.a + b * g.a_batch, g.a_row, g.a_col, op_b,    b_row,
                          g.c + b * g.c_batch, g.c_row, g.k,     g.alpha, g.beta};
        one_matrix<S>(x, g.m, plan, mask);
    }
}

}  // namespace

void gemm_avx2(const GemmBatch<double>& batch, ptrdiff_t first, ptrdiff_t last, double* scratch)
{
    run<F64>(batch, first, last, scratch);
}

void gemm_avx2(const GemmBatch<float>& batch, ptrdiff_t first, ptrdiff_t last, float* scratch)
{
    run<F32>(batch, first, last, scratch);
}

}  // namespace loom::batched::host_kernels
