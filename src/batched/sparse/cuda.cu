// Batched sparse on CUDA: the SpMV kernels, and the solve entry points, which pick the kernel
// of the call's method and preconditioner (cuda_solve.cuh, instantiated in cuda_solve_*.cu).
// Shared-pattern CSR SpMV has its own kernel (shared_pattern_spmv below); ELL SpMV is the
// team launch of drivers.hpp. The heterogeneous SpMV has its own kernel: a block per matrix
// (grid-stride over the batch), x staged in shared memory when it fits, and per matrix the
// kernel its analysis chose (kernels.hpp):
//   csr_scalar/csr_vector/csr_smart  slices of W = 1 / 32 / the matrix's width lanes per row,
//                                     summed by shuffles; every thread of the block loops the
//                                     same number of times, so whole warps shuffle together
//   csr_i    the block's 256 threads take equal runs of entries from the row the analysis
//            found for each, adding the sums of rows they leave to y by atomics
//   coo      equal runs of (row-sorted) entries per thread, a segment per row, atomics at
//            segment ends
//   ell      a thread per row, slot after slot (consecutive rows are consecutive in memory)
//   hybrid   the ELL part as ell (writing y), then the COO part as coo (adding to it)
#include "base/cuda/launch.cuh"
#include "base/cuda/parallel.cuh"
#include "base/cuda/warp.cuh"
#include "base/instantiate.hpp"
#include "batched/sparse/drivers.hpp"

namespace loom::batched::bsparse::cuda {

namespace {

/// Threads of a shared-pattern SpMV block.
constexpr int shared_spmv_block = 256;
/// Shared memory a shared-pattern SpMV block may take (the pattern, and per matrix of a pass
/// its values and x): 96 KB keeps two blocks per multiprocessor.
constexpr size_type shared_spmv_bytes = 96 * 1024;

template <typename T, typename I>
struct SharedSpmvArgs {
    SharedCsr<T, I> A;
    ColumnVectors<const T> x;
    ColumnVectors<T> y;
    T alpha;
    T beta;
    bool overwrite;  ///< beta is zero: y is written, not read
    int per_pass;    ///< matrices a block runs together
};

/// Where a shared-pattern SpMV block keeps things in shared memory: the pattern (read once
/// per block), then per matrix of a pass its values and x.
struct SharedSpmvLayout {
    size_type values;  ///< byte offsets
    size_type xs;
    size_type col_idxs;
    size_type bytes;

