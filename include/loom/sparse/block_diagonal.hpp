// Block-diagonal inverses of sparse matrices, the kernels behind (block) Jacobi:
//
//     auto block_ptrs = sparse::find_blocks(A, 32);            // blocks from the structure
//     auto Dinv = sparse::invert_blocks(A, block_ptrs, {.adaptive_precision = true});
//     sparse::apply_block_inverse(sparse::Mode::none, 1.0, Dinv, b, 0.0, x);   // x = D^-1 b
//
// D is the block-diagonal part of a square A: block k covers rows and columns
// block_ptrs[k] .. block_ptrs[k+1]-1, at most 32 of them. Each block of D^-1 is stored dense
// (column-major) in a precision of its own: the working precision of V, or — with adaptive
// precision — the lowest of float32 / float16 that its condition number allows, scaled by a
// power of two so that its entries never leave the range of the narrow format. Computation
// is always done in V's precision; the narrow storage only cuts the bytes apply() reads.
//
// The scalar case (1 x 1 blocks, plain Jacobi) has its own lighter pair: invert_diagonal()
// and apply_diagonal() on an Array<V> of inverted diagonal entries.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// The largest block the kernels handle (one CUDA warp per block).
inline constexpr size_type max_supported_block_size = 32;

/// The format one inverted block is stored in. float64 only for double-based V.
enum class StoragePrecision : std::uint8_t { float64 = 0, float32 = 1, float16 = 2 };

LOOM_NAME_TABLE(StoragePrecision, storage_precision_names, "storage precision",
    {StoragePrecision::float64, "float64", "IEEE double"},
    {StoragePrecision::float32, "float32", "IEEE single"},
    {StoragePrecision::float16, "float16", "IEEE half"},
);


/// Unit roundoff of a storage format: 2^-53, 2^-24, 2^-11.
double unit_roundoff(StoragePrecision precision);

/// The working precision of V (float64 for double and complex<double>, float32 otherwise).
template <typename V>
constexpr StoragePrecision working_precision()
{
    return std::is_same_v<remove_complex_t<V>, double> ? StoragePrecision::float64
                                                       : StoragePrecision::float32;
}

/// The lowest precision, not above V's working precision, whose unit roundoff u keeps
/// condition * u <= accuracy: then the rounded inverse M~ of a block D satisfies
/// ||M~ D - I||_1 <= accuracy (to first order). A condition number that is not finite keeps
/// the working precision.
template <typename V>
LOOM_EXPORT StoragePrecision choose_storage_precision(double condition, double accuracy);

/// Block boundaries of a square A found from its pattern by supervariable agglomeration:
/// consecutive rows with identical column sets (order and duplicates within a row do not
/// matter) form a supervariable, split when longer than max_block_size; adjacent
/// supervariables are then merged greedily while the merged block stays within
/// max_block_size. Returns num_blocks + 1 pointers on A's executor, every block boundary
/// being a supervariable boundary. The pass runs on the host (the pattern is copied there
/// when A lives on a device): it is a single O(nnz) sweep, done once per pattern.
/// BadInput when max_block_size is outside [1, 32], DimensionMismatch when A is not square.
template <typename V, typename I>
LOOM_EXPORT Array<I> find_blocks(const matrix::Csr<V, I>& A, size_type max_block_size);

/// Options of invert_blocks.
struct BlockInversionOptions {
    /// Store each block in the lowest precision choose_storage_precision allows.
    bool adaptive_precision = false;
    /// The bound on ||M~ D - I||_1 adaptive precision keeps, in (0, 1).
    double accuracy = 1e-1;
};

/// D^-1 for the block-diagonal part D of a square matrix, stored blockwise; made by
/// invert_blocks. All arrays live on one executor.
template <typename V, typename I>
class BlockDiagonalInverse {
public:
    using value_type = V;
    using index_type = I;
    using real_type = remove_complex_t<V>;

