// Device-callable views of one sparse matrix of a batch, and the batched routine Spmv that
// multiplies by one inside a user's kernel, in the modes of the batched dense routines:
//
//     const loom::batched::CsrView<double> A{rows, cols, row_ptrs, col_idxs, values + b * nnz};
//     loom::batched::Spmv<loom::batched::Mode::TeamVector>::invoke(member, 1.0, A, x, 0.0, y);
//
// Serial: the calling thread does every row. Team: a worker per row. TeamVector: team threads
// over rows, their vector lanes over a row's entries (CSR-vector). A view answers rows(),
// cols(), row_product(sub, r, x) (the sum of A(r, :) x over the workers of sub, returned to
// each) and entry(r, c) (A(r, c), 0 when not stored; duplicates summed).
#pragma once

#include "loom/batched/common.hpp"
#include "loom/batched/sparse/hetero_batch.hpp"

namespace loom::batched {

/// One CSR matrix: rows + 1 row pointers from 0, the entries' columns and values.
template <typename T, typename I = int32>
struct CsrView {
    int num_rows = 0;
    int num_cols = 0;
    const I* row_ptrs = nullptr;
    const I* col_idxs = nullptr;
    const T* values = nullptr;

    LOOM_HOST_DEVICE int rows() const { return num_rows; }
    LOOM_HOST_DEVICE int cols() const { return num_cols; }
    template <typename Par, typename VX>
    LOOM_HOST_DEVICE LOOM_INLINE T row_product(const Par& sub, int r, const VX& x) const
    {
        const I first = row_ptrs[r];
        return sub.sum(static_cast<int>(row_ptrs[r + 1] - first), [&](int k) {
            return T(values[first + k] * x(static_cast<int>(col_idxs[first + k])));
        });
    }
    LOOM_HOST_DEVICE T entry(int r, int c) const
    {
        T sum(0);
        for (I k = row_ptrs[r]; k < row_ptrs[r + 1]; ++k) {
            if (col_idxs[k] == c) sum += values[k];
        }
        return sum;
    }
};

/// One ELL matrix: width slots per row, slot s of row r at s * stride + r, unused slots with a
/// negative column.
template <typename T, typename I = int32>
struct EllView {
    int num_rows = 0;
    int num_cols = 0;
    int width = 0;
    size_type stride = 0;
    const I* col_idxs = nullptr;
    const T* values = nullptr;

    LOOM_HOST_DEVICE int rows() const { return num_rows; }
    LOOM_HOST_DEVICE int cols() const { return num_cols; }
    template <typename Par, typename VX>
    LOOM_HOST_DEVICE LOOM_INLINE T row_product(const Par& sub, int r, const VX& x) const
    {
        return sub.sum(width, [&](int s) {
            const size_type k = s * stride + r;
            const I c = col_idxs[k];
            return c < 0 ? T(0) : T(values[k] * x(static_cast<int>(c)));
        });
    }
    LOOM_HOST_DEVICE T entry(int r, int c) const
    {
        T sum(0);
        for (int s = 0; s < width; ++s) {
            if (col_idxs[s * stride + r] == c) sum += values[s * stride + r];
        }
        return sum;
    }
};

/// COO entries sorted by row: a row is found by binary search, so the view serves rows.
template <typename T, typename I = int32>
struct CooView {
    int num_rows = 0;
    int num_cols = 0;
    size_type nnz = 0;
    const I* row_idxs = nullptr;
    const I* col_idxs = nullptr;
    const T* values = nullptr;