    template <typename T, typename I>
    __host__ __device__ static SharedSpmvLayout of(int rows, int cols, size_type nnz, int per_pass)
    {
        const auto align = [](size_type bytes) { return (bytes + 15) / 16 * 16; };
        SharedSpmvLayout L{};
        L.values = align((rows + 1) * static_cast<size_type>(sizeof(I)));
        L.xs = L.values + align(per_pass * nnz * static_cast<size_type>(sizeof(T)));
        L.col_idxs = L.xs + align(per_pass * static_cast<size_type>(cols) * sizeof(T));
        L.bytes = L.col_idxs + align(nnz * static_cast<size_type>(sizeof(I)));
        return L;
    }
};

/// bytes from src to shared dst by the block, in the widest loads both allow (16 bytes for a
/// shared-pattern batch's value sets in the common case).
__device__ void copy_to_shared(void* dst, const void* src, size_type bytes)
{
    const auto address = reinterpret_cast<std::uintptr_t>(src);
    if ((address | static_cast<std::uintptr_t>(bytes)) % 16 == 0) {
        for (size_type k = threadIdx.x; k < bytes / 16; k += blockDim.x) {
            static_cast<int4*>(dst)[k] = static_cast<const int4*>(src)[k];
        }
    } else if ((address | static_cast<std::uintptr_t>(bytes)) % 8 == 0) {
        for (size_type k = threadIdx.x; k < bytes / 8; k += blockDim.x) {
            static_cast<int2*>(dst)[k] = static_cast<const int2*>(src)[k];
        }
    } else {
        for (size_type k = threadIdx.x; k < bytes / 4; k += blockDim.x) {
            static_cast<int*>(dst)[k] = static_cast<const int*>(src)[k];
        }
    }
}

/// y_b = alpha A_b x_b + beta y_b for a batch sharing one CSR pattern. A block loads the
/// pattern into shared memory once, then runs passes of per_pass consecutive matrices
/// (grid-stride over the batch): their value sets (contiguous in the batch) and x staged in
/// shared memory by wide coalesced loads, then a thread per (matrix, row) of the pass.
template <typename T, typename I>
__global__ void __launch_bounds__(shared_spmv_block)
    shared_pattern_spmv(size_type count, SharedSpmvArgs<T, I> a)
{
    extern __shared__ __align__(16) unsigned char shared[];
    const int rows = a.A.rows;
    const int cols = a.A.cols;
    const size_type nnz = a.A.nnz;
    const auto L = SharedSpmvLayout::of<T, I>(rows, cols, nnz, a.per_pass);
    I* ptrs = reinterpret_cast<I*>(shared);
    T* values = reinterpret_cast<T*>(shared + L.values);
    T* xs = reinterpret_cast<T*>(shared + L.xs);
    I* col_idxs = reinterpret_cast<I*>(shared + L.col_idxs);
    for (int r = threadIdx.x; r <= rows; r += blockDim.x) ptrs[r] = a.A.row_ptrs[r];
    for (size_type k = threadIdx.x; k < nnz; k += blockDim.x) col_idxs[k] = a.A.col_idxs[k];
    const size_type passes = (count + a.per_pass - 1) / a.per_pass;
    for (size_type pass = blockIdx.x; pass < passes; pass += gridDim.x) {
        const size_type first = pass * a.per_pass;
        const int matrices = static_cast<int>(min(static_cast<size_type>(a.per_pass), count - first));
        copy_to_shared(values, a.A.values + first * nnz, matrices * nnz * static_cast<size_type>(sizeof(T)));
        for (int i = threadIdx.x; i < matrices * cols; i += blockDim.x) {
            xs[i] = a.x.data[(first + i / cols) * a.x.batch_stride + (i % cols) * a.x.stride];
        }
        __syncthreads();
        for (int item = threadIdx.x; item < matrices * rows; item += blockDim.x) {
            const int m = item / rows;
            const int r = item % rows;
            const T* v = values + m * nnz;
            const T* x = xs + m * cols;
            T sum(0);
            for (I k = ptrs[r]; k < ptrs[r + 1]; ++k) sum += v[k] * x[col_idxs[k]];
            T& y = a.y.data[(first + m) * a.y.batch_stride + r * a.y.stride];
            y = a.overwrite ? T(a.alpha * sum) : T(a.alpha * sum + a.beta * y);
        }
        // The next pass restages values and x.
        __syncthreads();
    }
}

constexpr int hetero_block = csr_i_chunks;
/// Bytes of x a block stages in shared memory, at most.
constexpr size_type x_stage_bytes = 16 * 1024;

template <typename T, typename I>
struct HeteroSpmvArgs {
    const matrix::BatchLayout* layouts;
    const int32* kernels;
    const size_type* csr_i_offsets;
    const int32* csr_i_rows;
    const I* row_ptrs;
    const I* row_idxs;
    const I* col_idxs;
    const T* values;
    const T* x;
    T* y;
    T alpha;
    T beta;
    bool overwrite;  ///< beta is zero: y is written, not read
    int x_capacity;  ///< values of x the shared staging area holds

