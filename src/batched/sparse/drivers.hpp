// The batched sparse launches written once for every backend: a team per matrix (or system)
// through launch::team_parallel_for, running the team-level routines of
// loom/batched/sparse/team_*.hpp in TeamVector mode. The reference and OpenMP backends
// instantiate them with their executor (a team is one thread there); cuda.cu with the CUDA
// executor, where a team is a thread block whose threads take rows and whose vector lanes a
// row's entries (the CSR-smart width of the batch's mean row length). The namespace team
// at the end holds the entry points made of them.
#pragma once

#include <algorithm>
#include <type_traits>

#include "base/parallel.hpp"
#include "batched/sparse/kernels.hpp"
#include "loom/launch/team.hpp"

namespace loom::batched::bsparse {

template <typename Exec, typename T>
using kernel_t = loom::detail::kernel_type_t<Exec, T>;

/// Lanes per row of the CUDA launches: the smallest power of two at least the mean row length
/// (at most 32), so that a row's lanes read its consecutive entries together (CSR-smart); 1 for
/// ELL, whose slots are strided by the row count.
inline int lanes_per_row(size_type rows, size_type nnz)
{
    const size_type mean = rows == 0 ? 0 : (nnz + rows - 1) / rows;
    int lanes = 1;
    while (lanes < mean && lanes < 32) lanes *= 2;
    return lanes;
}

/// The team of a matrix of `rows` rows: one thread on the host; on CUDA up to 128 threads
/// (systems of a few hundred rows keep several teams per multiprocessor), at least a warp,
/// `lanes` of them per row.
inline launch::TeamPolicy team_policy(const ReferenceExecutor&, size_type count, size_type, int)
{
    return {count, 1, 1};
}
inline launch::TeamPolicy team_policy(const OmpExecutor&, size_type count, size_type, int)
{
    return {count, 1, 1};
}
inline launch::TeamPolicy team_policy(const CudaExecutor&, size_type count, size_type rows,
                                      int lanes)
{
    int threads = 32;
    while (threads < rows * lanes && threads < 128) threads *= 2;
    return {count, threads / lanes, lanes};
}

/// The matrices of a shared-pattern CSR batch, as a view per matrix.
template <typename T, typename I>
struct SharedCsr {
    int rows;
    int cols;
    size_type nnz;
    const I* row_ptrs;
    const I* col_idxs;
    const T* values;

    LOOM_HOST_DEVICE CsrView<T, I> operator()(size_type b) const
    {
        return {rows, cols, row_ptrs, col_idxs, values + b * nnz};
    }
};

template <typename T, typename I>
struct SharedEll {
    int rows;
    int cols;
    int width;
    const I* col_idxs;
    const T* values;

    LOOM_HOST_DEVICE EllView<T, I> operator()(size_type b) const
    {
        return {rows, cols, width, rows, col_idxs, values + b * width * static_cast<size_type>(rows)};
    }
};

template <typename T, typename I>
struct HeteroMatrices {
    const matrix::BatchLayout* layouts;
    const I* row_ptrs;
    const I* row_idxs;
    const I* col_idxs;
    const T* values;

    LOOM_HOST_DEVICE LayoutView<T, I> operator()(size_type b) const
    {
        return {layouts[b], row_ptrs, row_idxs, col_idxs, values};
    }
};

/// Vectors of a BatchDense of n x 1 columns (T may be const).
template <typename T>
struct ColumnVectors {
    T* data;
    size_type stride;
    size_type batch_stride;

    template <typename MatrixV>
    LOOM_HOST_DEVICE VectorView<T> input(size_type b, const MatrixV& A) const
    {
        return {data + b * batch_stride, A.cols(), stride};
    }
    template <typename MatrixV>
    LOOM_HOST_DEVICE VectorView<T> output(size_type b, const MatrixV& A) const
    {
        return {data + b * batch_stride, A.rows(), stride};
    }
};

/// Vectors pooled in one array at the offsets of a heterogeneous batch's layouts.
template <typename T>
struct PooledVectors {
    T* data;
    const matrix::BatchLayout* layouts;

