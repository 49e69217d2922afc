// Vectors. A solver never allocates or reduces a vector itself: it asks the VectorSpace of
// its system matrix (HasVectorSpace; else the plain one below: Dense on one executor, blas
// kernels). A vector is a matrix::Dense multi-vector, column j right-hand side j, so
// LinOp::apply(const Dense&, Dense&) stays. The solver code relies on: create() gives vectors
// its operators accept; updates act per column on the rows held here; a reduction writes a
// partial 1 x k row that finish_reductions() completes, and no reduced value is used before
// (Scalars enforce it and pass each range fetched together to ONE finish_reductions call).
// A distributed vector is a Dense of the local rows: its matrix reports its local size to
// LinOp and supplies a space whose finish_reductions is one all-reduce (sum). A batch of
// systems is an operator applying system j to column j: per-column reductions are per system.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "loom/base/array.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/lower_precision.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/types.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::solver {

/// Dense multi-vectors of `rows` rows on one executor, with the blas kernels. Derive to change
/// where the rows live or how reductions complete; every member is virtual.
template <typename V>
class VectorSpace {
public:
    using Vector = matrix::Dense<V>;

    VectorSpace(std::shared_ptr<const Executor> exec, size_type rows);
    virtual ~VectorSpace() = default;

    const std::shared_ptr<const Executor>& executor() const noexcept { return exec_; }
    /// Rows of every vector (this process's rows when distributed).
    size_type rows() const noexcept { return rows_; }
    /// Rows over all processes (rows() on one process), the same on every rank: what a
    /// method's size-dependent parameters (a restart length) are clamped to.
    virtual size_type global_rows() const { return rows_; }

    /// Whether a solver queues blocks of iterations before it reads their scalars (a read
    /// waits for the executor): true on a device executor.
    virtual bool runs_ahead() const { return !exec_->is_host(); }

    /// A rows() x columns vector; its values are unspecified.
    virtual Vector create(size_type columns) const;
    /// A 1 x count row on the executor for reduction results and step coefficients.
    virtual Vector create_scalars(size_type count) const;

    // ---- reductions: partial until finish_reductions
    /// out(0, j) = x(:, j)^H y(:, j) over the rows this space holds.
    virtual void conj_dot(const Vector& x, const Vector& y, Vector& out) const;
    /// Completes the partial results in `partials` (1 x n, written by the reductions above):
    /// nothing to do on one process, one all-reduce (sum) over the ranks when distributed.
    virtual void finish_reductions(Vector& partials) const;

    // ---- updates: per column, on the local rows, no communication
    virtual void copy(const Vector& x, Vector& y) const;
    virtual void fill(Vector& x, V value) const;
    /// x(:, j) = one pseudo-random vector (entries uniform in [-1, 1], real and imaginary
    /// parts alike) for every j, a function of `seed` and the row only: reproducible.
    virtual void fill_random(Vector& x, std::uint64_t seed) const;
    /// y(:, j) += alpha x(:, j).
    virtual void axpy(V alpha, const Vector& x, Vector& y) const;
    /// y(:, j) += alpha(0, j) x(:, j).
    virtual void axpy(const Vector& alpha, const Vector& x, Vector& y) const;
    /// y(:, j) += (+-) num(0, j) / den(0, j) x(:, j), 0 where that quotient is not usable
    /// (blas::axpy_quotient).
    virtual void axpy_quotient(const Vector& num, const Vector& den, const Vector& x, Vector& y,
                               bool subtract) const;
    /// y(:, j) = alpha x(:, j) + beta y(:, j).
    virtual void axpby(V alpha, const Vector& x, V beta, Vector& y) const;
    /// y(:, j) = alpha(0, j) x(:, j) + beta(0, j) y(:, j).
    virtual void axpby(const Vector& alpha, const Vector& x, const Vector& beta, Vector& y) const;
    /// x(:, j) *= alpha.
    virtual void scal(V alpha, Vector& x) const;
    /// x(:, j) *= alpha(0, j).
    virtual void scal(const Vector& alpha, Vector& x) const;

