// Argument checks, block layout, precision choice and backend dispatch of the block-diagonal
// family (include/loom/sparse/block_diagonal.hpp). The small per-block bookkeeping (offsets,
// precisions: one value per block) is done on the host; the per-entry work on the executor.
#include "loom/sparse/block_diagonal.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/base/error.hpp"
#include "sparse/block_diagonal/kernels.hpp"
#include "sparse/block_diagonal/storage.hpp"

namespace loom::sparse {
namespace {

template <typename V, typename I>
void check_square(const char* where, const matrix::Csr<V, I>& A)
{
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(where, "A is " + loom::to_string(A.size()) +
                                           "; the block diagonal needs a square matrix");
    }
    if (!A.executor()) throw BadInput(where, "A has no executor");
}

/// b and x fit an operator of order `rows` and live in `exec`'s memory.
template <typename V>
void check_apply(const char* where, size_type rows, const std::shared_ptr<const Executor>& exec,
                 const matrix::Dense<V>& b, const matrix::Dense<V>& x)
{
    const dim2 op{rows, rows};
    if (b.rows() != rows) {
        throw DimensionMismatch(where, "the block diagonal", op, "b", b.size(),
                                "b needs one row per row of the operator");
    }
    if (x.rows() != rows) {
        throw DimensionMismatch(where, "the block diagonal", op, "x", x.size(),
                                "x needs one row per row of the operator");
    }
    if (b.cols() != x.cols()) {
        throw DimensionMismatch(where, "b", b.size(), "x", x.size(),
                                "b and x need the same number of columns");
    }
    for (const auto* operand : {&b.executor(), &x.executor()}) {
        if (!exec || !*operand || !exec->same_memory_as(**operand)) {
            throw BadInput(where, "the operator, b and x must live in one executor's memory "
                                  "(the operator is on " +
                                      (exec ? exec->name() : std::string("none")) + ", b on " +
                                      (b.executor() ? b.executor()->name() : "none") +
                                      ", x on " +
                                      (x.executor() ? x.executor()->name() : "none") + ")");
        }
    }
}

/// Host copy of an array, or a view of it when it already is in host memory.
template <typename T>
std::span<const T> host_view(const Array<T>& values, std::vector<T>& buffer)
{
    if (values.size() > 0 && !values.executor()->is_host()) {
        buffer = values.to_host();
        return {buffer.data(), buffer.size()};
    }
    return {values.data(), static_cast<std::size_t>(values.size())};
}

/// The column set of row r: the stored columns when they are strictly increasing (the common
/// case), else a sorted, deduplicated copy in `buffer`.
template <typename I>
std::span<const I> column_set(std::span<const I> row_ptrs, std::span<const I> cols,
                              size_type r, std::vector<I>& buffer)
{
    const I* begin = cols.data() + row_ptrs[r];
    const I* end = cols.data() + row_ptrs[r + 1];
    if (std::adjacent_find(begin, end, [](I a, I b) { return a >= b; }) == end) {
        return {begin, end};
    }
    buffer.assign(begin, end);
    std::sort(buffer.begin(), buffer.end());
    buffer.erase(std::unique(buffer.begin(), buffer.end()), buffer.end());
    return {buffer.data(), buffer.size()};
}

/// Lengths of the supervariables (runs of rows with one column set), none above max_size.
template <typename I>
std::vector<size_type> supervariables(std::span<const I> row_ptrs, std::span<const I> cols,
                                      size_type rows, size_type max_size)
{
    std::vector<size_type> lengths;
    std::vector<I> buffers[2];
    std::span<const I> previous;
    for (size_type r = 0; r < rows; ++r) {
        const auto current = column_set(row_ptrs, cols, r, buffers[r % 2]);
        if (r > 0 && lengths.back() < max_size && std::ranges::equal(current, previous)) {
            ++lengths.back();
        } else {
            lengths.push_back(1);
        }
        previous = current;
    }
    return lengths;
}

/// Checks block pointers for an order-`rows` matrix; returns the largest block size.
template <typename I>
size_type check_block_ptrs(const char* where, std::span<const I> ptrs, size_type rows)
{
    if (ptrs.empty() || ptrs.front() != 0 || ptrs.back() != rows) {
        throw BadInput(where, "block pointers must run from 0 to the number of rows (" +
                                  std::to_string(rows) + "); got " +
                                  (ptrs.empty() ? std::string("none")
                                                : std::to_string(ptrs.front()) + " to " +
                                                      std::to_string(ptrs.back())));
    }
    size_type largest = 0;
    for (std::size_t k = 0; k + 1 < ptrs.size(); ++k) {
        const size_type size = static_cast<size_type>(ptrs[k + 1]) - ptrs[k];
        if (size < 1 || size > max_supported_block_size) {
            throw BadInput(where, "block " + std::to_string(k) + " (block pointers " +
                                      std::to_string(ptrs[k]) + " to " +
                                      std::to_string(ptrs[k + 1]) + ") has " +
                                      std::to_string(size) + " rows; blocks need 1 to " +
                                      std::to_string(max_supported_block_size));
        }
        largest = std::max(largest, size);
    }
    return largest;
}

/// Byte offsets of blocks stored in the given precisions, and the total.
template <typename V, typename I, typename Precision>
std::vector<std::int64_t> block_offsets(std::span<const I> ptrs, Precision precision_of,
                                        std::int64_t& total)
{
    std::vector<std::int64_t> offsets(ptrs.size() - 1);
    total = 0;
    for (std::size_t k = 0; k < offsets.size(); ++k) {
        const auto precision = precision_of(k);
        offsets[k] = block_storage::aligned_offset(total, precision);
        total = offsets[k] + block_storage::block_bytes<V>(ptrs[k + 1] - ptrs[k], precision);
    }
    return offsets;
}

[[noreturn]] void throw_block_failure(const char* where, std::int64_t code,
                                      std::size_t block, size_type begin, size_type end)
{
    const auto step = code % block_storage::failure_radix;
    const std::string name = "block " + std::to_string(block) + " (rows " +
                             std::to_string(begin) + " to " + std::to_string(end - 1) + ")";
    if (step == block_storage::non_finite_step) {
        throw NumericalError(where, name + " has an inverse that is not finite (the block "
                                           "holds Inf or NaN, or is numerically singular)");
    }
    throw NumericalError(where, name + " is singular: zero pivot at row " +
                                    std::to_string(begin + step) + " (elimination step " +
                                    std::to_string(step) + " finds no nonzero in column " +
                                    std::to_string(begin + step) + ")");
}

}  // namespace

