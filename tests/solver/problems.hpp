// Test systems for the solver tests: generated SPD/HPD and nonsymmetric matrices on the
// host, the true relative residual, and the solvers under test.
#pragma once

#include <cmath>
#include <complex>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loom/base/linop.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/solvers.hpp"
#include "support/random.hpp"

namespace loom::test {

/// The 5-point Laplacian on an n x n grid, plus `convection` times a centred first
/// derivative in x (nonsymmetric when non-zero) and, for complex types, -i*skew / +i*skew on
/// the lower / upper y-neighbours (still Hermitian; the diagonal grows by 2*skew to stay
/// positive definite).
template <typename V>
std::shared_ptr<matrix::Csr<V>> grid_matrix(std::shared_ptr<const Executor> exec, size_type n,
                                            double convection = 0, double skew = 0)
{
    std::vector<int32> ptrs{0};
    std::vector<int32> cols;
    std::vector<V> vals;
    auto add = [&](size_type col, V value) {
        cols.push_back(static_cast<int32>(col));
        vals.push_back(value);
    };
    V i_skew{0};
    if constexpr (is_complex_v<V>) i_skew = V(0, static_cast<remove_complex_t<V>>(skew));
    for (size_type y = 0; y < n; ++y) {
        for (size_type x = 0; x < n; ++x) {
            const auto row = y * n + x;
            if (y > 0) add(row - n, V(-1) - i_skew);
            if (x > 0) add(row - 1, static_cast<V>(-1 - convection));
            add(row, static_cast<V>(4 + 2 * (is_complex_v<V> ? skew : 0.0)));
            if (x + 1 < n) add(row + 1, static_cast<V>(-1 + convection));
            if (y + 1 < n) add(row + n, V(-1) + i_skew);
            ptrs.push_back(static_cast<int32>(cols.size()));
        }
    }
    return std::make_shared<matrix::Csr<V>>(
        matrix::Csr<V>::from_host(std::move(exec), {n * n, n * n}, ptrs, cols, vals));
}

/// max_j ||b_j - A x_j|| / ||b_j|| (||b_j - A x_j|| when b_j = 0), computed from scratch.
template <typename V>
double true_relative_residual(const LinOp<V>& A, const matrix::Dense<V>& b,
                              const matrix::Dense<V>& x)
{
    matrix::Dense<V> r(A.executor(), b);
    A.apply(V{-1}, x, V{1}, r);
    const auto rh = r.to_host();
    const auto bh = b.to_host();
    double worst = 0;
    for (size_type j = 0; j < b.cols(); ++j) {
        double rr = 0;
        double bb = 0;
        for (size_type i = 0; i < b.rows(); ++i) {
            rr += std::norm(std::complex<double>(rh[i * b.cols() + j]));
            bb += std::norm(std::complex<double>(bh[i * b.cols() + j]));
        }
        worst = std::max(worst, std::sqrt(rr) / (bb > 0 ? std::sqrt(bb) : 1.0));
    }
    return worst;
}

/// b = A * 1 on A's executor, the usual right-hand side of tests on given matrices.
template <typename V>
matrix::Dense<V> image_of_ones(const LinOp<V>& A)
{
    matrix::Dense<V> ones(A.executor(), {A.size().cols, 1});
    ones.fill(V{1});
    matrix::Dense<V> b(A.executor(), {A.size().rows, 1});
    A.apply(ones, b);
    return b;
}

/// diag(A)^-1 as a CSR matrix (a Jacobi preconditioner that every backend can apply).
template <typename V>
std::shared_ptr<matrix::Csr<V>> inverse_diagonal(const matrix::Csr<V>& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto cols = A.col_idxs().to_host();
    const auto vals = A.values().to_host();
    const auto n = A.size().rows;
    std::vector<int32> d_ptrs(n + 1), d_cols(n);
    std::vector<V> d_vals(n, V{1});
    for (size_type r = 0; r < n; ++r) {
        V diag{0};
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (cols[k] == r) diag += vals[k];
        }
        if (diag != V{0}) d_vals[r] = V{1} / diag;
        d_ptrs[r + 1] = static_cast<int32>(r + 1);
        d_cols[r] = static_cast<int32>(r);
    }
    return std::make_shared<matrix::Csr<V>>(
        matrix::Csr<V>::from_host(A.executor(), A.size(), d_ptrs, d_cols, d_vals));
}

/// The relative tolerance a test asks for in V's precision.
template <typename V>
double solve_tolerance()
{
    return std::is_same_v<remove_complex_t<V>, float> ? 1e-4 : 1e-10;
}

template <typename V>
using SolverMaker = std::function<std::shared_ptr<const LinOpFactory<V>>(
    std::shared_ptr<const Executor>, std::shared_ptr<const stop::Criterion>)>;

/// Every solver by name, built with the given criteria and nothing else.
template <typename V>
std::map<std::string, SolverMaker<V>> all_solvers()
{
    using namespace loom::solver;
    std::map<std::string, SolverMaker<V>> m;
    m["cg"] = [](auto exec, auto c) { return Cg<V>::build().with_criteria(c).on(exec); };
    m["fcg"] = [](auto exec, auto c) { return Fcg<V>::build().with_criteria(c).on(exec); };
    m["bicg"] = [](auto exec, auto c) { return Bicg<V>::build().with_criteria(c).on(exec); };
    m["bicgstab"] = [](auto exec, auto c) {
        return Bicgstab<V>::build().with_criteria(c).on(exec);
    };
    m["cgs"] = [](auto exec, auto c) { return Cgs<V>::build().with_criteria(c).on(exec); };
    m["gmres"] = [](auto exec, auto c) {
        return Gmres<V>::build().with_criteria(c).with_krylov_dim(10).on(exec);
    };
    m["gmres-cgs"] = [](auto exec, auto c) {
        return Gmres<V>::build()
            .with_criteria(c)
            .with_krylov_dim(10)
            .with_orthogonalization(Orthogonalization::classical)
            .on(exec);
    };
    m["cb-gmres"] = [](auto exec, auto c) {
        return CbGmres<V>::build().with_criteria(c).with_krylov_dim(10).on(exec);
    };
    m["pipe-cg"] = [](auto exec, auto c) { return PipeCg<V>::build().with_criteria(c).on(exec); };
    m["chebyshev"] = [](auto exec, auto c) {
        return Chebyshev<V>::build().with_criteria(c).on(exec);
    };
    m["fgmres"] = [](auto exec, auto c) {
        return Fgmres<V>::build().with_criteria(c).with_krylov_dim(10).on(exec);
    };
    m["gcr"] = [](auto exec, auto c) {
        return Gcr<V>::build().with_criteria(c).with_krylov_dim(10).on(exec);
    };
    m["idr"] = [](auto exec, auto c) { return Idr<V>::build().with_criteria(c).on(exec); };
    m["minres"] = [](auto exec, auto c) { return Minres<V>::build().with_criteria(c).on(exec); };
    // IR around a few CG steps (SPD only) converges quickly; plain Richardson would not.
    m["ir"] = [](auto exec, auto c) {
        auto inner = Cg<V>::build()
                         .with_criteria(stop::max_iterations(8) | stop::residual_reduction(1e-2))
                         .on(exec);
        return Ir<V>::build().with_solver(inner).with_criteria(c).on(exec);
    };
    return m;
}

/// Solvers that need a Hermitian matrix (positive definite but for MINRES).
inline bool needs_spd(const std::string& name)
{
    return name == "cg" || name == "fcg" || name == "ir" || name == "pipe-cg" ||
           name == "chebyshev" || name == "minres";
}

}  // namespace loom::test