    LOOM_HOST_DEVICE int rows() const { return num_rows; }
    LOOM_HOST_DEVICE int cols() const { return num_cols; }
    /// The first entry of a row at least r: a gallop from where r would start if the entries
    /// were spread evenly over the rows (found in a step or two for most matrices), then a
    /// binary search in the bracket.
    LOOM_HOST_DEVICE size_type lower_bound(int r) const
    {
        // The answer stays in [lo, hi].
        size_type lo = 0;
        size_type hi = nnz;
        if (num_rows > 0 && nnz > 0) {
            size_type guess = static_cast<size_type>(r) * nnz / num_rows;
            guess = guess < nnz - 1 ? guess : nnz - 1;
            size_type step = 1;
            if (row_idxs[guess] < r) {
                size_type probe = guess;
                while (probe < nnz && row_idxs[probe] < r) {
                    lo = probe + 1;
                    probe = guess + step;
                    step *= 2;
                }
                hi = probe < nnz ? probe : nnz;
            } else {
                hi = guess;
                while (step <= guess && row_idxs[guess - step] >= r) {
                    hi = guess - step;
                    step *= 2;
                }
                lo = step <= guess ? guess - step + 1 : 0;
            }
        }
        while (lo < hi) {
            const size_type mid = lo + (hi - lo) / 2;
            if (row_idxs[mid] < r) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
    template <typename Par, typename VX>
    LOOM_HOST_DEVICE LOOM_INLINE T row_product(const Par& sub, int r, const VX& x) const
    {
        const size_type first = lower_bound(r);
        const size_type last = lower_bound(r + 1);
        return sub.sum(static_cast<int>(last - first), [&](int k) {
            return T(values[first + k] * x(static_cast<int>(col_idxs[first + k])));
        });
    }
    LOOM_HOST_DEVICE T entry(int r, int c) const
    {
        T sum(0);
        for (size_type k = lower_bound(r); k < nnz && row_idxs[k] == r; ++k) {
            if (col_idxs[k] == c) sum += values[k];
        }
        return sum;
    }
};

/// Matrix b of a heterogeneous batch (matrix::HeteroBatch), whatever its format: the pools
/// and b's layout.
template <typename T, typename I = int32>
struct LayoutView {
    matrix::BatchLayout layout;
    const I* row_ptrs = nullptr;
    const I* row_idxs = nullptr;
    const I* col_idxs = nullptr;
    const T* values = nullptr;

    LOOM_HOST_DEVICE int rows() const { return layout.rows; }
    LOOM_HOST_DEVICE int cols() const { return layout.cols; }
    LOOM_HOST_DEVICE CsrView<T, I> csr() const
    {
        return {layout.rows, layout.cols, row_ptrs + layout.row_ptr_offset,
                col_idxs + layout.entry_offset, values + layout.entry_offset};
    }
    LOOM_HOST_DEVICE EllView<T, I> ell() const
    {
        return {layout.rows, layout.cols, layout.ell_width, layout.rows,
                col_idxs + layout.entry_offset, values + layout.entry_offset};
    }
    LOOM_HOST_DEVICE CooView<T, I> coo() const
    {
        return {layout.rows, layout.cols, layout.coo_nnz, row_idxs + layout.coo_offset,
                col_idxs + layout.coo_offset, values + layout.coo_offset};
    }
    template <typename Par, typename VX>
    LOOM_HOST_DEVICE LOOM_INLINE T row_product(const Par& sub, int r, const VX& x) const
    {
        switch (layout.format) {
        case matrix::BatchFormat::csr: return csr().row_product(sub, r, x);
        case matrix::BatchFormat::coo: return coo().row_product(sub, r, x);
        case matrix::BatchFormat::ell: return ell().row_product(sub, r, x);
        case matrix::BatchFormat::hybrid: break;
        }
        return ell().row_product(sub, r, x) + coo().row_product(sub, r, x);
    }
    LOOM_HOST_DEVICE T entry(int r, int c) const
    {
        switch (layout.format) {
        case matrix::BatchFormat::csr: return csr().entry(r, c);
        case matrix::BatchFormat::coo: return coo().entry(r, c);
        case matrix::BatchFormat::ell: return ell().entry(r, c);
        case matrix::BatchFormat::hybrid: break;
        }
        return ell().entry(r, c) + coo().entry(r, c);
    }
};

namespace detail {

/// y := alpha A x + beta y (y not read when beta is zero); x and y must not overlap.
template <typename Par, typename Alpha, typename MatrixV, typename VX, typename VY>
LOOM_HOST_DEVICE int spmv(const Par& par, const Alpha& alpha_in, const MatrixV& A, const VX& x,
                          const Alpha& beta_in, const VY& y)
{
    using T = value_of<VY>;
    const T alpha(alpha_in);
    const T beta(beta_in);
    const bool overwrite = all_zero(beta);
    LOOM_BATCHED_ASSERT(x.size() == A.cols() && y.size() == A.rows());
    par.split(A.rows(), [&](int r, const auto& sub) {
        const T product = A.row_product(sub, r, x);
        sub.single([&] { y(r) = overwrite ? T(alpha * product) : T(alpha * product + beta * y(r)); });
    });
    par.barrier();
    return 0;
}

}  // namespace detail

/// y := alpha A x + beta y for one sparse matrix view A (CsrView, EllView, CooView,
/// LayoutView); y is not read when beta is zero. Returns 0.
template <typename ModeT>
struct Spmv {
    static_assert(is_mode_v<ModeT>);
    template <typename Alpha, typename MatrixV, VectorViewType VX, VectorViewType VY>
        requires std::is_same_v<ModeT, Mode::Serial>
    LOOM_HOST_DEVICE static int invoke(const Alpha& alpha, const MatrixV& A, const VX& x,
                                       const Alpha& beta, const VY& y)
    {
        return detail::spmv(detail::SerialPar{}, alpha, A, x, beta, y);
    }
    template <typename Member, typename Alpha, typename MatrixV, VectorViewType VX,
              VectorViewType VY>
        requires is_team_mode_v<ModeT>
    LOOM_HOST_DEVICE static int invoke(const Member& member, const Alpha& alpha, const MatrixV& A,
                                       const VX& x, const Alpha& beta, const VY& y)
    {
        return detail::spmv(detail::make_par<ModeT>(member), alpha, A, x, beta, y);
    }
};

}  // namespace loom::batched