    template <typename MatrixV>
    LOOM_HOST_DEVICE VectorView<T> input(size_type b, const MatrixV& A) const
    {
        return {data + layouts[b].x_offset, A.cols()};
    }
    template <typename MatrixV>
    LOOM_HOST_DEVICE VectorView<T> output(size_type b, const MatrixV& A) const
    {
        return {data + layouts[b].y_offset, A.rows()};
    }
};

/// Bytes of x a team stages in its scratch (shared memory on CUDA), at most: x is read once
/// per entry, so a team copies it in once and reads it from there.
constexpr size_type x_stage_bytes = 16 * 1024;

template <typename Matrices, typename XVectors, typename YVectors, typename T>
struct SpmvTeams {
    Matrices A;
    XVectors x;
    YVectors y;
    T alpha;
    T beta;
    bool stage_x;  ///< the launch's scratch holds every matrix's x

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& member) const
    {
        const size_type b = member.league_rank();
        const auto Ab = A(b);
        const auto xb = x.input(b, Ab);
        const auto yb = y.output(b, Ab);
        const auto par = detail::make_par<Mode::TeamVector>(member);
        T* staged = stage_x ? member.template team_scratch<T>(Ab.cols()) : nullptr;
        if (staged == nullptr) {
            detail::spmv(par, alpha, Ab, xb, beta, yb);
            return;
        }
        par.flat(Ab.cols(), [&](int i) { staged[i] = xb(i); });
        par.barrier();
        // (The launcher makes a team's successor on the same threads wait before restaging.)
        detail::spmv(par, alpha, Ab, VectorView<const T>(staged, Ab.cols()), beta, yb);
    }
};

/// A solver kind fixed at compile time, or any_kind: read at run time.
inline constexpr int any_kind = -1;

/// Kind as an E when fixed, else run_time.
template <int Kind, typename E>
LOOM_HOST_DEVICE LOOM_INLINE constexpr E fixed_or(E run_time)
{
    if constexpr (Kind == any_kind) {
        return run_time;
    } else {
        return static_cast<E>(Kind);
    }
}

/// Block Jacobi's setup (cuda_solve.cuh runs it out of line: the inversion is long and runs
/// once per solve).
template <typename Par, typename MatrixV, typename T>
LOOM_HOST_DEVICE int invert_blocks(const Par& par, const MatrixV& A, int block_size, T* inv_blocks)
{
    return detail::block_jacobi_setup(par, A, block_size, inv_blocks);
}

/// The preconditioner of a solve. Kind (a BatchPrecond) fixes it at compile time, so the
/// solver kernel holds that one preconditioner's code (the CUDA solves: a kernel carrying the
/// other two runs about 3x slower); any_kind reads `kind` at run time (the host backends, one
/// solver body for the three).
template <typename T, int Kind = any_kind>
struct SolvePrec {
    BatchPrecond kind;
    T* data;
    int block_size;

    LOOM_HOST_DEVICE LOOM_INLINE BatchPrecond which() const { return fixed_or<Kind>(kind); }
    /// Sets the preconditioner up for A; nonzero when it cannot be.
    template <typename Par, typename MatrixV>
    LOOM_HOST_DEVICE int setup(const Par& par, const MatrixV& A) const
    {
        switch (which()) {
        case BatchPrecond::jacobi: return detail::jacobi_setup(par, A, data);
        case BatchPrecond::block_jacobi: return invert_blocks(par, A, block_size, data);
        case BatchPrecond::none: break;
        }
        return 0;
    }
    template <typename Par, typename VR, typename VZ>
    LOOM_HOST_DEVICE void apply(const Par& par, const VR& r, const VZ& z) const
    {
        switch (which()) {
        case BatchPrecond::jacobi: return JacobiPrec<T>{data}.apply(par, r, z);
        case BatchPrecond::block_jacobi: return BlockJacobiPrec<T>{data, block_size}.apply(par, r, z);
        case BatchPrecond::none: break;
        }
        IdentityPrec{}.apply(par, r, z);
    }
};