    // ---- fused steps: several updates and reductions in one pass over the rows held here,
    // coefficients read from 1 x k scalar rows on the executor (blas/vector.hpp says what
    // each computes). Their reductions are partial, as conj_dot's: a space that overrides
    // conj_dot to reduce otherwise overrides these too.
    /// out1(0, j) = x1(:, j)^H y1(:, j) and out2(0, j) = x2(:, j)^H y2(:, j): partial.
    virtual void conj_dot2(const Vector& x1, const Vector& y1, Vector& out1, const Vector& x2,
                           const Vector& y2, Vector& out2) const;
    /// out(0, i k + j) = x_i(:, j)^H y(:, j) for every x_i (k: y's columns), partial: one
    /// pass over y for a group of x_i (blas::multi_conj_dot; classical Gram-Schmidt).
    virtual void multi_conj_dot(std::span<const Vector* const> x, const Vector& y,
                                Vector& out) const;
    /// y(:, j) += sum_i alpha(0, i k + j) x_i(:, j): blas::multi_axpy (no reduction).
    virtual void multi_axpy(const Vector& alpha, std::span<const Vector* const> x,
                            Vector& y) const;
    /// r -= alpha q and r^H r into *s.rr (partial): blas::cg_residual_step.
    virtual void cg_residual_step(const blas::CgStepScalars<V>& s, const Vector& q,
                                  Vector& r) const;
    /// x += alpha p, p = z + beta p and *s.gate_new: blas::cg_direction_step (s's reductions
    /// finished).
    virtual void cg_direction_step(const blas::CgStepScalars<V>& s, const Vector& z, Vector& p,
                                   Vector& x) const;
    /// x(:, j) *= 1 / sqrt(real(squares(0, j))), 0 where not finite: blas::normalize
    /// (squares finished).
    virtual void normalize(const Vector& squares, Vector& x) const;
    /// p = r + beta (p - omega v), or a restart: blas::bicgstab_direction_step (s's
    /// reductions finished).
    virtual void bicgstab_direction_step(const blas::BicgstabStepScalars<V>& s, const Vector& r,
                                         const Vector& v, Vector& p, Vector& r_tld) const;
    /// r -= alpha v: blas::bicgstab_half_step (s's reductions finished).
    virtual void bicgstab_half_step(const blas::BicgstabStepScalars<V>& s, const Vector& v,
                                    Vector& r) const;
    /// x and r updates, r~^H r and r^H r into *s.rho and *s.rr (partial):
    /// blas::bicgstab_final_step.
    virtual void bicgstab_final_step(const blas::BicgstabStepScalars<V>& s, const Vector& p_hat,
                                     const Vector& s_hat, const Vector& t, const Vector& r_tld,
                                     Vector& r, Vector& x) const;

    // ---- compressed storage: vectors kept in lower_precision_t<V> (CB-GMRES's basis)
    using Compressed = Array<lower_precision_t<V>>;
    /// Room for a rows() x columns vector in the lower precision; values unspecified.
    virtual Compressed create_compressed(size_type columns) const;
    /// y = x rounded to the lower precision (y from create_compressed(x.cols())).
    virtual void compress(const Vector& x, Compressed& y) const;
    /// y = x in the working precision.
    virtual void decompress(const Compressed& x, Vector& y) const;

private:
    std::shared_ptr<const Executor> exec_;
    size_type rows_;
};

/// Implemented by operators whose vectors are not plain Dense on one executor (a distributed
/// matrix). A solver takes its system matrix's space from here, or else the plain one.
template <typename V>
class HasVectorSpace {
public:
    virtual std::shared_ptr<const VectorSpace<V>> vector_space() const = 0;

protected:
    ~HasVectorSpace() = default;
};

/// The space of `op`'s vectors: its own when it has one, else Dense of op's rows on exec.
template <typename V>
std::shared_ptr<const VectorSpace<V>> vector_space_of(const LinOp<V>& op,
                                                      std::shared_ptr<const Executor> exec)
{
    if (const auto* has = dynamic_cast<const HasVectorSpace<V>*>(&op)) return has->vector_space();
    return std::make_shared<const VectorSpace<V>>(std::move(exec), op.size().rows);
}

}  // namespace loom::solver

LOOM_PUBLIC_END
