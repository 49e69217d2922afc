// OpenMP SpMM, op(A) = A or conj(A) (spmm.cpp transposes A for A^T and A^H).
//
// The k columns are cut into panels of `panel` values whose accumulators stay in registers
// (the width a compile-time constant for full panels and for k = 4, 8, 16, so the inner loop
// vectorizes); a row's entries are read once per panel, from L1 after the first. The work
// items (row, panel) go to threads in dynamic chunks, so a few heavy rows do not stall one
// thread, and the panels of one long row can run on several. Row-major B and C get contiguous
// panel loads and stores; column-major ones the same loop with strided access.
#include <omp.h>

#include <algorithm>

#include "base/instantiate_storage.hpp"
#include "base/omp/arithmetic.hpp"
#include "sparse/spmm/kernels.hpp"

namespace loom::sparse::omp {
namespace {

using loom::omp::mul;

/// Accumulators of one panel: 32 values, 4 to 8 vector registers.
constexpr size_type panel = 32;
/// Below this many multiply-adds one thread does all the work.
constexpr size_type min_parallel_work = size_type{1} << 15;

/// B(i, j) / C(i, j) with the row-major case's unit column step known at compile time.
template <bool RowMajor, typename T>
inline T& at(const DenseOperand<T>& d, size_type i, size_type j)
{
    if constexpr (RowMajor) {
        return d.data[i * d.row_step + j];
    } else {
        return d.data[i * d.row_step + j * d.col_step];
    }
}

/// C(r, j0 .. j0 + W) = alpha * (op(A) B)(r, j0 .. j0 + W) + beta * C(r, ...); W is the
/// compile-time panel width or, with W == 0, the runtime `width` of the last panel.
/// The 16-bit storage types are widened on load and C rounded once on store: T is the type
/// of the sums (compute_type_t<V>), V the type stored.
template <size_type W, bool Conj, bool RowB, bool RowC, typename V, typename I,
          typename T = compute_type_t<V>>
void row_panel(size_type r, size_type j0, size_type width, T alpha, const I* row_ptrs,
               const I* cols, const V* values, const DenseOperand<const V>& B, T beta,
               const DenseOperand<V>& C)
{
    const size_type w = W == 0 ? width : W;
    T acc[panel] = {};
    for (auto e = row_ptrs[r]; e < row_ptrs[r + 1]; ++e) {
        const T value = static_cast<T>(values[e]);
        const T a = Conj ? loom::conj(value) : value;
        const V* b = &at<RowB>(B, cols[e], j0);
        const size_type step = RowB ? 1 : B.col_step;
        LOOM_PRAGMA_SIMD
        for (size_type t = 0; t < w; ++t) acc[t] += mul(a, static_cast<T>(b[t * step]));
    }
    for (size_type t = 0; t < w; ++t) {
        V& c = at<RowC>(C, r, j0 + t);
        c = static_cast<V>(beta == T{0} ? mul(alpha, acc[t])
                                        : mul(alpha, acc[t]) + mul(beta, static_cast<T>(c)));
    }
}

template <bool Conj, bool RowB, bool RowC, typename V, typename I>
void spmm_rows(const OmpExecutor& exec, compute_type_t<V> alpha, const matrix::Csr<V, I>& A,
               const DenseOperand<const V>& B, compute_type_t<V> beta, const DenseOperand<V>& C,
               size_type k)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const size_type rows = A.rows();
    const size_type panels = (k + panel - 1) / panel;
    // Work item i is panel i % panels of row i / panels: consecutive items share a row, whose
    // entries stay in L1 from one panel to the next, and a few rows still spread over every
    // thread when k is wide.
    const auto item = [&](size_type i) {
        const size_type r = i / panels;
        const size_type j0 = i % panels * panel;
        const size_type width = std::min(panel, k - j0);
        const auto run = [&]<size_type W>() {
            row_panel<W, Conj, RowB, RowC>(r, j0, width, alpha, row_ptrs, cols, values, B, beta, C);
        };
        // Widths of common small k get a compile-time trip count too.
        switch (width) {
        case panel: run.template operator()<panel>(); break;
        case 16: run.template operator()<16>(); break;
        case 8: run.template operator()<8>(); break;
        case 4: run.template operator()<4>(); break;
        default: run.template operator()<0>(); break;
        }
    };
    const size_type items = rows * panels;
    const size_type work = (A.nnz() + rows) * k;
    const int threads = work < min_parallel_work ? 1 : std::max(exec.num_threads(), 1);
    if (threads == 1) {
        for (size_type i = 0; i < items; ++i) item(i);
        return;
    }
    // About 32 chunks per thread: small enough to balance, large enough to keep the rows a
    // thread walks contiguous.
    const size_type chunk = std::max<size_type>(1, items / (32 * static_cast<size_type>(threads)));
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads)
    for (size_type i = 0; i < items; ++i) item(i);
}

}  // namespace

template <typename V, typename I>
void spmm_csr(const OmpExecutor& exec, Mode mode, compute_type_t<V> alpha,
              const matrix::Csr<V, I>& A, DenseOperand<const V> B, compute_type_t<V> beta,
              DenseOperand<V> C, size_type k, SpmmAlgorithm)
{
    const auto run = [&]<bool Conj, bool RowB>() {
        if (C.row_major()) {
            spmm_rows<Conj, RowB, true>(exec, alpha, A, B, beta, C, k);
        } else {
            spmm_rows<Conj, RowB, false>(exec, alpha, A, B, beta, C, k);
        }
    };
    const auto with_b = [&]<bool Conj>() {
        if (B.row_major()) {
            run.template operator()<Conj, true>();
        } else {
            run.template operator()<Conj, false>();
        }
    };
    if (mode == Mode::conjugate) {
        with_b.template operator()<true>();
    } else {
        with_b.template operator()<false>();
    }
}

/// One kernel on the host; nnz_balanced and row_split name the same dynamic row schedule.
template <typename V, typename I>
SpmmAlgorithm choose_spmm(const OmpExecutor&, const matrix::Csr<V, I>&, size_type)
{
    return SpmmAlgorithm::row_split;
}

#define LOOM_INSTANTIATE_SPMM_OMP(V, I)                                                           \
    template void spmm_csr(const OmpExecutor&, Mode, compute_type_t<V>, const matrix::Csr<V, I>&, \
                           DenseOperand<const V>, compute_type_t<V>, DenseOperand<V>, size_type,  \
                           SpmmAlgorithm);                                                        \
    template SpmmAlgorithm choose_spmm(const OmpExecutor&, const matrix::Csr<V, I>&, size_type);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_OMP)
LOOM_FOR_EACH_STORAGE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMM_OMP)

}  // namespace loom::sparse::omp