/// Values of a system's solve state: its preconditioner's, its method's and (when staged in
/// team scratch) x.
inline size_type solve_state_values(const KrylovOptions& options, size_type n)
{
    return precond_storage(options.precond, n, options.block_size) +
           krylov_workspace(options.method, n, options.restart) + n;
}

/// Bytes of solve state a team keeps in its scratch (shared memory on CUDA), at most: beyond
/// that (GMRES with long restarts, large systems) the state stays in the handle's workspace.
/// 46 KB keeps four teams per multiprocessor and, with the team's reduction slots, stays
/// within the 48 KB a CUDA block has without an opt-in launch attribute.
constexpr size_type solve_scratch_bytes = 46 * 1024;

/// A team per system. Method (a KrylovMethod) and Prec (a BatchPrecond) fix the solver at
/// compile time, or are any_kind. With in_scratch the team keeps the system's solve state
/// and x in its scratch, reading b, A and the initial x from memory and writing x back at the
/// end; else the state lives in the handle's workspace and x in place.
template <typename Matrices, typename BVectors, typename XVectors, typename T,
          int Method = any_kind, int Prec = any_kind>
struct SolveTeams {
    Matrices A;
    BVectors rhs;
    XVectors sol;
    T* workspace;
    const size_type* offsets;
    KrylovOutcome* outcomes;
    KrylovMethod method;
    BatchPrecond precond;
    int block_size;
    KrylovSettings settings;
    bool in_scratch;

    template <typename Member>
    LOOM_HOST_DEVICE void operator()(const Member& member) const
    {
        const size_type b = member.league_rank();
        const auto Ab = A(b);
        const auto bv = rhs.output(b, Ab);
        const VectorView<T> xv = sol.input(b, Ab);
        const int n = Ab.rows();
        const KrylovMethod kind = fixed_or<Method>(method);
        const size_type prec_values = precond_storage(fixed_or<Prec>(precond), n, block_size);
        const size_type work_values = krylov_workspace(kind, n, settings.restart);
        T* state = in_scratch ? member.template team_scratch<T>(prec_values + work_values + n)
                              : workspace + offsets[b];
        const SolvePrec<T, Prec> M{precond, state, block_size};
        T* work = state + prec_values;
        const auto par = detail::make_par<Mode::TeamVector>(member);
        const VectorView<T> x = in_scratch ? VectorView<T>(work + work_values, n) : xv;
        if (in_scratch) {
            par.flat(n, [&](int i) { x(i) = xv(i); });
            par.barrier();
        }
        KrylovOutcome out;
        out.status = KrylovStatus::breakdown;
        // A preconditioner that cannot be set up (a zero diagonal, a singular block) leaves
        // x as it came and reports a breakdown.
        if (M.setup(par, Ab) == 0) out = detail::krylov(par, kind, Ab, M, bv, x, work, settings);
        // The residual reported is the true one, whatever the method stopped on.
        const auto r = detail::work_vector(work, n, 0);
        detail::residual(par, Ab, bv, x, r);
        out.residual = detail::norm2(par, r);
        if (in_scratch) par.flat(n, [&](int i) { xv(i) = x(i); });
        par.single([&] { outcomes[b] = out; });
    }
};

template <typename Exec, typename F>
void launch_teams(const Exec& exec, size_type count, size_type rows, int lanes, const F& functor,
                  size_type scratch_bytes = 0)
{
    if (count == 0) return;
    launch::team_parallel_for(exec, team_policy(exec, count, rows, lanes).set_scratch_bytes(scratch_bytes),
                              functor);
}