    __device__ T combine(const T& sum, const T& old) const
    {
        return overwrite ? T(alpha * sum) : T(alpha * sum + beta * old);
    }
};

/// A slice of W lanes per row.
template <int W, typename T, typename I>
__device__ void csr_rows(const HeteroSpmvArgs<T, I>& a, const matrix::BatchLayout& L, const T* x,
                         T* y)
{
    const I* ptrs = a.row_ptrs + L.row_ptr_offset;
    const I* cols = a.col_idxs + L.entry_offset;
    const T* values = a.values + L.entry_offset;
    const int lane = threadIdx.x % W;
    const int groups = blockDim.x / W;
    for (int base = 0; base < L.rows; base += groups) {
        const int r = base + static_cast<int>(threadIdx.x) / W;
        T sum(0);
        if (r < L.rows) {
            for (I k = ptrs[r] + lane; k < ptrs[r + 1]; k += W) sum += values[k] * x[cols[k]];
        }
        sum = ::loom::cuda::warp_sum<W>(sum);
        if (r < L.rows && lane == 0) y[r] = a.combine(sum, y[r]);
    }
}

/// The smallest power of two at least the mean row length, at most 32.
__device__ int smart_width(const matrix::BatchLayout& L)
{
    const size_type mean = L.rows == 0 ? 0 : (L.nnz + L.rows - 1) / L.rows;
    int width = 1;
    while (width < mean && width < 32) width *= 2;
    return width;
}

template <typename T, typename I>
__device__ void csr_smart(const HeteroSpmvArgs<T, I>& a, const matrix::BatchLayout& L, const T* x,
                          T* y)
{
    switch (smart_width(L)) {
    case 1: return csr_rows<1>(a, L, x, y);
    case 2: return csr_rows<2>(a, L, x, y);
    case 4: return csr_rows<4>(a, L, x, y);
    case 8: return csr_rows<8>(a, L, x, y);
    case 16: return csr_rows<16>(a, L, x, y);
    default: return csr_rows<32>(a, L, x, y);
    }
}

/// y := beta y (or 0) by the block, before atomics add to it.
template <typename T, typename I>
__device__ void scale_rows(const HeteroSpmvArgs<T, I>& a, int rows, T* y)
{
    for (int r = threadIdx.x; r < rows; r += blockDim.x) y[r] = a.overwrite ? T(0) : T(a.beta * y[r]);
    __syncthreads();
}

template <typename T, typename I>
__device__ void csr_i(const HeteroSpmvArgs<T, I>& a, size_type b, const matrix::BatchLayout& L,
                      const T* x, T* y)
{
    scale_rows(a, L.rows, y);
    const I* ptrs = a.row_ptrs + L.row_ptr_offset;
    const I* cols = a.col_idxs + L.entry_offset;
    const T* values = a.values + L.entry_offset;
    const size_type nnz = L.nnz;
    const int t = threadIdx.x;
    const size_type first = nnz * t / csr_i_chunks;
    const size_type last = nnz * (t + 1) / csr_i_chunks;
    if (first >= last) return;
    int row = a.csr_i_rows[a.csr_i_offsets[b] + t];
    T sum(0);
    for (size_type k = first; k < last; ++k) {
        while (ptrs[row + 1] <= k) {
            ::loom::cuda::atomic_add(y + row, T(a.alpha * sum));
            sum = T(0);
            ++row;
        }
        sum += values[k] * x[cols[k]];
    }
    ::loom::cuda::atomic_add(y + row, T(a.alpha * sum));
}

/// Equal runs of a row-sorted COO part per thread, added to y (already scaled).
template <typename T, typename I>
__device__ void coo_segments(const HeteroSpmvArgs<T, I>& a, const matrix::BatchLayout& L,
                             const T* x, T* y)
{
    const I* rows = a.row_idxs + L.coo_offset;
    const I* cols = a.col_idxs + L.coo_offset;
    const T* values = a.values + L.coo_offset;
    const size_type first = L.coo_nnz * threadIdx.x / blockDim.x;
    const size_type last = L.coo_nnz * (threadIdx.x + 1) / blockDim.x;
    if (first >= last) return;
    I row = rows[first];
    T sum(0);
    for (size_type k = first; k < last; ++k) {
        if (rows[k] != row) {
            ::loom::cuda::atomic_add(y + row, T(a.alpha * sum));
            sum = T(0);
            row = rows[k];
        }
        sum += values[k] * x[cols[k]];
    }
    ::loom::cuda::atomic_add(y + row, T(a.alpha * sum));
}

template <typename T, typename I>
__device__ void ell_rows(const HeteroSpmvArgs<T, I>& a, const matrix::BatchLayout& L, const T* x,
                         T* y)
{
    const I* cols = a.col_idxs + L.entry_offset;
    const T* values = a.values + L.entry_offset;
    for (int r = threadIdx.x; r < L.rows; r += blockDim.x) {
        T sum(0);
        for (int s = 0; s < L.ell_width; ++s) {
            const size_type k = static_cast<size_type>(s) * L.rows + r;
            if (cols[k] >= 0) sum += values[k] * x[cols[k]];
        }
        y[r] = a.combine(sum, y[r]);
    }
}

template <typename T, typename I>
__global__ void __launch_bounds__(hetero_block)
    hetero_spmv_kernel(size_type count, HeteroSpmvArgs<T, I> a)
{
    extern __shared__ __align__(16) unsigned char staged_x[];
    T* xs = reinterpret_cast<T*>(staged_x);
    for (size_type b = blockIdx.x; b < count; b += gridDim.x) {
        const matrix::BatchLayout L = a.layouts[b];
        const T* xg = a.x + L.x_offset;
        T* y = a.y + L.y_offset;
        const bool staged = L.cols <= a.x_capacity;
        if (staged) {
            for (int i = threadIdx.x; i < L.cols; i += blockDim.x) xs[i] = xg[i];
        }
        __syncthreads();
        const T* x = staged ? xs : xg;
        switch (static_cast<SpmvKernel>(a.kernels[b])) {
        case SpmvKernel::csr_scalar: csr_rows<1>(a, L, x, y); break;
        case SpmvKernel::csr_vector: csr_rows<32>(a, L, x, y); break;
        case SpmvKernel::csr_i: csr_i(a, b, L, x, y); break;
        case SpmvKernel::coo:
            scale_rows(a, L.rows, y);
            coo_segments(a, L, x, y);
            break;
        case SpmvKernel::ell: ell_rows(a, L, x, y); break;
        case SpmvKernel::hybrid:
            ell_rows(a, L, x, y);
            __syncthreads();
            coo_segments(a, L, x, y);
            break;
        default: csr_smart(a, L, x, y); break;
        }
        // The next matrix restages x.
        __syncthreads();
    }
}

}  // namespace

template <typename V, typename I>
void spmv_hetero(const CudaExecutor& exec, const BatchSpmvState& plan, V alpha,
                 const HeteroBatch<V, I>& A, const Array<V>& x, V beta, Array<V>& y)
{
    using T = kernel_t<CudaExecutor, V>;
    const size_type count = A.batch_count();
    if (count == 0) return;
    size_type max_cols = 0;
    for (const auto& layout : A.host_layouts()) max_cols = std::max<size_type>(max_cols, layout.cols);
    const auto capacity = static_cast<int>(
        std::min<size_type>(max_cols, x_stage_bytes / static_cast<size_type>(sizeof(T))));
    const HeteroSpmvArgs<T, I> args{A.layouts().data(),
                                    plan.kernels.data(),
                                    plan.csr_i_offsets.data(),
                                    plan.csr_i_rows.data(),
                                    A.row_ptrs().data(),
                                    A.row_idxs().data(),
                                    A.col_idxs().data(),
                                    loom::detail::kernel_data(exec, A.values().data()),
                                    loom::detail::kernel_data(exec, x.data()),
                                    loom::detail::kernel_data(exec, y.data()),
                                    T(alpha),
                                    T(beta),
                                    beta == V(0),
                                    capacity};
    const unsigned blocks = ::loom::cuda::grid_for(count, 1);
    hetero_spmv_kernel<<<blocks, hetero_block, capacity * sizeof(T), ::loom::cuda::stream_of(exec)>>>(
        count, args);
    ::loom::cuda::check_launch("loom::batched::spmv");
}

template <typename V, typename I>
void spmv_csr(const CudaExecutor& exec, V alpha, const BatchCsr<V, I>& A, const BatchDense<V>& x,
              V beta, BatchDense<V>& y)
{
    using T = kernel_t<CudaExecutor, V>;
    constexpr const char* where = "loom::batched::spmv";
    const size_type count = A.batch_count();
    if (count == 0) return;
    // Matrices per pass: enough to give every thread of the block a row.
    const int per_pass = static_cast<int>(std::clamp<size_type>(
        shared_spmv_block / std::max<size_type>(1, A.rows()), 1, count));
    const auto L = SharedSpmvLayout::of<T, I>(static_cast<int>(A.rows()), static_cast<int>(A.cols()),
                                              A.nnz(), per_pass);
    if (L.bytes > shared_spmv_bytes) {
        // A pattern too large for shared memory: the team launch (a block per matrix).
        spmv_teams(exec, count, A.rows(), A.cols(), lanes_of(A), matrices_of(exec, A),
                   vectors_of(exec, x), vectors_of(exec, y), alpha, beta);
        return;
    }
    const SharedSpmvArgs<T, I> args{matrices_of(exec, A),
                                    vectors_of(exec, x),
                                    vectors_of(exec, y),
                                    loom::detail::kernel_value(exec, alpha),
                                    loom::detail::kernel_value(exec, beta),
                                    beta == V(0),
                                    per_pass};
    const auto kernel = shared_pattern_spmv<T, I>;
    const auto bytes = static_cast<int>(L.bytes);
    const CudaExecutor::DeviceScope scope(exec.device_id());
    if (bytes > 48 * 1024) {
        LOOM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), where);
    }
    // As many blocks as stay resident: each loads the pattern once and runs its share of the
    // batch through it.
    int per_sm = 0;
    LOOM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, shared_spmv_block, L.bytes), where);
    const unsigned blocks = ::loom::cuda::grid_for(exec, (count + per_pass - 1) / per_pass, 1, std::max(1, per_sm));
    kernel<<<blocks, shared_spmv_block, L.bytes, ::loom::cuda::stream_of(exec)>>>(count, args);
    ::loom::cuda::check_launch(where);
}

