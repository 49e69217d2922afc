#include "loom/solver/gmres.hpp"

#include "loom/solver/fgmres.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/solver/cb_gmres.hpp"
#include "solver/run_ahead.hpp"
#include "solver/state.hpp"

namespace loom::solver {

namespace {

/// Per right-hand side, on the host: the Hessenberg matrix H ((m+1) x m, column-major), the
/// Givens rotations (c_i real, s_i), the rotated right-hand side g and the solution y.
template <typename V>
class LeastSquares {
public:
    static size_type values_per_column(size_type m) { return (m + 1) * m + 2 * m + (m + 1) + m; }

    LeastSquares(std::span<V> storage, size_type m, size_type column)
        : data_(storage.data() + column * values_per_column(m)), m_(m)
    {}

    V& h(size_type i, size_type j) { return data_[j * (m_ + 1) + i]; }
    V& c(size_type j) { return data_[(m_ + 1) * m_ + j]; }
    V& s(size_type j) { return data_[(m_ + 1) * m_ + m_ + j]; }
    V& g(size_type i) { return data_[(m_ + 1) * m_ + 2 * m_ + i]; }
    V& y(size_type i) { return data_[(m_ + 1) * m_ + 2 * m_ + m_ + 1 + i]; }

    /// Rotates column j of H (entries 0..j, plus `below` = h(j+1, j) >= 0) by the previous
    /// rotations and a new one that zeroes `below`, and rotates g alike. Returns false when
    /// the rotated column is zero (H singular).
    bool rotate(size_type j, double below)
    {
        for (size_type i = 0; i < j; ++i) {
            const V a = h(i, j);
            const V b = h(i + 1, j);
            h(i, j) = c(i) * a + s(i) * b;
            h(i + 1, j) = -loom::conj(s(i)) * a + c(i) * b;
        }
        const V a = h(j, j);
        const double abs_a = std::abs(a);
        if (abs_a == 0 && below == 0) return false;
        const double radius = std::hypot(abs_a, below);
        if (abs_a == 0) {
            c(j) = V{0};
            s(j) = V{1};
        } else {
            c(j) = static_cast<V>(abs_a / radius);
            s(j) = (a / static_cast<V>(abs_a)) * static_cast<V>(below / radius);
        }
        h(j, j) = c(j) * a + s(j) * static_cast<V>(below);
        g(j + 1) = -loom::conj(s(j)) * g(j);
        g(j) = c(j) * g(j);
        return true;
    }

    /// y = H(0:d, 0:d)^-1 g(0:d) by back substitution (the diagonal is non-zero).
    void solve(size_type d)
    {
        for (size_type i = d - 1; i >= 0; --i) {
            V sum = g(i);
            for (size_type l = i + 1; l < d; ++l) sum -= h(i, l) * y(l);
            y(i) = sum / h(i, i);
        }
    }

private:
    V* data_;
    size_type m_;
};

/// GMRES's basis V_0..V_m: the state's vectors 0..m, used in place.
template <typename V>
class FullBasis {
public:
    /// m: the restart length (V_0..V_m).
    FullBasis(detail::SolveState<V>& st, size_type m) : st_(st)
    {
        for (size_type i = 0; i <= m; ++i) vectors_.push_back(&st.vector(static_cast<int>(i)));
    }

    /// Where r is computed and V_0 = r / ||r|| formed.
    matrix::Dense<V>& first() { return st_.vector(0); }
    /// Where w = A M V_j is formed and orthogonalized into V_{j+1}.
    matrix::Dense<V>& next(size_type j) { return st_.vector(static_cast<int>(j + 1)); }
    /// Keeps first() or next(j - 1), normalized, as V_j.
    void store(size_type) {}
    /// V_i, valid as long as the basis.
    const matrix::Dense<V>& operator[](size_type i) { return st_.vector(static_cast<int>(i)); }
    /// V_0..V_{count-1} at once (for the multi-vector kernels).
    std::span<const matrix::Dense<V>* const> first_vectors(size_type count) const
    {
        return {vectors_.data(), static_cast<std::size_t>(count)};
    }
    /// Whether two V_i are valid at once.
    static constexpr bool stable_references = true;

private:
    detail::SolveState<V>& st_;
    std::vector<const matrix::Dense<V>*> vectors_;
};

/// CB-GMRES's basis: V_i compressed in `stored`, formed in the state's vector 0 and read
/// back into vector 1.
template <typename V>
class CompressedBasis {
public:
    CompressedBasis(detail::SolveState<V>& st, std::vector<typename VectorSpace<V>::Compressed>& stored)
        : st_(st), stored_(stored)
    {}

