// Permutation: operand checks, result sizing and backend dispatch.
#include "loom/matrix/permutation.hpp"

#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "matrix/permutation/kernels.hpp"

namespace loom::matrix {
namespace {

constexpr const char* where = "loom::matrix::Permutation";

/// The permutation's executor; BadInput for a default-constructed one.
const Executor& executor_of(const std::shared_ptr<const Executor>& exec)
{
    if (!exec) throw BadInput(where, "the permutation is empty (default-constructed)");
    return *exec;
}

template <typename Operand>
void check_memory(const Executor& exec, const Operand& operand, const char* name)
{
    if (!operand.executor() || !operand.executor()->same_memory_as(exec)) {
        throw BadInput(where, std::string(name) + " must live in the permutation's memory (" +
                                  exec.name() + ")");
    }
}

void check_extent(size_type extent, size_type size, const char* what)
{
    if (extent != size) {
        throw BadInput(where, std::string(what) + " " + std::to_string(extent) +
                                  ", but the permutation has " + std::to_string(size) + " indices");
    }
}

/// Rows of the result are A's rows old_row[k] (null: k), columns renamed new_col[j] (null:
/// kept) and sorted again when renamed.
template <typename V, typename I>
Csr<V, I> permuted(const Executor& exec, const Csr<V, I>& A, const I* old_row, const I* new_col)
{
    const auto shared = exec.shared_from_this();
    Array<I> row_ptrs(shared, A.rows() + 1);
    LOOM_RUN_KERNEL(where, exec, permuted_row_nnz, A, old_row, row_ptrs);
    loom::detail::exclusive_prefix_sum(row_ptrs);
    Csr<V, I> result(shared, A.size(), A.nnz());
    result.row_ptrs() = std::move(row_ptrs);
    LOOM_RUN_KERNEL(where, exec, permute_entries, A, old_row, new_col, result);
    if (new_col) sparse::sort_columns(result);
    return result;
}

}  // namespace

template <typename I>
Permutation<I>::Permutation(std::shared_ptr<const Executor> exec, Array<I> perm)
{
    if (!exec) throw BadInput(where, "no executor given");
    perm = moved_to(exec, std::move(perm));
    Array<I> inverse(exec, perm.size());
    if (!LOOM_RUN_KERNEL(where, *exec, invert, perm, inverse)) {
        throw BadInput(where, "the indices are not a permutation of 0 .. " +
                                  std::to_string(perm.size() - 1) +
                                  " (an index out of range or repeated)");
    }
    perm_ = std::move(perm);
    inverse_ = std::move(inverse);
}

template <typename I>
Permutation<I> Permutation<I>::inverse() const
{
    return Permutation(inverse_, perm_);
}

template <typename I>
template <typename V>
void Permutation<I>::apply(const Dense<V>& x, Dense<V>& y) const
{
    const auto& exec = executor_of(executor());
    check_memory(exec, x, "x");
    check_memory(exec, y, "y");
    check_extent(x.rows(), size(), "x has rows");
    if (y.size() != x.size()) {
        throw DimensionMismatch(where, "x", x.size(), "y", y.size(), "y = P x needs x's size");
    }
    LOOM_RUN_KERNEL(where, exec, gather_rows, perm_, x, y);
}

template <typename I>
template <typename V>
Dense<V> Permutation<I>::apply(const Dense<V>& x) const
{
    check_memory(executor_of(executor()), x, "x");
    Dense<V> y(executor(), x.size());
    apply(x, y);
    return y;
}

template <typename I>
template <typename V>
Csr<V, I> Permutation<I>::permute(const Csr<V, I>& A) const
{
    check_memory(executor_of(executor()), A, "A");
    check_extent(A.rows(), size(), "A has rows");
    check_extent(A.cols(), size(), "A has columns");
    return permuted(*executor(), A, perm_.data(), inverse_.data());
}

template <typename I>
template <typename V>
Csr<V, I> Permutation<I>::permute_rows(const Csr<V, I>& A) const
{
    check_memory(executor_of(executor()), A, "A");
    check_extent(A.rows(), size(), "A has rows");
    return permuted(*executor(), A, perm_.data(), static_cast<const I*>(nullptr));
}

template <typename I>
template <typename V>
Csr<V, I> Permutation<I>::permute_columns(const Csr<V, I>& A) const
{
    check_memory(executor_of(executor()), A, "A");
    check_extent(A.cols(), size(), "A has columns");
    return permuted(*executor(), A, static_cast<const I*>(nullptr), inverse_.data());
}

#define LOOM_INSTANTIATE_PERMUTATION(I) template class Permutation<I>;
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE_PERMUTATION)

#define LOOM_INSTANTIATE_PERMUTATION_APPLY(V, I)                             \
    template void Permutation<I>::apply(const Dense<V>&, Dense<V>&) const;   \
    template Dense<V> Permutation<I>::apply(const Dense<V>&) const;          \
    template Csr<V, I> Permutation<I>::permute(const Csr<V, I>&) const;      \
    template Csr<V, I> Permutation<I>::permute_rows(const Csr<V, I>&) const; \
    template Csr<V, I> Permutation<I>::permute_columns(const Csr<V, I>&) const;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_PERMUTATION_APPLY)

}  // namespace loom::matrix
