// Front-level batched sparse calls: argument checks (naming the batch entry that does not
// fit), the analysis of heterogeneous batches for SpMV, the Krylov handle, and dispatch to
// the backends (kernels.hpp).
#include <algorithm>
#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "batched/sparse/kernels.hpp"

namespace loom::batched {
namespace bsparse {
namespace {

std::string entry_name(size_type b) { return "batch entry " + std::to_string(b); }

void check_executor(const char* where, const Executor& expected, const Executor* actual,
                    const char* what)
{
    if (actual == nullptr || !actual->same_memory_as(expected)) {
        throw BadInput(where, std::string(what) + " does not live in the memory of the matrices' executor");
    }
}

/// x and y batches of n x 1 columns that fit a shared-pattern batch of count rows x cols.
template <typename V>
void check_columns(const char* where, size_type count, dim2 size, const BatchDense<V>& x,
                   const BatchDense<V>& y, const Executor& exec)
{
    check_executor(where, exec, x.executor().get(), "x");
    check_executor(where, exec, y.executor().get(), "y");
    if (x.batch_count() != count || y.batch_count() != count) {
        throw DimensionMismatch(where, "the batch holds " + std::to_string(count) +
                                           " matrices but x holds " +
                                           std::to_string(x.batch_count()) + " and y " +
                                           std::to_string(y.batch_count()) + " vectors");
    }
    if (x.size() != dim2{size.cols, 1}) {
        throw DimensionMismatch(where, "A", size, "x", x.size(), "every batch entry's x must be cols x 1");
    }
    if (y.size() != dim2{size.rows, 1}) {
        throw DimensionMismatch(where, "A", size, "y", y.size(), "every batch entry's y must be rows x 1");
    }
}

/// Pooled vectors that fit a heterogeneous batch; a short pool names the first entry whose
/// vector does not fit in it.
template <typename V, typename I>
void check_pooled(const char* where, const HeteroBatch<V, I>& A, const Array<V>& x,
                  const Array<V>& y, const char* x_name, const char* y_name)
{
    check_executor(where, *A.executor(), x.executor().get(), x_name);
    check_executor(where, *A.executor(), y.executor().get(), y_name);
    const auto& layouts = A.host_layouts();
    auto check = [&](const Array<V>& v, const char* name, bool input) {
        const size_type expected = input ? A.total_cols() : A.total_rows();
        if (v.size() == expected) return;
        for (size_type b = 0; b < A.batch_count(); ++b) {
            const auto& L = layouts[b];
            const size_type end = input ? L.x_offset + L.cols : L.y_offset + L.rows;
            if (end > v.size()) {
                throw DimensionMismatch(
                    where, std::string(name) + " holds " + std::to_string(v.size()) +
                               " values: " + entry_name(b) + " (" + std::to_string(L.rows) +
                               " x " + std::to_string(L.cols) + ") needs them up to " +
                               std::to_string(end));
            }
        }
        throw DimensionMismatch(where, std::string(name) + " holds " + std::to_string(v.size()) +
                                           " values, the batch's vectors " +
                                           std::to_string(expected));
    };
    check(x, x_name, true);
    check(y, y_name, false);
}

SpmvKernel choose_kernel(SpmvKernel requested, matrix::BatchFormat format, size_type rows,
                         size_type nnz, size_type longest)
{
    switch (format) {
    case matrix::BatchFormat::coo: return SpmvKernel::coo;
    case matrix::BatchFormat::ell: return SpmvKernel::ell;
    case matrix::BatchFormat::hybrid: return SpmvKernel::hybrid;
    case matrix::BatchFormat::csr: break;
    }
    switch (requested) {
    case SpmvKernel::csr_scalar:
    case SpmvKernel::csr_vector:
    case SpmvKernel::csr_smart:
    case SpmvKernel::csr_i: return requested;
    default: break;
    }
    const size_type mean = rows == 0 ? 0 : (nnz + rows - 1) / rows;
    return longest > 64 && longest > 8 * mean ? SpmvKernel::csr_i : SpmvKernel::csr_smart;
}

}  // namespace

// The dispatch runs from inside bsparse, where reference::, omp:: and cuda:: name its backends.
#define LOOM_BATCH_SPARSE_DISPATCH(kernel)                                                     \
    template <typename... Args>                                                                \
    void run_##kernel(const char* where, const Executor& exec, Args&... args)                  \
    {                                                                                          \
        LOOM_RUN_KERNEL(where, exec, kernel, args...);                                         \
    }
LOOM_BATCH_SPARSE_DISPATCH(spmv_csr)
LOOM_BATCH_SPARSE_DISPATCH(spmv_ell)
LOOM_BATCH_SPARSE_DISPATCH(spmv_hetero)
LOOM_BATCH_SPARSE_DISPATCH(solve_csr)
LOOM_BATCH_SPARSE_DISPATCH(solve_ell)
LOOM_BATCH_SPARSE_DISPATCH(solve_hetero)
#undef LOOM_BATCH_SPARSE_DISPATCH

template <typename V>
void check_solve_options(const char* where, const KrylovOptions& options)
{
    if (options.max_iterations < 0) throw BadInput(where, "negative max_iterations");
    if (!(options.rtol >= 0) || !(options.atol >= 0)) throw BadInput(where, "negative tolerance");
    if (options.restart < 1) throw BadInput(where, "GMRES restart must be at least 1");
    if (options.precond == BatchPrecond::block_jacobi &&
        (options.block_size < 1 || options.block_size > 16)) {
        throw BadInput(where, "block Jacobi block size must be 1 to 16, not " +
                                  std::to_string(options.block_size));
    }
}

}  // namespace bsparse

// ------------------------------------------------------------------------ SpMV

std::vector<SpmvKernel> BatchSpmvHandle::kernels() const
{
    return analysis("loom::batched::BatchSpmvHandle::kernels").host_kernels;
}

template <typename V, typename I>
void spmv_analyze(BatchSpmvHandle& handle, const matrix::HeteroBatch<V, I>& A)
{
    const auto exec = A.executor();
    auto state = std::make_unique<BatchSpmvState>();
    state->batch = A.layouts().data();
    state->count = A.batch_count();
    const auto row_ptrs = A.row_ptrs().to_host();
    std::vector<int32> kernels;
    std::vector<size_type> csr_i_offsets;
    std::vector<int32> csr_i_rows;
    for (const auto& L : A.host_layouts()) {
        state->max_rows = std::max<size_type>(state->max_rows, L.rows);
        const I* ptrs = row_ptrs.data() + L.row_ptr_offset;
        size_type longest = 0;
        if (L.format == matrix::BatchFormat::csr) {
            for (int32 r = 0; r < L.rows; ++r) longest = std::max<size_type>(longest, ptrs[r + 1] - ptrs[r]);
        }
        const SpmvKernel kernel =
            bsparse::choose_kernel(handle.options().kernel, L.format, L.rows, L.nnz, longest);
        state->host_kernels.push_back(kernel);
        kernels.push_back(static_cast<int32>(kernel));
        if (kernel != SpmvKernel::csr_i) {
            csr_i_offsets.push_back(-1);
            continue;
        }
        // Chunk t starts at entry t * nnz / chunks, in the row holding that entry.
        csr_i_offsets.push_back(static_cast<size_type>(csr_i_rows.size()));
        for (int t = 0; t <= csr_i_chunks; ++t) {
            const size_type entry = L.nnz * t / csr_i_chunks;
            const auto row = std::upper_bound(ptrs, ptrs + L.rows + 1, static_cast<I>(entry)) - ptrs - 1;
            csr_i_rows.push_back(static_cast<int32>(std::clamp<size_type>(row, 0, std::max(L.rows - 1, 0))));
        }
    }
    state->kernels = Array<int32>(exec, kernels);
    state->csr_i_offsets = Array<size_type>(exec, csr_i_offsets);
    state->csr_i_rows = Array<int32>(exec, csr_i_rows);
    handle.adopt(std::move(state));
}

template <typename V, typename I>
void spmv(V alpha, const matrix::BatchCsr<V, I>& A, const matrix::BatchDense<V>& x, V beta,
          matrix::BatchDense<V>& y)
{
    constexpr const char* where = "loom::batched::spmv";
    bsparse::check_columns(where, A.batch_count(), A.size(), x, y, *A.executor());
    bsparse::run_spmv_csr(where, *A.executor(), alpha, A, x, beta, y);
}

template <typename V, typename I>
void spmv(V alpha, const matrix::BatchEll<V, I>& A, const matrix::BatchDense<V>& x, V beta,
          matrix::BatchDense<V>& y)
{
    constexpr const char* where = "loom::batched::spmv";
    bsparse::check_columns(where, A.batch_count(), A.size(), x, y, *A.executor());
    bsparse::run_spmv_ell(where, *A.executor(), alpha, A, x, beta, y);
}

template <typename V, typename I>
void spmv(BatchSpmvHandle& handle, V alpha, const matrix::HeteroBatch<V, I>& A,
          const Array<V>& x, V beta, Array<V>& y)
{
    constexpr const char* where = "loom::batched::spmv";
    bsparse::check_pooled(where, A, x, y, "x", "y");
    if (!handle.analyzed()) spmv_analyze(handle, A);
    const BatchSpmvState& plan = *handle.state();
    if (plan.batch != A.layouts().data() || plan.count != A.batch_count()) {
        throw BadInput(where, "the handle holds the analysis of another batch");
    }
    bsparse::run_spmv_hetero(where, *A.executor(), plan, alpha, A, x, beta, y);
}

// ------------------------------------------------------------------------ Krylov

size_type solve_workspace(const KrylovOptions& options, size_type n)
{
    return bsparse::precond_storage(options.precond, n, options.block_size) +
           krylov_workspace(options.method, n, options.restart);
}

template <typename V>
KrylovHandle<V>::KrylovHandle(std::shared_ptr<const Executor> exec, KrylovOptions options)
    : exec_(std::move(exec)), options_(options), workspace_(exec_, 0), offsets_(exec_, 0),
      outcomes_(exec_, 0)
{}

namespace {
/// One field of every system's outcome, in batch order.
template <typename T>
std::vector<T> field_of(const std::vector<KrylovOutcome>& outcomes, T KrylovOutcome::*field)
{
    std::vector<T> result;
    result.reserve(outcomes.size());
    for (const auto& outcome : outcomes) result.push_back(outcome.*field);
    return result;
}
}  // namespace

template <typename V>
std::vector<int32> KrylovHandle<V>::iterations() const
{
    return field_of(outcomes(), &KrylovOutcome::iterations);
}

template <typename V>
std::vector<double> KrylovHandle<V>::residuals() const
{
    return field_of(outcomes(), &KrylovOutcome::residual);
}

template <typename V>
std::vector<KrylovStatus> KrylovHandle<V>::statuses() const
{
    return field_of(outcomes(), &KrylovOutcome::status);
}

template <typename V>
std::vector<size_type> KrylovHandle<V>::not_converged() const
{
    std::vector<size_type> result;
    const auto all = outcomes();
    for (size_type b = 0; b < static_cast<size_type>(all.size()); ++b) {
        if (all[b].status != KrylovStatus::converged) result.push_back(b);
    }
    return result;
}

template <typename V>
void KrylovHandle<V>::prepare(const std::vector<size_type>& offsets)
{
    const size_type total = offsets.empty() ? 0 : offsets.back();
    // The workspace only grows: a handle reused for batches of one shape allocates once.
    if (workspace_.size() < total) workspace_ = Array<V>(exec_, total);
    offsets_ = Array<size_type>(exec_, offsets);
    outcomes_.resize_and_reset(offsets.empty() ? 0 : static_cast<size_type>(offsets.size()) - 1);
}

namespace bsparse {
namespace {

template <typename V>
SolveTarget<V> prepare_solve(KrylovHandle<V>& handle, const char* where, const Executor& exec,
                             const std::vector<size_type>& rows)
{
    check_solve_options<V>(where, handle.options());
    if (!handle.executor() || !handle.executor()->same_memory_as(exec)) {
        throw BadInput(where, "the handle does not live in the memory of the matrices' executor");
    }
    std::vector<size_type> offsets{0};
    for (size_type n : rows) offsets.push_back(offsets.back() + solve_workspace(handle.options(), n));
    handle.prepare(offsets);
    return {handle.workspace().data(), handle.offsets().data(), handle.outcome_array().data()};
}

template <typename V, typename Batch>
SolveTarget<V> prepare_shared(KrylovHandle<V>& handle, const char* where, const Batch& A,
                              const BatchDense<V>& b, BatchDense<V>& x)
{
    if (A.rows() != A.cols()) {
        throw BadInput(where, "the batch's matrices are not square: " + std::to_string(A.rows()) +
                                  " x " + std::to_string(A.cols()));
    }
    check_columns(where, A.batch_count(), A.size(), b, x, *A.executor());
    return prepare_solve(handle, where, *A.executor(),
                         std::vector<size_type>(static_cast<std::size_t>(A.batch_count()), A.rows()));
}

}  // namespace
}  // namespace bsparse

template <typename V, typename I>
void solve(KrylovHandle<V>& handle, const matrix::BatchCsr<V, I>& A, const matrix::BatchDense<V>& b,
           matrix::BatchDense<V>& x)
{
    constexpr const char* where = "loom::batched::solve";
    const auto target = bsparse::prepare_shared(handle, where, A, b, x);
    bsparse::run_solve_csr(where, *A.executor(), handle.options(), A, b, x, target);
}

template <typename V, typename I>
void solve(KrylovHandle<V>& handle, const matrix::BatchEll<V, I>& A, const matrix::BatchDense<V>& b,
           matrix::BatchDense<V>& x)
{
    constexpr const char* where = "loom::batched::solve";
    const auto target = bsparse::prepare_shared(handle, where, A, b, x);
    bsparse::run_solve_ell(where, *A.executor(), handle.options(), A, b, x, target);
}

template <typename V, typename I>
void solve(KrylovHandle<V>& handle, const matrix::HeteroBatch<V, I>& A, const Array<V>& b,
           Array<V>& x)
{
    constexpr const char* where = "loom::batched::solve";
    std::vector<size_type> rows;
    for (size_type e = 0; e < A.batch_count(); ++e) {
        const auto& L = A.host_layouts()[e];
        if (L.rows != L.cols) {
            throw BadInput(where, bsparse::entry_name(e) + " is not square: " + std::to_string(L.rows) +
                                      " x " + std::to_string(L.cols));
        }
        rows.push_back(L.rows);
    }
    bsparse::check_pooled(where, A, x, b, "x", "b");
    const auto target = bsparse::prepare_solve(handle, where, *A.executor(), rows);
    bsparse::run_solve_hetero(where, *A.executor(), handle.options(), A, b, x, target);
}

template <typename V, typename I>
void solve_vendor_qr(const matrix::BatchCsr<V, I>& A, const matrix::BatchDense<V>& b,
                     matrix::BatchDense<V>& x)
{
    constexpr const char* where = "loom::batched::solve_vendor_qr";
    if (A.rows() != A.cols()) {
        throw BadInput(where, "the batch's matrices are not square: " + std::to_string(A.rows()) +
                                  " x " + std::to_string(A.cols()));
    }
    bsparse::check_columns(where, A.batch_count(), A.size(), b, x, *A.executor());
    for (const auto* v : {&b, static_cast<const matrix::BatchDense<V>*>(&x)}) {
        if (v->stride() != 1 || v->batch_stride() != A.rows()) {
            throw NotSupported(where, "cuSOLVER takes the systems' vectors one after the other");
        }
    }
    const auto host_only = [&] {
        throw NotSupported(where, "cuSOLVER's batched QR runs on CUDA executors only");
    };
    A.executor()->run(loom::detail::overloaded{
        [&](const ReferenceExecutor&) { host_only(); },
        [&](const OmpExecutor&) { host_only(); },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(where, bsparse::cuda::solve_vendor_qr(e, A, b, x));
        }});
}