/// Lanes per row for each kind of batch.
template <typename V, typename I>
int lanes_of(const BatchCsr<V, I>& A)
{
    return lanes_per_row(A.rows(), A.nnz());
}
template <typename V, typename I>
int lanes_of(const BatchEll<V, I>&)
{
    return 1;
}
template <typename V, typename I>
int lanes_of(const HeteroBatch<V, I>& A)
{
    return lanes_per_row(A.total_rows(), A.total_nnz());
}

template <typename Exec, typename V, typename I>
SharedCsr<kernel_t<Exec, V>, I> matrices_of(const Exec& exec, const BatchCsr<V, I>& A)
{
    return {static_cast<int>(A.rows()), static_cast<int>(A.cols()), A.nnz(), A.row_ptrs().data(),
            A.col_idxs().data(), loom::detail::kernel_data(exec, A.values().data())};
}

template <typename Exec, typename V, typename I>
SharedEll<kernel_t<Exec, V>, I> matrices_of(const Exec& exec, const BatchEll<V, I>& A)
{
    return {static_cast<int>(A.rows()), static_cast<int>(A.cols()), static_cast<int>(A.width()),
            A.col_idxs().data(), loom::detail::kernel_data(exec, A.values().data())};
}

template <typename Exec, typename V, typename I>
HeteroMatrices<kernel_t<Exec, V>, I> matrices_of(const Exec& exec, const HeteroBatch<V, I>& A)
{
    return {A.layouts().data(), A.row_ptrs().data(), A.row_idxs().data(), A.col_idxs().data(),
            loom::detail::kernel_data(exec, A.values().data())};
}

template <typename Exec, typename V>
auto vectors_of(const Exec& exec, const BatchDense<V>& x)
{
    return ColumnVectors<const kernel_t<Exec, V>>{loom::detail::kernel_data(exec, x.data()),
                                                  x.stride(), x.batch_stride()};
}
template <typename Exec, typename V>
auto vectors_of(const Exec& exec, BatchDense<V>& x)
{
    return ColumnVectors<kernel_t<Exec, V>>{loom::detail::kernel_data(exec, x.data()), x.stride(),
                                            x.batch_stride()};
}
template <typename Exec, typename V, typename I>
auto vectors_of(const Exec& exec, const Array<V>& x, const HeteroBatch<V, I>& A)
{
    return PooledVectors<const kernel_t<Exec, V>>{loom::detail::kernel_data(exec, x.data()),
                                                  A.layouts().data()};
}
template <typename Exec, typename V, typename I>
auto vectors_of(const Exec& exec, Array<V>& x, const HeteroBatch<V, I>& A)
{
    return PooledVectors<kernel_t<Exec, V>>{loom::detail::kernel_data(exec, x.data()),
                                            A.layouts().data()};
}

/// max_cols: the widest matrix, whose x decides whether the launch stages x.
template <typename Exec, typename Matrices, typename XVectors, typename YVectors, typename V>
void spmv_teams(const Exec& exec, size_type count, size_type rows, size_type max_cols, int lanes,
                const Matrices& A, const XVectors& x, const YVectors& y, V alpha, V beta)
{
    using T = kernel_t<Exec, V>;
    const size_type x_bytes = max_cols * static_cast<size_type>(sizeof(T));
    const bool stage_x = x_bytes > 0 && x_bytes <= x_stage_bytes;
    launch_teams(exec, count, rows, lanes,
                 SpmvTeams<Matrices, XVectors, YVectors, T>{
                     A, x, y, loom::detail::kernel_value(exec, alpha),
                     loom::detail::kernel_value(exec, beta), stage_x},
                 stage_x ? x_bytes : 0);
}

/// Max rows and max columns over a heterogeneous batch (host layouts).
template <typename V, typename I>
size_type max_rows(const HeteroBatch<V, I>& A)
{
    size_type rows = 0;
    for (const auto& layout : A.host_layouts()) rows = std::max<size_type>(rows, layout.rows);
    return rows;
}
template <typename V, typename I>
size_type max_cols(const HeteroBatch<V, I>& A)
{
    size_type cols = 0;
    for (const auto& layout : A.host_layouts()) cols = std::max<size_type>(cols, layout.cols);
    return cols;
}

