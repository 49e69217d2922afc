// Allocation and backend dispatch of the precision conversions (loom/matrix/precision.hpp).
#include "loom/matrix/precision.hpp"

#include "base/dispatch.hpp"
#include "matrix/precision/kernels.hpp"

namespace loom::matrix {
namespace {

constexpr const char* precision_where = "loom::matrix::convert_precision";

template <typename To, typename From>
void convert_block(const Executor& exec, size_type rows, size_type cols, const From* in,
                   size_type in_stride, To* out, size_type out_stride)
{
    if (rows == 0 || cols == 0) return;
    LOOM_RUN_KERNEL(precision_where, exec, convert_values, rows, cols, in, in_stride, out,
                    out_stride);
}

}  // namespace

template <typename To, typename From>
Dense<To> convert_precision(const Dense<From>& source)
{
    if (!source.executor()) throw BadInput(precision_where, "the source has no executor");
    Dense<To> result(source.executor(), source.size());
    convert_block(*source.executor(), source.rows(), source.cols(), source.data(), source.stride(),
                  result.data(), result.stride());
    return result;
}

template <typename To, typename From, typename I>
Csr<To, I> convert_precision(const Csr<From, I>& source)
{
    const auto& exec = source.executor();
    if (!exec) throw BadInput(precision_where, "the source has no executor");
    Array<To> values(exec, source.nnz());
    convert_block(*exec, 1, source.nnz(), source.values().data(), source.nnz(), values.data(),
                  source.nnz());
    // The pattern was validated when source was built: the checked constructor would only
    // read it back to the host for nothing, so the result is assembled unchecked.
    Csr<To, I> result(exec, source.size());
    result.row_ptrs() = source.row_ptrs();
    result.col_idxs() = source.col_idxs();
    result.values() = std::move(values);
    return result;
}

/// Dense's copy between strides for the storage types (dense.cpp), which blas does not take.
template <typename T>
void copy_storage(const Dense<T>& from, Dense<T>& to)
{
    convert_block(*to.executor(), to.rows(), to.cols(), from.data(), from.stride(), to.data(),
                  to.stride());
}

#define LOOM_INSTANTIATE_PRECISION_DENSE(To, From) \
    template Dense<To> convert_precision<To, From>(const Dense<From>&);
#define LOOM_INSTANTIATE_PRECISION_CSR_(To, From, I) \
    template Csr<To, I> convert_precision<To, From, I>(const Csr<From, I>&);
#define LOOM_INSTANTIATE_PRECISION_CSR(To, From) \
    LOOM_FOR_EACH_INDEX_TYPE_ON(LOOM_INSTANTIATE_PRECISION_CSR_, To, From)
#define LOOM_INSTANTIATE_PRECISION(To, From)   \
    LOOM_INSTANTIATE_PRECISION_DENSE(To, From) \
    LOOM_INSTANTIATE_PRECISION_CSR(To, From)
LOOM_FOR_EACH_PRECISION_PAIR(LOOM_INSTANTIATE_PRECISION)

#define LOOM_INSTANTIATE_COPY_STORAGE(T) template void copy_storage(const Dense<T>&, Dense<T>&);
LOOM_FOR_EACH_STORAGE_TYPE(LOOM_INSTANTIATE_COPY_STORAGE)

}  // namespace loom::matrix