#define LOOM_INSTANTIATE_BATCH_SPARSE_FRONT(V, I)                                              \
    template void spmv_analyze(BatchSpmvHandle&, const matrix::HeteroBatch<V, I>&);            \
    template void spmv(V, const matrix::BatchCsr<V, I>&, const matrix::BatchDense<V>&, V,      \
                       matrix::BatchDense<V>&);                                                \
    template void spmv(V, const matrix::BatchEll<V, I>&, const matrix::BatchDense<V>&, V,      \
                       matrix::BatchDense<V>&);                                                \
    template void spmv(BatchSpmvHandle&, V, const matrix::HeteroBatch<V, I>&, const Array<V>&, \
                       V, Array<V>&);                                                          \
    template void solve(KrylovHandle<V>&, const matrix::BatchCsr<V, I>&,                       \
                        const matrix::BatchDense<V>&, matrix::BatchDense<V>&);                 \
    template void solve(KrylovHandle<V>&, const matrix::BatchEll<V, I>&,                       \
                        const matrix::BatchDense<V>&, matrix::BatchDense<V>&);                 \
    template void solve(KrylovHandle<V>&, const matrix::HeteroBatch<V, I>&, const Array<V>&,   \
                        Array<V>&);                                                            \
    template void solve_vendor_qr(const matrix::BatchCsr<V, I>&, const matrix::BatchDense<V>&, \
                                  matrix::BatchDense<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BATCH_SPARSE_FRONT)
#define LOOM_INSTANTIATE_KRYLOV_HANDLE(V) template class KrylovHandle<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_KRYLOV_HANDLE)

}  // namespace loom::batched