double unit_roundoff(StoragePrecision precision)
{
    switch (precision) {
    case StoragePrecision::float64: return std::ldexp(1.0, -53);
    case StoragePrecision::float32: return std::ldexp(1.0, -24);
    default: return std::ldexp(1.0, -11);
    }
}

template <typename V>
StoragePrecision choose_storage_precision(double condition, double accuracy)
{
    constexpr auto working = working_precision<V>();
    if (!std::isfinite(condition)) return working;
    for (auto candidate : {StoragePrecision::float16, StoragePrecision::float32}) {
        if (unit_roundoff(candidate) <= unit_roundoff(working)) break;
        if (condition * unit_roundoff(candidate) <= accuracy) return candidate;
    }
    return working;
}

template <typename V, typename I>
Array<I> find_blocks(const matrix::Csr<V, I>& A, size_type max_block_size)
{
    constexpr const char* where = "loom::sparse::find_blocks";
    check_square(where, A);
    if (max_block_size < 1 || max_block_size > max_supported_block_size) {
        throw BadInput(where, "max_block_size " + std::to_string(max_block_size) +
                                  " is outside [1, " +
                                  std::to_string(max_supported_block_size) + "]");
    }
    std::vector<I> ptr_buffer, col_buffer;
    const auto row_ptrs = host_view(A.row_ptrs(), ptr_buffer);
    const auto cols = host_view(A.col_idxs(), col_buffer);
    std::vector<I> block_ptrs{0};
    size_type block_size = 0;
    for (const auto length : supervariables(row_ptrs, cols, A.rows(), max_block_size)) {
        if (block_size + length > max_block_size) {
            block_ptrs.push_back(static_cast<I>(block_ptrs.back() + block_size));
            block_size = 0;
        }
        block_size += length;
    }
    if (block_size > 0) block_ptrs.push_back(static_cast<I>(block_ptrs.back() + block_size));
    return Array<I>(A.executor(), block_ptrs);
}