    matrix::Dense<V>& first() { return st_.vector(0); }
    matrix::Dense<V>& next(size_type) { return st_.vector(0); }
    void store(size_type j) { st_.space().compress(st_.vector(0), stored_[j]); }
    /// V_i, valid until the next call.
    const matrix::Dense<V>& operator[](size_type i)
    {
        auto& v = st_.vector(1);
        st_.space().decompress(stored_[i], v);
        return v;
    }
    static constexpr bool stable_references = false;

private:
    detail::SolveState<V>& st_;
    std::vector<typename VectorSpace<V>::Compressed>& stored_;
};

// Gram-Schmidt on the executor: slot first + i receives -h_ij, so that axpy can subtract
// h_ij V_i without a round trip to the host, and slot first + j + 1 receives ||w||^2 after.
// Modified Gram-Schmidt completes each dot before its update; classical completes all j + 1
// of them at once (one all-reduce when distributed) and, where the basis vectors are valid
// together, computes them with one multi-vector dot and subtracts them with one multi-vector
// axpy, as PETSc's VecMDot / VecMAXPY: w is read once for a group of basis vectors instead of
// twice for each.
//
// One pass of classical Gram-Schmidt loses orthogonality where w nearly lies in the basis:
// measured with GMRES(30), jacobi on LF10000 went from 144 iterations (modified) to no
// convergence in 2000, ex5 from 25 to 185, and ILU(0) on bcsstk09 ended with a true residual
// of 3.9 (modified: 0.17). So a second pass corrects w where the first cancelled more than
// 99% of its norm (refine_below), on a host executor, where the check reads the norms at no
// cost; on a device, where a check would wait for the host in every step, the second pass
// always runs (classical Gram-Schmidt twice). DGKS's usual bound, 1/sqrt(2) of the norm
// (PETSc's "refine if needed"), refined in nearly every step of GMRES + ILU(0) on add32 and
// made it 1.5x slower; at 1/100 it refines in none there, and LF10000 (144), ex5 (25) and
// bcsstk09 (true residual 0.13) are as with modified Gram-Schmidt or better.
// `scratch`: j + 1 slots for the second pass's corrections.
constexpr double refine_below = 1e-4;  // ||w||^2 after / before
template <typename V, typename Basis>
void orthogonalize(detail::SolveState<V>& st, Basis& basis, Orthogonalization method,
                   size_type j, int first, int scratch)
{
    const auto& space = st.space();
    auto& s = st.scalars();
    auto& w = basis.next(j);
    const int count = static_cast<int>(j + 1);
    const int below = first + count;
    if (method == Orthogonalization::modified) {
        for (int i = 0; i < count; ++i) {
            const auto& vi = basis[i];
            s.conj_dot(first + i, vi, w);
            s.finish(first + i);
            s.negate(first + i);
            space.axpy(s[first + i], vi, w);
        }
    } else if constexpr (Basis::stable_references) {
        const auto vectors = basis.first_vectors(j + 1);
        const bool host = space.executor()->is_host();
        // On the host, ||w||^2 before the update comes with the dots: w is V_{j+1}.
        s.multi_conj_dot(first, basis.first_vectors(host ? j + 2 : j + 1), w);
        s.finish(first, host ? count + 1 : count);
        s.negate(first, count);
        s.multi_axpy(first, vectors, w);
        if (host) {
            std::vector<double> before;
            for (size_type c = 0; c < s.columns(); ++c) {
                before.push_back(std::real(s.host(below, c)));
            }
            s.conj_dot(below, w, w);
            s.finish(below);
            bool refine = false;
            for (size_type c = 0; c < s.columns(); ++c) {
                refine = refine || std::real(s.host(below, c)) < refine_below * before[c];
            }
            if (!refine) return;
        }
        s.multi_conj_dot(scratch, vectors, w);
        s.finish(scratch, count);
        s.negate(scratch, count);
        auto h = s.range(first, count);
        space.axpy(V{1}, s.range(scratch, count), h);
        s.multi_axpy(scratch, vectors, w);
    } else {
        for (int i = 0; i < count; ++i) s.conj_dot(first + i, basis[i], w);
        s.finish(first, count);
        s.negate(first, count);
        for (int i = 0; i < count; ++i) space.axpy(s[first + i], basis[i], w);
    }
    s.conj_dot(below, w, w);
    s.finish(below);
}

/// Slot of h_ij, i <= j + 1, of inner step j (h_{j+1,j} as ||w||^2 until replayed): every
/// step of a cycle keeps its own column, so that a block of steps is read with one copy.
int h_slot(size_type m, size_type i, size_type j)
{
    return static_cast<int>(j * (m + 1) + i);
}

/// Restarted GMRES(m) over a basis store; z_vec and combination_vec are the state's vectors
/// for M V_j and V y when preconditioned. Flexible (FGMRES) when z_first >= 0: Z_j = M V_j is
/// kept in vector z_first + j and x += Z y (M may change between applies); -1 otherwise.
///
/// An Arnoldi step runs on the executor alone (Gram-Schmidt with coefficients in executor
/// memory, V_{j+1} = w / ||w|| by space.normalize), so on a device a block of steps is queued
/// before the host reads their Hessenberg columns with one copy and replays the rotations,
/// the residual estimates, the criteria and the loggers step by step (solver/run_ahead.hpp).
/// Steps queued after the solve or the cycle ended are not used: x takes each column's basis
/// only up to the step where it stopped, so the iterates are those of checking every step.
template <typename V, typename Basis>
void run_gmres(const IterativeSolver<V>& solver, size_type m, Orthogonalization method,
               Basis& basis, int z_vec, int combination_vec, int z_first,
               const matrix::Dense<V>& b, matrix::Dense<V>& x, detail::SolveParts<V> parts)
{
    // References, not a structured binding: the lambdas below use them, and clang 14 (the
    // fuzz build) cannot capture a binding.
    auto& st = parts.st;
    [[maybe_unused]] const auto& A = parts.A;
    [[maybe_unused]] const auto* M = parts.M;
    [[maybe_unused]] const auto& space = parts.space;
    [[maybe_unused]] auto& s = parts.s;
    const int inv_slot = h_slot(m, 0, m);
    const int y_slot = inv_slot + 1;
    const int scratch_slot = y_slot + static_cast<int>(m);
    const auto k = st.columns();
    auto ls = [&](size_type c) { return LeastSquares<V>(st.host_values(), m, c); };
    // Basis vectors each column has used in the current cycle (frozen when it stops).
    std::vector<size_type> dims(static_cast<std::size_t>(k));

    auto& r = basis.first();
    if (st.start(A, b, x, r)) return;

    // Inner step j on the executor: w = A M V_j orthogonalized, V_{j+1} = w / ||w||.
    auto arnoldi = [&](size_type j) {
        auto& w = basis.next(j);
        if (M) {
            auto& z = st.vector(z_first >= 0 ? z_first + static_cast<int>(j) : z_vec);
            M->apply(basis[j], z);
            A.apply(z, w);
        } else {
            A.apply(basis[j], w);
        }
        orthogonalize(st, basis, method, j, h_slot(m, 0, j), scratch_slot);
        space.normalize(s[h_slot(m, j + 1, j)], w);
        basis.store(j + 1);
    };
    // The host's part of inner step j (its column fetched): rotations, residual estimates,
    // criteria. Returns whether every column stopped.
    auto replay = [&](size_type j, size_type it) {
        for (size_type c = 0; c < k; ++c) {
            if (!st.running(c)) continue;
            auto q = ls(c);
            bool finite = true;
            for (size_type i = 0; i <= j; ++i) {
                q.h(i, j) = -s.host(h_slot(m, i, j), c);
                finite = finite && detail::is_finite(q.h(i, j));
            }
            const double below = detail::norm_from_square(s.host(h_slot(m, j + 1, j), c));
            if (!finite || !std::isfinite(below)) {
                st.stop(c, stop::Reason::not_finite, "Arnoldi coefficients", it);
            } else if (!q.rotate(j, below)) {
                st.stop(c, stop::Reason::breakdown, "Hessenberg matrix singular", it);
            } else {
                // below == 0: the Krylov space holds the solution; the zero residual norm
                // converges the column at the check.
                dims[c] = j + 1;
                st.set_norm(c, std::abs(q.g(j + 1)));
            }
        }
        return st.check(it, nullptr);
    };

    const auto device = detail::device_criteria(*solver.criteria(), st);
    detail::BlockPlanner planner(device, space.runs_ahead());
    std::vector<double> norms(static_cast<std::size_t>(k));
    std::vector<char> running(static_cast<std::size_t>(k));
    size_type it = 0;
    for (;;) {
        for (size_type c = 0; c < k; ++c) {
            const double beta = st.running(c) ? st.norm(c) : 0.0;
            dims[c] = 0;
            ls(c).g(0) = static_cast<V>(beta);
            s.host(inv_slot, c) = beta > 0 ? static_cast<V>(1 / beta) : V{0};
        }
        s.push(inv_slot);
        s.scal(inv_slot, basis.first());
        basis.store(0);

        bool all_stopped = false;
        for (size_type j = 0; j < m && !all_stopped;) {
            for (size_type c = 0; c < k; ++c) {
                norms[c] = st.norm(c);
                running[c] = st.running(c);
            }
            const auto block = std::min(planner.next(it, norms, running), m - j);
            for (size_type step = j; step < j + block; ++step) arnoldi(step);
            s.fetch(h_slot(m, 0, j), h_slot(m, 0, j + block) - h_slot(m, 0, j));
            for (const auto end = j + block; j < end && !all_stopped; ++j) {
                all_stopped = replay(j, ++it);
            }
        }

        // x += M V y, each column with the basis it used.
        size_type used = 0;
        for (size_type c = 0; c < k; ++c) used = std::max(used, dims[c]);
        if (used > 0) {
            for (size_type c = 0; c < k; ++c) {
                auto q = ls(c);
                if (dims[c] > 0) q.solve(dims[c]);
                for (size_type i = 0; i < used; ++i) {
                    s.host(y_slot + static_cast<int>(i), c) = i < dims[c] ? q.y(i) : V{0};
                }
            }
            s.push(y_slot, static_cast<int>(used));
            if (M && z_first >= 0) {
                for (size_type i = 0; i < used; ++i) {
                    s.axpy(y_slot + static_cast<int>(i), st.vector(z_first + static_cast<int>(i)),
                           x);
                }
            } else if (M) {
                auto& combination = st.vector(combination_vec);
                auto& z = st.vector(z_vec);
                space.fill(combination, V{0});
                for (size_type i = 0; i < used; ++i) {
                    s.axpy(y_slot + static_cast<int>(i), basis[i], combination);
                }
                M->apply(combination, z);
                space.axpy(V{1}, z, x);
            } else {
                for (size_type i = 0; i < used; ++i) {
                    s.axpy(y_slot + static_cast<int>(i), basis[i], x);
                }
            }
        }
        st.freeze(x);
        if (all_stopped) return;

        // Restart from the true residual.
        auto& restart = basis.first();
        detail::residual(space, A, b, x, restart);
        s.conj_dot(0, restart, restart);
        s.fetch(0);
        st.set_norms_from_squares(0);
        st.screen_norms(it);
        st.freeze(x);
        if (st.all_stopped()) return;
    }
}

/// Slots: the Hessenberg columns of a cycle (h_slot), 1 / ||r||, y_0..y_{m-1}, and m
/// corrections of a second Gram-Schmidt pass.
template <typename V>
detail::Workspace gmres_workspace(int vectors, size_type m)
{
    return {vectors, h_slot(m, 0, m) + 1 + 2 * static_cast<int>(m),
            LeastSquares<V>::values_per_column(m)};
}

}  // namespace

size_type detail::restart_length(size_type krylov_dim, size_type rows, const char* where)
{
    if (krylov_dim < 1) {
        throw BadInput(where, "krylov_dim must be at least 1, got " + std::to_string(krylov_dim));
    }
    return std::min(krylov_dim, std::max<size_type>(rows, 1));
}

template <typename V>
void Gmres<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    const auto m = this->krylov_dim();
    // the basis V_0..V_m, plus z = M V_j and the combination V y when preconditioned
    const auto vectors = static_cast<int>(m + 1 + (this->preconditioner() ? 2 : 0));
    auto& st = this->state(b.cols(), gmres_workspace<V>(vectors, m));
    FullBasis<V> basis(st, m);
    const auto last = static_cast<int>(m);
    run_gmres(*this, m, this->parameters().orthogonalization, basis, last + 1, last + 2, -1, b,
              x, detail::begin_solve(*this, st));
}