/// The team of a solve on the host: one thread, with the state's scratch.
template <typename F>
launch::TeamPolicy solve_policy(const ReferenceExecutor&, size_type count, size_type, int,
                                size_type scratch_bytes, const F&)
{
    return launch::TeamPolicy{count, 1, 1}.set_scratch_bytes(scratch_bytes);
}
template <typename F>
launch::TeamPolicy solve_policy(const OmpExecutor&, size_type count, size_type, int,
                                size_type scratch_bytes, const F&)
{
    return launch::TeamPolicy{count, 1, 1}.set_scratch_bytes(scratch_bytes);
}
/// The team of a CUDA solve, sized from the occupancy of its kernel (cuda_solve.cuh).
template <typename F>
launch::TeamPolicy solve_policy(const CudaExecutor& exec, size_type count, size_type rows,
                                int lanes, size_type scratch_bytes, const F& functor);

/// The matrices as the solver kernels see them: as they are on the host (cuda_solve.cuh
/// wraps them on CUDA).
template <typename Matrices>
const Matrices& solver_matrices(const ReferenceExecutor&, const Matrices& A)
{
    return A;
}
template <typename Matrices>
const Matrices& solver_matrices(const OmpExecutor&, const Matrices& A)
{
    return A;
}

/// rows: the largest system's, which sizes the team and its scratch.
template <int Method, int Prec, typename Exec, typename Matrices, typename BVectors,
          typename XVectors, typename V>
void solve_teams(const Exec& exec, const KrylovOptions& options, size_type count, size_type rows,
                 int lanes, const Matrices& A, const BVectors& b, const XVectors& x,
                 SolveTarget<V> target)
{
    using T = kernel_t<Exec, V>;
    if (count == 0) return;
    KrylovSettings settings;
    settings.max_iterations = options.max_iterations;
    settings.rtol = options.rtol;
    settings.atol = options.atol;
    settings.restart = options.restart;
    settings.modified_gs = options.modified_gs;
    settings.right = options.right;
    settings.relaxation = options.relaxation;
    const size_type state_bytes = solve_state_values(options, rows) * static_cast<size_type>(sizeof(T));
    const bool in_scratch = state_bytes <= solve_scratch_bytes;
    const auto matrices = solver_matrices(exec, A);
    const SolveTeams<std::decay_t<decltype(matrices)>, BVectors, XVectors, T, Method, Prec> functor{
        matrices, b, x, loom::detail::kernel_data(exec, target.workspace), target.offsets,
        target.outcomes, options.method, options.precond, options.block_size, settings,
        in_scratch};
    launch::team_parallel_for(
        exec, solve_policy(exec, count, rows, lanes, in_scratch ? state_bytes : 0, functor),
        functor);
}

/// The SpMV of a shared-pattern batch (BatchCsr, BatchEll): a team per matrix.
template <typename Exec, typename Batch, typename V>
void spmv_shared(const Exec& exec, V alpha, const Batch& A, const BatchDense<V>& x, V beta,
                 BatchDense<V>& y)
{
    spmv_teams(exec, A.batch_count(), A.rows(), A.cols(), lanes_of(A), matrices_of(exec, A),
               vectors_of(exec, x), vectors_of(exec, y), alpha, beta);
}

/// The solve of a shared-pattern batch (BatchCsr, BatchEll) and of a heterogeneous one.
template <int Method, int Prec, typename Exec, typename Batch, typename V>
void solve_shared(const Exec& exec, const KrylovOptions& options, const Batch& A,
                  const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    solve_teams<Method, Prec>(exec, options, A.batch_count(), A.rows(), lanes_of(A),
                              matrices_of(exec, A), vectors_of(exec, b), vectors_of(exec, x),
                              target);
}
template <int Method, int Prec, typename Exec, typename V, typename I>
void solve_pooled(const Exec& exec, const KrylovOptions& options, const HeteroBatch<V, I>& A,
                  const Array<V>& b, Array<V>& x, SolveTarget<V> target)
{
    solve_teams<Method, Prec>(exec, options, A.batch_count(), max_rows(A), lanes_of(A),
                              matrices_of(exec, A), vectors_of(exec, b, A), vectors_of(exec, x, A),
                              target);
}

}  // namespace loom::batched::bsparse

