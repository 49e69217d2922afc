// The work on one block, shared by the reference and OpenMP backends (which differ only in
// how they loop over blocks): gather, Gauss-Jordan inversion, 1-norms, re-storing in a
// narrower precision, and the block times a slice of a multi-vector.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "base/kernel_scalar.hpp"
#include "loom/base/types.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "sparse/block_diagonal/storage.hpp"

namespace loom::sparse::host_blocks {

/// A dense block of at most 32 x 32, row-major with leading dimension `size`.
template <typename V>
struct DenseBlock {
    size_type size = 0;
    V values[max_supported_block_size * max_supported_block_size];

    V& operator()(size_type i, size_type j) noexcept { return values[i * size + j]; }
    const V& operator()(size_type i, size_type j) const noexcept { return values[i * size + j]; }
};

/// |re| + |im|: the pivot magnitude (as LAPACK's i?amax), cheap and the same on every backend
/// (base/kernel_scalar.hpp).
using loom::detail::abs1;

/// Rows [begin, begin + size) of A restricted to the same columns; duplicates summed.
template <typename V, typename I>
void gather(const I* row_ptrs, const I* cols, const V* values, size_type begin, size_type size,
            DenseBlock<V>& block)
{
    block.size = size;
    std::fill_n(block.values, size * size, V{0});
    for (size_type i = 0; i < size; ++i) {
        for (auto k = row_ptrs[begin + i]; k < row_ptrs[begin + i + 1]; ++k) {
            const size_type col = static_cast<size_type>(cols[k]) - begin;
            if (col >= 0 && col < size) block(i, col) += values[k];
        }
    }
}

/// max_j sum_i |block(i, j)|; NaN when an entry is NaN (as on CUDA), so that a NaN block
/// has a condition number that is not finite.
template <typename V>
remove_complex_t<V> norm1(const DenseBlock<V>& block)
{
    remove_complex_t<V> norm = 0;
    for (size_type j = 0; j < block.size; ++j) {
        remove_complex_t<V> sum = 0;
        for (size_type i = 0; i < block.size; ++i) sum += std::abs(block(i, j));
        if (sum > norm || std::isnan(sum)) norm = sum;
        if (std::isnan(norm)) break;
    }
    return norm;
}

/// Inverts the block in place by Gauss-Jordan elimination with partial pivoting (the first
/// row of largest abs1 in the pivot column). Returns -1, or the elimination step whose pivot
/// column had no nonzero (or only NaN) candidates, leaving the block partly eliminated.
template <typename V>
int invert_in_place(DenseBlock<V>& a)
{
    const size_type n = a.size;
    size_type pivot_rows[max_supported_block_size];
    for (size_type k = 0; k < n; ++k) {
        remove_complex_t<V> best = -1;
        size_type p = k;
        for (size_type i = k; i < n; ++i) {
            const auto magnitude = abs1(a(i, k));
            if (magnitude > best) {
                best = magnitude;
                p = i;
            }
        }
        if (!(best > 0)) return static_cast<int>(k);
        pivot_rows[k] = p;
        if (p != k) {
            for (size_type j = 0; j < n; ++j) std::swap(a(k, j), a(p, j));
        }
        const V inverse_pivot = V{1} / a(k, k);
        a(k, k) = V{1};
        for (size_type j = 0; j < n; ++j) a(k, j) *= inverse_pivot;
        for (size_type i = 0; i < n; ++i) {
            if (i == k) continue;
            const V factor = a(i, k);
            a(i, k) = V{0};
            for (size_type j = 0; j < n; ++j) a(i, j) -= factor * a(k, j);
        }
    }
    // The row swaps made this the inverse of P A: undo them on the columns, last first.
    for (size_type k = n - 1; k >= 0; --k) {
        if (pivot_rows[k] != k) {
            for (size_type i = 0; i < n; ++i) std::swap(a(i, k), a(i, pivot_rows[k]));
        }
    }
    return -1;
}

/// The block column-major at dest in the working precision.
template <typename V>
void store_working(const DenseBlock<V>& block, unsigned char* dest)
{
    V* out = reinterpret_cast<V*>(dest);
    for (size_type j = 0; j < block.size; ++j) {
        for (size_type i = 0; i < block.size; ++i) out[j * block.size + i] = block(i, j);
    }
}

/// Copies `count` reals from the working precision into format S, each times inv_scale.
template <typename S, typename R>
void store_scaled(const R* source, size_type count, R inv_scale, S* dest)
{
    for (size_type e = 0; e < count; ++e) {
        dest[e] = block_storage::store_real<S>(source[e] * inv_scale);
    }
}

/// Re-stores a block of `size` rows held in the working precision at source into precision
/// p at dest; returns its scale (a power of two, 1 for the working precision).
template <typename V>
remove_complex_t<V> compress(const unsigned char* source, size_type size, StoragePrecision p,
                             unsigned char* dest)
{
    using R = remove_complex_t<V>;
    const size_type count = size * size * (is_complex_v<V> ? 2 : 1);
    const R* reals = reinterpret_cast<const R*>(source);
    if (p == working_precision<V>()) {
        std::memcpy(dest, source, static_cast<std::size_t>(count) * sizeof(R));
        return R{1};
    }
    R largest = 0;
    for (size_type e = 0; e < count; ++e) largest = std::max(largest, std::abs(reals[e]));
    int exponent = 0;
    std::frexp(largest, &exponent);  // largest = m * 2^exponent, m in [0.5, 1)
    const R inv_scale = std::ldexp(R{1}, -exponent);
    if (p == StoragePrecision::float32) {
        store_scaled(reals, count, inv_scale, reinterpret_cast<float*>(dest));
    } else {
        store_scaled(reals, count, inv_scale, reinterpret_cast<std::uint16_t*>(dest));
    }
    return std::ldexp(R{1}, exponent);
}

/// Entry e of a block stored as S (complex: two consecutive reals).
template <typename V, typename S>
V load_entry(const S* block, size_type e)
{
    using R = remove_complex_t<V>;
    if constexpr (is_complex_v<V>) {
        return V(block_storage::load_real<R>(block[2 * e]),
                 block_storage::load_real<R>(block[2 * e + 1]));
    } else {
        return block_storage::load_real<R>(block[e]);
    }
}

/// How a block enters apply: op(D^-1) = op of scale * stored entries.
struct ApplyMode {
    bool transposes;
    bool conjugates;
};

/// x(i, c) = alpha * (op(block) b)(i, c) + beta * x(i, c) for the block's rows, b and x
/// pointing at the block's first row.
template <typename V, typename S>
void apply_stored(ApplyMode mode, V alpha, const S* stored, remove_complex_t<V> scale,
                  size_type size, const V* b, size_type b_stride, V beta, V* x,
                  size_type x_stride, size_type cols)
{
    V block[max_supported_block_size * max_supported_block_size];
    for (size_type e = 0; e < size * size; ++e) {
        V value = load_entry<V>(stored, e);
        block[e] = mode.conjugates ? loom::conj(value) : value;
    }
    const V factor = alpha * scale;
    V result[max_supported_block_size];
    for (size_type c = 0; c < cols; ++c) {
        std::fill_n(result, size, V{0});
        for (size_type j = 0; j < size; ++j) {
            const V bj = b[j * b_stride + c];
            if (mode.transposes) {
                // op(D^-1)(i, j) = D^-1(j, i), stored at i * size + j.
                for (size_type i = 0; i < size; ++i) result[i] += block[i * size + j] * bj;
            } else {
                for (size_type i = 0; i < size; ++i) result[i] += block[j * size + i] * bj;
            }
        }
        for (size_type i = 0; i < size; ++i) {
            V& out = x[i * x_stride + c];
            out = beta == V{0} ? factor * result[i] : factor * result[i] + beta * out;
        }
    }
}

/// The same for block k of a BlockDiagonalInverse whose arrays are on the host.
template <typename V, typename I>
void apply_block(ApplyMode mode, V alpha, const BlockDiagonalInverse<V, I>& inverse,
                 size_type k, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    const size_type begin = inverse.block_ptrs().data()[k];
    const size_type size = inverse.block_ptrs().data()[k + 1] - begin;
    const unsigned char* stored = inverse.storage().data() + inverse.offsets().data()[k];
    const auto scale = inverse.scales().data()[k];
    const V* bk = b.data() + begin * b.stride();
    V* xk = x.data() + begin * x.stride();
    switch (static_cast<StoragePrecision>(inverse.precisions().data()[k])) {
    case StoragePrecision::float64:
        apply_stored(mode, alpha, reinterpret_cast<const double*>(stored), scale, size, bk,
                     b.stride(), beta, xk, x.stride(), b.cols());
        break;
    case StoragePrecision::float32:
        apply_stored(mode, alpha, reinterpret_cast<const float*>(stored), scale, size, bk,
                     b.stride(), beta, xk, x.stride(), b.cols());
        break;
    case StoragePrecision::float16:
        apply_stored(mode, alpha, reinterpret_cast<const std::uint16_t*>(stored), scale, size,
                     bk, b.stride(), beta, xk, x.stride(), b.cols());
        break;
    }
}

/// Inverts block k of A (host arrays) into storage at offsets[k]; returns its failure code
/// or no_failure, writing its condition number.
template <typename V, typename I>
std::int64_t invert_block(const matrix::Csr<V, I>& A, const I* block_ptrs, size_type k,
                          const std::int64_t* offsets, unsigned char* storage,
                          remove_complex_t<V>* conditions)
{
    const size_type begin = block_ptrs[k];
    DenseBlock<V> block;
    gather(A.row_ptrs().data(), A.col_idxs().data(), A.values().data(), begin,
           block_ptrs[k + 1] - begin, block);
    const auto norm = norm1(block);
    const int failed_step = invert_in_place(block);
    if (failed_step >= 0) return k * block_storage::failure_radix + failed_step;
    const auto condition = norm * norm1(block);
    conditions[k] = condition;
    if (!std::isfinite(condition)) {
        return k * block_storage::failure_radix + block_storage::non_finite_step;
    }
    store_working(block, storage + offsets[k]);
    return block_storage::no_failure;
}

/// 1 / A(row, row), or zero when the diagonal entry is zero, missing or not finite (then
/// `ok` is false).
template <typename V, typename I>
V inverse_diagonal_entry(const I* row_ptrs, const I* cols, const V* values, size_type row,
                         bool& ok)
{
    V diagonal{0};
    for (auto k = row_ptrs[row]; k < row_ptrs[row + 1]; ++k) {
        if (cols[k] == row) diagonal += values[k];
    }
    const auto magnitude = abs1(diagonal);
    ok = magnitude > 0 && std::isfinite(magnitude);
    return ok ? V{1} / diagonal : V{0};
}

/// x(row, c) = alpha * op(d) * b(row, c) + beta * x(row, c) for one row.
template <typename V>
void scale_row(bool conjugates, V alpha, V d, const V* b, V beta, V* x, size_type cols)
{
    const V factor = alpha * (conjugates ? loom::conj(d) : d);
    for (size_type c = 0; c < cols; ++c) {
        x[c] = beta == V{0} ? factor * b[c] : factor * b[c] + beta * x[c];
    }
}

inline ApplyMode apply_mode(Mode mode)
{
    return {mode == Mode::transpose || mode == Mode::conj_transpose,
            mode == Mode::conjugate || mode == Mode::conj_transpose};
}

}  // namespace loom::sparse::host_blocks