    BlockDiagonalInverse() = default;
    /// Assembles the parts (invert_blocks does; the layout is described at the accessors).
    BlockDiagonalInverse(size_type rows, size_type max_block_size, Array<I> block_ptrs,
                         Array<std::int64_t> offsets, Array<std::uint8_t> precisions,
                         Array<real_type> scales, Array<real_type> conditions,
                         Array<unsigned char> storage)
        : rows_(rows), max_block_size_(max_block_size), block_ptrs_(std::move(block_ptrs)),
          offsets_(std::move(offsets)), precisions_(std::move(precisions)),
          scales_(std::move(scales)), conditions_(std::move(conditions)),
          storage_(std::move(storage))
    {}

    const std::shared_ptr<const Executor>& executor() const noexcept
    {
        return block_ptrs_.executor();
    }
    /// The order of D.
    size_type rows() const noexcept { return rows_; }
    size_type num_blocks() const noexcept { return precisions_.size(); }
    /// The largest block present.
    size_type max_block_size() const noexcept { return max_block_size_; }

    /// num_blocks + 1 row boundaries.
    const Array<I>& block_ptrs() const noexcept { return block_ptrs_; }
    /// Byte offset of each block in storage(): blocks are packed, each aligned for its reals.
    const Array<std::int64_t>& offsets() const noexcept { return offsets_; }
    /// StoragePrecision of each block.
    const Array<std::uint8_t>& precisions() const noexcept { return precisions_; }
    /// Block k of D^-1 is scales[k] times its stored entries (a power of two; 1 for blocks
    /// in the working precision).
    const Array<real_type>& scales() const noexcept { return scales_; }
    /// ||D_k||_1 * ||D_k^-1||_1 of each block, computed in the working precision.
    const Array<real_type>& conditions() const noexcept { return conditions_; }
    /// The blocks: block k, of size s, holds s * s entries column-major from offsets[k], each
    /// entry one value of its precision's real format (two, real then imaginary part, for
    /// complex V); float16 is IEEE binary16.
    const Array<unsigned char>& storage() const noexcept { return storage_; }

private:
    size_type rows_ = 0;
    size_type max_block_size_ = 0;
    Array<I> block_ptrs_;
    Array<std::int64_t> offsets_;
    Array<std::uint8_t> precisions_;
    Array<real_type> scales_;
    Array<real_type> conditions_;
    Array<unsigned char> storage_;
};

/// Gathers every diagonal block of A (entries outside the block are ignored, duplicates
/// summed) and inverts it by Gauss-Jordan elimination with partial pivoting, on A's executor.
/// block_ptrs may live on any executor. DimensionMismatch when A is not square; BadInput /
/// OutOfRange when block_ptrs do not run from 0 to rows in steps of 1 to 32; BadInput for an
/// accuracy outside (0, 1); NumericalError naming the block and the row when a block is
/// singular (a zero pivot). Nothing is returned, and A is unchanged, on failure.
template <typename V, typename I>
LOOM_EXPORT BlockDiagonalInverse<V, I> invert_blocks(const matrix::Csr<V, I>& A,
                                                     const Array<I>& block_ptrs,
                                                     const BlockInversionOptions& options = {});

/// x = alpha * op(D^-1) * b + beta * x for op given by mode (none, transpose, conjugate,
/// conj_transpose); b and x are rows x k multi-vectors on D^-1's executor, x not sharing
/// memory with b; x is not read when beta is zero. DimensionMismatch on wrong shapes,
/// BadInput when the executors differ.
template <typename V, typename I>
LOOM_EXPORT void apply_block_inverse(Mode mode, V alpha, const BlockDiagonalInverse<V, I>& inverse,
                                     const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);

/// 1 / A(i, i) for every row i of a square A (duplicates summed), on A's executor.
/// DimensionMismatch when A is not square, NumericalError naming the first row whose
/// diagonal entry is zero or missing.
template <typename V, typename I>
LOOM_EXPORT Array<V> invert_diagonal(const matrix::Csr<V, I>& A);

/// x(i, j) = alpha * op(d(i)) * b(i, j) + beta * x(i, j): a Jacobi scaling by the inverted
/// diagonal d (op conjugates for the conjugate modes); x is not read when beta is zero and
/// may be b itself.
/// DimensionMismatch on wrong shapes, BadInput when the executors differ.
template <typename V>
LOOM_EXPORT void apply_diagonal(Mode mode, V alpha, const Array<V>& inverse_diagonal,
                                const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x);

}  // namespace loom::sparse

LOOM_PUBLIC_END