/// The entry points of the backends whose teams are threads (kernels.hpp: reference and OpenMP
/// name them), written once over the executor; CUDA's ELL SpMV is spmv_shared too.
namespace loom::batched::bsparse::team {

template <typename Exec, typename V, typename I>
void spmv_csr(const Exec& exec, V alpha, const BatchCsr<V, I>& A, const BatchDense<V>& x, V beta,
              BatchDense<V>& y)
{
    spmv_shared(exec, alpha, A, x, beta, y);
}
template <typename Exec, typename V, typename I>
void spmv_ell(const Exec& exec, V alpha, const BatchEll<V, I>& A, const BatchDense<V>& x, V beta,
              BatchDense<V>& y)
{
    spmv_shared(exec, alpha, A, x, beta, y);
}
template <typename Exec, typename V, typename I>
void spmv_hetero(const Exec& exec, const BatchSpmvState& plan, V alpha,
                 const HeteroBatch<V, I>& A, const Array<V>& x, V beta, Array<V>& y)
{
    spmv_teams(exec, A.batch_count(), plan.max_rows, max_cols(A), lanes_of(A),
               matrices_of(exec, A), vectors_of(exec, x, A), vectors_of(exec, y, A), alpha, beta);
}

// One solver body per method and kind of batch, the method and preconditioner read at run
// time (cuda.cu picks a kernel per pair instead).
template <typename Exec, typename V, typename I>
void solve_csr(const Exec& exec, const KrylovOptions& options, const BatchCsr<V, I>& A,
               const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    solve_shared<any_kind, any_kind>(exec, options, A, b, x, target);
}
template <typename Exec, typename V, typename I>
void solve_ell(const Exec& exec, const KrylovOptions& options, const BatchEll<V, I>& A,
               const BatchDense<V>& b, BatchDense<V>& x, SolveTarget<V> target)
{
    solve_shared<any_kind, any_kind>(exec, options, A, b, x, target);
}
template <typename Exec, typename V, typename I>
void solve_hetero(const Exec& exec, const KrylovOptions& options, const HeteroBatch<V, I>& A,
                  const Array<V>& b, Array<V>& x, SolveTarget<V> target)
{
    solve_pooled<any_kind, any_kind>(exec, options, A, b, x, target);
}

}  // namespace loom::batched::bsparse::team

#define LOOM_INSTANTIATE_BATCH_SPARSE_KERNELS(Exec, V, I)                                      \
    template void spmv_csr(const Exec&, V, const BatchCsr<V, I>&, const BatchDense<V>&, V,     \
                           BatchDense<V>&);                                                    \
    template void spmv_ell(const Exec&, V, const BatchEll<V, I>&, const BatchDense<V>&, V,     \
                           BatchDense<V>&);                                                    \
    template void spmv_hetero(const Exec&, const BatchSpmvState&, V, const HeteroBatch<V, I>&, \
                              const Array<V>&, V, Array<V>&);                                  \
    template void solve_csr(const Exec&, const KrylovOptions&, const BatchCsr<V, I>&,          \
                            const BatchDense<V>&, BatchDense<V>&, SolveTarget<V>);             \
    template void solve_ell(const Exec&, const KrylovOptions&, const BatchEll<V, I>&,          \
                            const BatchDense<V>&, BatchDense<V>&, SolveTarget<V>);             \
    template void solve_hetero(const Exec&, const KrylovOptions&, const HeteroBatch<V, I>&,    \
                               const Array<V>&, Array<V>&, SolveTarget<V>);
