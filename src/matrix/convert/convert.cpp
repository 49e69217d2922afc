// The public conversions: argument checks, sizing of the results, and dispatch to the
// backend kernels. Formats without a kernel of their own for a pair go through Csr.
#include "loom/matrix/convert.hpp"

#include <limits>
#include <string>

#include "base/dispatch.hpp"
#include "base/executor_of.hpp"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/base/error.hpp"
#include "matrix/convert/kernels.hpp"

namespace loom::matrix {
namespace {

using loom::detail::executor_of;

/// NotSupported when a count that the result stores in its index type I does not fit there.
template <typename I>
void check_fits_index(const char* where, size_type count, const std::string& what)
{
    if (count > std::numeric_limits<I>::max()) {
        throw NotSupported(where, what + " (" + std::to_string(count) +
                                      ") does not fit the index type " + type_name<I>() +
                                      "; convert to a matrix with 64-bit indices");
    }
}

void check_slicing(const char* where, size_type slice_size, size_type stride_factor)
{
    if (slice_size < 1 || stride_factor < 1) {
        throw BadInput(where, "slice_size " + std::to_string(slice_size) + " and stride_factor " +
                                  std::to_string(stride_factor) + " must be positive");
    }
}

/// A Csr from an Ell, Sellp or Dense matrix by the count -> prefix sum -> fill pattern: the
/// row_nnz kernel counts the entries of each row into row_ptrs[0, rows), fill_csr fills a
/// Csr whose row_ptrs are the scanned counts. positions (what the source can hold) must fit
/// the index type I.
template <typename V, typename I, typename Matrix>
Csr<V, I> csr_by_rows(const Matrix& source, size_type positions, const char* what)
{
    constexpr const char* where = "loom::matrix::to_csr";
    const auto& exec = executor_of(where, source);
    check_fits_index<I>(where, positions, what);
    Array<I> row_ptrs(exec, source.rows() + 1);
    LOOM_RUN_KERNEL(where, *exec, row_nnz, source, row_ptrs);
    detail::exclusive_prefix_sum(row_ptrs);
    Csr<V, I> result(exec, source.size(), detail::load_element(row_ptrs, source.rows()));
    result.row_ptrs() = std::move(row_ptrs);
    LOOM_RUN_KERNEL(where, *exec, fill_csr, source, result);
    return result;
}

/// A Dense holding the entries of a Csr, Ell or Sellp matrix, duplicates summed.
template <typename V, typename Matrix>
Dense<V> dense_by_rows(const Matrix& source)
{
    constexpr const char* where = "loom::matrix::to_dense";
    const auto& exec = executor_of(where, source);
    Dense<V> result(exec, source.size());
    result.values().fill(V{});
    LOOM_RUN_KERNEL(where, *exec, add_to_dense, source, result);
    return result;
}

}  // namespace

template <typename V, typename I>
Csr<V, I> to_csr(const Coo<V, I>& source)
{
    constexpr const char* where = "loom::matrix::to_csr";
    const auto& exec = executor_of(where, source);
    check_fits_index<I>(where, source.nnz(), "the number of stored entries");
    Csr<V, I> result(exec, source.size(), source.nnz());
    LOOM_RUN_KERNEL(where, *exec, coo_to_csr, source, result);
    return result;
}

template <typename V, typename I>
Csr<V, I> to_csr(const Ell<V, I>& source)
{
    return csr_by_rows<V, I>(source, source.slots(), "the number of slots");
}

template <typename V, typename I>
Csr<V, I> to_csr(const Sellp<V, I>& source)
{
    return csr_by_rows<V, I>(source, source.slots(), "the number of slots");
}

template <typename I, typename V>
Csr<V, I> to_csr(const Dense<V>& source)
{
    return csr_by_rows<V, I>(source, source.size().count(), "the number of matrix elements");
}

template <typename V, typename I>
Coo<V, I> to_coo(const Csr<V, I>& source)
{
    constexpr const char* where = "loom::matrix::to_coo";
    const auto& exec = executor_of(where, source);
    Coo<V, I> result(exec, source.size(), source.nnz());
    LOOM_RUN_KERNEL(where, *exec, csr_to_coo, source, result);
    return result;
}

template <typename V, typename I>
Coo<V, I> to_coo(const Ell<V, I>& source)
{
    return to_coo(to_csr(source));
}

template <typename V, typename I>
Coo<V, I> to_coo(const Sellp<V, I>& source)
{
    return to_coo(to_csr(source));
}

template <typename I, typename V>
Coo<V, I> to_coo(const Dense<V>& source)
{
    return to_coo(to_csr<I>(source));
}

template <typename V, typename I>
Ell<V, I> to_ell(const Csr<V, I>& source)
{
    constexpr const char* where = "loom::matrix::to_ell";
    const auto& exec = executor_of(where, source);
    const size_type width = LOOM_RUN_KERNEL(where, *exec, csr_max_row_nnz, source);
    Ell<V, I> result(exec, source.size(), width);
    LOOM_RUN_KERNEL(where, *exec, csr_to_ell, source, result);
    return result;
}

template <typename V, typename I>
Ell<V, I> to_ell(const Coo<V, I>& source)
{
    return to_ell(to_csr(source));
}

template <typename V, typename I>
Ell<V, I> to_ell(const Sellp<V, I>& source)
{
    return to_ell(to_csr(source));
}

template <typename I, typename V>
Ell<V, I> to_ell(const Dense<V>& source)
{
    return to_ell(to_csr<I>(source));
}

template <typename V, typename I>
Sellp<V, I> to_sellp(const Csr<V, I>& source, size_type slice_size, size_type stride_factor)
{
    constexpr const char* where = "loom::matrix::to_sellp";
    const auto& exec = executor_of(where, source);
    check_slicing(where, slice_size, stride_factor);
    const size_type slices = (source.rows() + slice_size - 1) / slice_size;
    Array<I> lengths(exec, slices);
    Array<I> sets(exec, slices + 1);
    LOOM_RUN_KERNEL(where, *exec, csr_slice_lengths, source, slice_size, stride_factor, lengths,
                    sets);
    detail::exclusive_prefix_sum(sets);
    Sellp<V, I> result(exec, source.size(), detail::load_element(sets, slices), slice_size,
                       stride_factor);
    result.slice_lengths() = std::move(lengths);
    result.slice_sets() = std::move(sets);
    LOOM_RUN_KERNEL(where, *exec, csr_to_sellp, source, result);
    return result;
}

template <typename V, typename I>
Sellp<V, I> to_sellp(const Coo<V, I>& source, size_type slice_size, size_type stride_factor)
{
    check_slicing("loom::matrix::to_sellp", slice_size, stride_factor);
    return to_sellp(to_csr(source), slice_size, stride_factor);
}

template <typename V, typename I>
Sellp<V, I> to_sellp(const Ell<V, I>& source, size_type slice_size, size_type stride_factor)
{
    check_slicing("loom::matrix::to_sellp", slice_size, stride_factor);
    return to_sellp(to_csr(source), slice_size, stride_factor);
}

template <typename I, typename V>
Sellp<V, I> to_sellp(const Dense<V>& source, size_type slice_size, size_type stride_factor)
{
    check_slicing("loom::matrix::to_sellp", slice_size, stride_factor);
    return to_sellp(to_csr<I>(source), slice_size, stride_factor);
}

template <typename V, typename I>
Dense<V> to_dense(const Csr<V, I>& source)
{
    return dense_by_rows<V>(source);
}

template <typename V, typename I>
Dense<V> to_dense(const Coo<V, I>& source)
{
    // Through Csr rather than with atomic adds: duplicates are then summed in stored order,
    // the same on every backend.
    return to_dense(to_csr(source));
}

template <typename V, typename I>
Dense<V> to_dense(const Ell<V, I>& source)
{
    return dense_by_rows<V>(source);
}

template <typename V, typename I>
Dense<V> to_dense(const Sellp<V, I>& source)
{
    return dense_by_rows<V>(source);
}

#define LOOM_INSTANTIATE_CONVERT(V, I)                                          \
    template Csr<V, I> to_csr(const Coo<V, I>&);                                \
    template Csr<V, I> to_csr(const Ell<V, I>&);                                \
    template Csr<V, I> to_csr(const Sellp<V, I>&);                              \
    template Csr<V, I> to_csr<I, V>(const Dense<V>&);                           \
    template Coo<V, I> to_coo(const Csr<V, I>&);                                \
    template Coo<V, I> to_coo(const Ell<V, I>&);                                \
    template Coo<V, I> to_coo(const Sellp<V, I>&);                              \
    template Coo<V, I> to_coo<I, V>(const Dense<V>&);                           \
    template Ell<V, I> to_ell(const Csr<V, I>&);                                \
    template Ell<V, I> to_ell(const Coo<V, I>&);                                \
    template Ell<V, I> to_ell(const Sellp<V, I>&);                              \
    template Ell<V, I> to_ell<I, V>(const Dense<V>&);                           \
    template Sellp<V, I> to_sellp(const Csr<V, I>&, size_type, size_type);      \
    template Sellp<V, I> to_sellp(const Coo<V, I>&, size_type, size_type);      \
    template Sellp<V, I> to_sellp(const Ell<V, I>&, size_type, size_type);      \
    template Sellp<V, I> to_sellp<I, V>(const Dense<V>&, size_type, size_type); \
    template Dense<V> to_dense(const Csr<V, I>&);                               \
    template Dense<V> to_dense(const Coo<V, I>&);                               \
    template Dense<V> to_dense(const Ell<V, I>&);                               \
    template Dense<V> to_dense(const Sellp<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_CONVERT)

}  // namespace loom::matrix
