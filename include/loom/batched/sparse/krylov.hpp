// Front-level batched Krylov solves: every system A_b x_b = b_b of a batch in one launch, on
// the reference, OpenMP and CUDA executors, a team per system running the routines of
// team_krylov.hpp. x holds the initial guesses on entry and the solutions on return.
//
//   loom::batched::KrylovHandle<double> handle(exec, {.method = KrylovMethod::cg});
//   loom::batched::solve(handle, A, b, x);            // A: BatchCsr, BatchEll or HeteroBatch
//   handle.iterations(); handle.residuals(); handle.statuses();
//
// Each system stops on its own (a converged system costs no more work); its iterations, final
// residual ||b - A x|| and status are kept in the handle, which also owns the workspace and is
// reused across calls. A breakdown (a zero pivot, a zero diagonal for Jacobi, a non-positive
// p·Ap in CG) is reported in that system's entry, never thrown; the other systems go on.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/names.hpp"
#include "loom/batched/sparse/batch_csr.hpp"
#include "loom/batched/sparse/hetero_batch.hpp"
#include "loom/batched/sparse/team_krylov.hpp"
#include "loom/matrix/batch_dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::batched {

LOOM_NAME_TABLE(KrylovMethod, krylov_method_names, "batched solver",
    {KrylovMethod::cg, "cg", "conjugate gradients (Hermitian positive definite)"},
    {KrylovMethod::bicgstab, "bicgstab", "BiCGSTAB"},
    {KrylovMethod::gmres, "gmres", "restarted GMRES"},
    {KrylovMethod::richardson, "richardson", "preconditioned Richardson iteration", {"ir"}},
);

LOOM_NAME_TABLE(KrylovStatus, krylov_status_names, "batched solve status",
    {KrylovStatus::converged, "converged", "reached the tolerance"},
    {KrylovStatus::max_iterations, "max-iterations", "ran out of iterations"},
    {KrylovStatus::breakdown, "breakdown", "a zero or non-finite pivot"},
);

/// The preconditioner of a batched solve, set up per system inside the launch.
enum class BatchPrecond : int32 { none, jacobi, block_jacobi };
LOOM_NAME_TABLE(BatchPrecond, batch_precond_names, "batched preconditioner",
    {BatchPrecond::none, "none", "no preconditioner", {"identity"}},
    {BatchPrecond::jacobi, "jacobi", "the inverted diagonal"},
    {BatchPrecond::block_jacobi, "block-jacobi", "inverted diagonal blocks (block_size)",
     {"block_jacobi", "bj"}},
);

struct KrylovOptions {
    KrylovMethod method = KrylovMethod::cg;
    BatchPrecond precond = BatchPrecond::jacobi;
    /// Right preconditioning (BiCGSTAB, GMRES, Richardson); CG applies it symmetrically.
    bool right = false;
    int max_iterations = 1000;
    /// Stop when ||r|| <= max(rtol ||b||, atol) (with M^{-1} applied for left preconditioning).
    double rtol = 1e-10;
    double atol = 0;
    int restart = 30;
    bool modified_gs = true;
    /// Block Jacobi's block size, 1 to 16.
    int block_size = 4;
    double relaxation = 1;
};

/// The workspace and the per-system outcomes of batched solves; reused across calls (memory
/// is kept while the next batch fits in it).
template <typename V>
class KrylovHandle {
public:
    explicit KrylovHandle(std::shared_ptr<const Executor> exec, KrylovOptions options = {});

    const KrylovOptions& options() const noexcept { return options_; }
    void set_options(const KrylovOptions& options) { options_ = options; }
    const std::shared_ptr<const Executor>& executor() const noexcept { return exec_; }

    /// Systems of the last solve.
    size_type batch_count() const noexcept { return outcomes_.size(); }
    /// Per system of the last solve (copied to the host).
    std::vector<KrylovOutcome> outcomes() const { return outcomes_.to_host(); }
    std::vector<int32> iterations() const;
    std::vector<double> residuals() const;
    std::vector<KrylovStatus> statuses() const;
    /// The systems of the last solve that did not converge, in order.
    std::vector<size_type> not_converged() const;

    // For the implementation: workspace of the next solve, offsets[b] its share of system b.
    void prepare(const std::vector<size_type>& offsets);
    Array<V>& workspace() noexcept { return workspace_; }
    const Array<size_type>& offsets() const noexcept { return offsets_; }
    Array<KrylovOutcome>& outcome_array() noexcept { return outcomes_; }

private:
    std::shared_ptr<const Executor> exec_;
    KrylovOptions options_;
    Array<V> workspace_;
    Array<size_type> offsets_;
    Array<KrylovOutcome> outcomes_;
};

/// Values of workspace a system of n unknowns takes with options (preconditioner included).
size_type solve_workspace(const KrylovOptions& options, size_type n);

/// Solves A_b x_b = b_b for every b; b and x batches of n x 1 columns. BadInput for bad
/// options or a non-square batch, DimensionMismatch for vectors that do not fit.
template <typename V, typename I>
LOOM_EXPORT void solve(KrylovHandle<V>& handle, const matrix::BatchCsr<V, I>& A,
                       const matrix::BatchDense<V>& b, matrix::BatchDense<V>& x);
template <typename V, typename I>
LOOM_EXPORT void solve(KrylovHandle<V>& handle, const matrix::BatchEll<V, I>& A,
                       const matrix::BatchDense<V>& b, matrix::BatchDense<V>& x);
/// A heterogeneous batch of square matrices; b and x pooled as for its SpMV.
template <typename V, typename I>
LOOM_EXPORT void solve(KrylovHandle<V>& handle, const matrix::HeteroBatch<V, I>& A,
                       const Array<V>& b, Array<V>& x);

/// Solves A_b x_b = b_b for every b by cuSOLVER's batched sparse QR (csrqrsvBatched), the
/// vendor peer of `loom bench batched-solve`: a direct solve, no handle, no per-system report.
/// CUDA executors and 32-bit indices only (NotSupported otherwise); b and x batches of n x 1
/// columns stored one after the other.
template <typename V, typename I>
LOOM_EXPORT void solve_vendor_qr(const matrix::BatchCsr<V, I>& A, const matrix::BatchDense<V>& b,
                                 matrix::BatchDense<V>& x);

}  // namespace loom::batched

LOOM_PUBLIC_END