template <typename V, typename I>
BlockDiagonalInverse<V, I> invert_blocks(const matrix::Csr<V, I>& A, const Array<I>& block_ptrs,
                                         const BlockInversionOptions& options)
{
    using R = remove_complex_t<V>;
    constexpr const char* where = "loom::sparse::invert_blocks";
    check_square(where, A);
    if (!(options.accuracy > 0 && options.accuracy < 1)) {
        throw BadInput(where, "accuracy " + std::to_string(options.accuracy) +
                                  " is outside (0, 1)");
    }
    std::vector<I> ptr_buffer;
    const auto host_ptrs = host_view(block_ptrs, ptr_buffer);
    const auto max_block_size = check_block_ptrs(where, host_ptrs, A.rows());
    const auto num_blocks = host_ptrs.size() - 1;
    const auto& exec = A.executor();

    constexpr auto working = working_precision<V>();
    std::int64_t working_bytes = 0;
    const auto working_offsets =
        block_offsets<V>(host_ptrs, [](std::size_t) { return working; }, working_bytes);
    Array<I> ptrs(exec, std::vector<I>(host_ptrs.begin(), host_ptrs.end()));
    Array<std::int64_t> offsets(exec, working_offsets);
    Array<unsigned char> storage(exec, working_bytes);
    Array<R> conditions(exec, static_cast<size_type>(num_blocks));
    Array<std::int64_t> failure(exec, {block_storage::no_failure});
    LOOM_RUN_KERNEL(where, *exec, invert_blocks, A, ptrs, max_block_size, offsets, storage,
                    conditions, failure);
    const auto code = detail::load_element(failure, 0);
    if (code != block_storage::no_failure) {
        const auto block = static_cast<std::size_t>(code / block_storage::failure_radix);
        throw_block_failure(where, code, block, host_ptrs[block], host_ptrs[block + 1]);
    }

    std::vector<std::uint8_t> precisions(num_blocks, static_cast<std::uint8_t>(working));
    if (!options.adaptive_precision) {
        return {A.rows(), max_block_size, std::move(ptrs), std::move(offsets),
                Array<std::uint8_t>(exec, precisions),
                Array<R>(exec, std::vector<R>(num_blocks, R{1})), std::move(conditions),
                std::move(storage)};
    }
    const auto host_conditions = conditions.to_host();
    for (std::size_t k = 0; k < num_blocks; ++k) {
        precisions[k] = static_cast<std::uint8_t>(
            choose_storage_precision<V>(host_conditions[k], options.accuracy));
    }
    std::int64_t bytes = 0;
    const auto reduced_offsets = block_offsets<V>(
        host_ptrs, [&](std::size_t k) { return static_cast<StoragePrecision>(precisions[k]); },
        bytes);
    Array<std::uint8_t> block_precisions(exec, precisions);
    Array<std::int64_t> final_offsets(exec, reduced_offsets);
    Array<unsigned char> final_storage(exec, bytes);
    Array<R> scales(exec, static_cast<size_type>(num_blocks));
    LOOM_RUN_KERNEL(where, *exec, compress_blocks<V>, ptrs, offsets, storage, block_precisions,
                    final_offsets, final_storage, scales);
    return {A.rows(),
            max_block_size,
            std::move(ptrs),
            std::move(final_offsets),
            std::move(block_precisions),
            std::move(scales),
            std::move(conditions),
            std::move(final_storage)};
}

template <typename V, typename I>
void apply_block_inverse(Mode mode, V alpha, const BlockDiagonalInverse<V, I>& inverse,
                         const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::sparse::apply_block_inverse";
    check_apply(where, inverse.rows(), inverse.executor(), b, x);
    if (b.rows() == 0 || b.cols() == 0) return;
    LOOM_RUN_KERNEL(where, *inverse.executor(), apply_block_inverse, mode, alpha, inverse, b, beta,
                    x);
}

template <typename V, typename I>
Array<V> invert_diagonal(const matrix::Csr<V, I>& A)
{
    constexpr const char* where = "loom::sparse::invert_diagonal";
    check_square(where, A);
    const auto& exec = A.executor();
    Array<V> inverse(exec, A.rows());
    Array<std::int64_t> failure(exec, {block_storage::no_failure});
    if (A.rows() > 0) {
        LOOM_RUN_KERNEL(where, *exec, invert_diagonal, A, inverse, failure);
    }
    const auto row = detail::load_element(failure, 0);
    if (row != block_storage::no_failure) {
        throw NumericalError(where, "row " + std::to_string(row) +
                                        " has a zero, missing or non-finite diagonal entry");
    }
    return inverse;
}

template <typename V>
void apply_diagonal(Mode mode, V alpha, const Array<V>& inverse_diagonal,
                    const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::sparse::apply_diagonal";
    check_apply(where, inverse_diagonal.size(), inverse_diagonal.executor(), b, x);
    if (b.rows() == 0 || b.cols() == 0) return;
    LOOM_RUN_KERNEL(where, *inverse_diagonal.executor(), apply_diagonal, mode, alpha,
                    inverse_diagonal, b, beta, x);
}

#define LOOM_INSTANTIATE_BLOCK_DIAGONAL(V, I)                                                  \
    template Array<I> find_blocks(const matrix::Csr<V, I>&, size_type);                        \
    template BlockDiagonalInverse<V, I> invert_blocks(const matrix::Csr<V, I>&, const Array<I>&, \
                                                      const BlockInversionOptions&);           \
    template void apply_block_inverse(Mode, V, const BlockDiagonalInverse<V, I>&,              \
                                      const matrix::Dense<V>&, V, matrix::Dense<V>&);          \
    template Array<V> invert_diagonal(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BLOCK_DIAGONAL)

#define LOOM_INSTANTIATE_BLOCK_DIAGONAL_VALUE(V)                                               \
    template StoragePrecision choose_storage_precision<V>(double, double);                     \
    template void apply_diagonal(Mode, V, const Array<V>&, const matrix::Dense<V>&, V,         \
                                 matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BLOCK_DIAGONAL_VALUE)

}  // namespace loom::sparse