template <typename V>
void CbGmres<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    const auto m = this->krylov_dim();
    // w (V_j before compression), V_i decompressed, plus z and V y when preconditioned
    auto& st = this->state(b.cols(), gmres_workspace<V>(this->preconditioner() ? 4 : 2, m));
    const auto k = st.columns();
    const auto count = static_cast<std::size_t>(m + 1);
    if (basis_.size() != count || basis_[0].size() != st.space().rows() * k) {
        basis_.clear();
        for (std::size_t i = 0; i < count; ++i) {
            basis_.push_back(st.space().create_compressed(k));
        }
    }
    CompressedBasis<V> basis(st, basis_);
    run_gmres(*this, m, this->parameters().orthogonalization, basis, 2, 3, -1, b, x,
              detail::begin_solve(*this, st));
}

template <typename V>
void Fgmres<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    const auto m = this->krylov_dim();
    // the basis V_0..V_m, plus Z_0..Z_{m-1}
    auto& st = this->state(b.cols(), gmres_workspace<V>(static_cast<int>(2 * m + 1), m));
    FullBasis<V> basis(st, m);
    run_gmres(*this, m, this->parameters().orthogonalization, basis, -1, -1,
              static_cast<int>(m + 1), b, x, detail::begin_solve(*this, st));
}

#define LOOM_INSTANTIATE_GMRES(V) \
    template class Gmres<V>;      \
    template class CbGmres<V>;    \
    template class Fgmres<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_GMRES)

}  // namespace loom::solver