/// Calls solve.template operator()<M, P>() with the method and preconditioner of options.
template <typename Solve>
void with_solver(const KrylovOptions& options, const Solve& solve)
{
    const auto with_precond = [&]<KrylovMethod M>() {
        switch (options.precond) {
        case BatchPrecond::none: return solve.template operator()<M, BatchPrecond::none>();
        case BatchPrecond::jacobi: return solve.template operator()<M, BatchPrecond::jacobi>();
        case BatchPrecond::block_jacobi: break;
        }
        solve.template operator()<M, BatchPrecond::block_jacobi>();
    };
    switch (options.method) {
    case KrylovMethod::cg: return with_precond.template operator()<KrylovMethod::cg>();
    case KrylovMethod::bicgstab: return with_precond.template operator()<KrylovMethod::bicgstab>();
    case KrylovMethod::gmres: return with_precond.template operator()<KrylovMethod::gmres>();
    case KrylovMethod::richardson: break;
    }
    with_precond.template operator()<KrylovMethod::richardson>();
}

template <typename V, typename I>
void spmv_ell(const CudaExecutor& exec, V alpha, const BatchEll<V, I>& A, const BatchDense<V>& x,
              V beta, BatchDense<V>& y)
{
    spmv_shared(exec, alpha, A, x, beta, y);
}

template <typename V, typename I>
void solve_csr(const CudaExecutor& exec, const KrylovOptions& options, const BatchCsr<V, I>& A,
               const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    with_solver(options, [&]<KrylovMethod M, BatchPrecond P>() {
        solve_csr_as<M, P>(exec, options, A, b, x, target);
    });
}
template <typename V, typename I>
void solve_ell(const CudaExecutor& exec, const KrylovOptions& options, const BatchEll<V, I>& A,
               const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    with_solver(options, [&]<KrylovMethod M, BatchPrecond P>() {
        solve_ell_as<M, P>(exec, options, A, b, x, target);
    });
}
template <typename V, typename I>
void solve_hetero(const CudaExecutor& exec, const KrylovOptions& options,
                  const HeteroBatch<V, I>& A, const Array<V>& b, Array<V>& x,
                  SolveTarget<V> target)
{
    with_solver(options, [&]<KrylovMethod M, BatchPrecond P>() {
        solve_hetero_as<M, P>(exec, options, A, b, x, target);
    });
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_BATCH_SPARSE_KERNELS, CudaExecutor)

}  // namespace loom::batched::bsparse::cuda
