// Operators built from other operators, and operators from user code:
//   Identity      x = b
//   Composition   x = A_1 A_2 ... A_n b   (A_n applied first)
//   Combination   x = sum_i c_i A_i b
//   MatrixFree    x = f(b) for a user callable
// Ownership: every operator is held by std::shared_ptr; a composite holds shared
// references to its parts, which it never modifies (they may be shared with other
// composites or solvers). Intermediate vectors are cached per column count, so applying
// the same composite from two threads at once is not supported.
// They sit with the solvers, not in base/, because they apply kernels (a Csr's conjugate
// transpose is an SpMV mode, combinations are axpys).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "loom/base/linop.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

/// Operators that can give their conjugate transpose op^H, as BiCG needs. A LinOp may
/// implement this beside LinOp<V> so that conj_transpose() below finds it.
template <typename V>
class ConjTransposable {
public:
    virtual ~ConjTransposable() = default;
    virtual std::shared_ptr<const LinOp<V>> conj_transpose() const = 0;
};

/// op^H as an operator. Works for ConjTransposable operators (the ones in this header; a
/// MatrixFree only when it was given a transposed callable), Csr (applied through the
/// conjugate-transposed SpMV, no copy) and Dense (an explicit copy). NotSupported otherwise.
template <typename V>
LOOM_EXPORT std::shared_ptr<const LinOp<V>> conj_transpose(
    const std::shared_ptr<const LinOp<V>>& op);

template <typename V>
class Identity final : public LinOp<V>, public ConjTransposable<V> {
public:
    /// The n x n identity on exec.
    Identity(std::shared_ptr<const Executor> exec, size_type n);
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;
};

template <typename V>
class Composition final : public LinOp<V>, public ConjTransposable<V> {
public:
    /// The product factors[0] * factors[1] * ... ; it lives on factors[0]'s executor.
    /// BadInput when empty or a factor is null, DimensionMismatch when neighbours do not
    /// chain (factors[i].cols != factors[i+1].rows).
    explicit Composition(std::vector<std::shared_ptr<const LinOp<V>>> factors);
    const std::vector<std::shared_ptr<const LinOp<V>>>& factors() const noexcept
    {
        return factors_;
    }
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    /// intermediate(i) = factors[i+1] * ... * b, allocated on factors[i+1]'s executor.
    const matrix::Dense<V>& apply_inner(const matrix::Dense<V>& b) const;

    std::vector<std::shared_ptr<const LinOp<V>>> factors_;
    mutable std::vector<matrix::Dense<V>> intermediates_;
};

template <typename V>
class Combination final : public LinOp<V>, public ConjTransposable<V> {
public:
    /// sum_i coefficients[i] * operators[i]; it lives on operators[0]'s executor. BadInput
    /// when empty, a count mismatch or a null operator; DimensionMismatch when sizes differ.
    Combination(std::vector<V> coefficients,
                std::vector<std::shared_ptr<const LinOp<V>>> operators);
    const std::vector<V>& coefficients() const noexcept { return coefficients_; }
    const std::vector<std::shared_ptr<const LinOp<V>>>& operators() const noexcept
    {
        return operators_;
    }
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    std::vector<V> coefficients_;
    std::vector<std::shared_ptr<const LinOp<V>>> operators_;
};

/// A matrix-free operator: x = f(b) for a callable that receives b (size.cols x k) and
/// x (size.rows x k), both on exec, and must write every entry of x.
template <typename V>
class MatrixFree final : public LinOp<V>, public ConjTransposable<V> {
public:
    using Function = std::function<void(const matrix::Dense<V>& b, matrix::Dense<V>& x)>;

    /// conj_transpose_apply, when given, computes x = op^H(b) (b size.rows x k, x
    /// size.cols x k) and makes the operator ConjTransposable. BadInput when apply is empty.
    MatrixFree(std::shared_ptr<const Executor> exec, dim2 size, Function apply,
               Function conj_transpose_apply = {});
    /// NotSupported when no transposed callable was given.
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    Function apply_;
    Function conj_transpose_apply_;
    mutable matrix::Dense<V> result_;
};

}  // namespace loom

LOOM_PUBLIC_END
