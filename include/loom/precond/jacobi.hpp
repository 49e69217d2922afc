// (Block) Jacobi preconditioner: M = D^-1 for the (block-)diagonal part D of a Csr matrix.
//
//     auto jacobi = precond::Jacobi<double>::build()
//                       .with_max_block_size(8)              // 1 = scalar Jacobi
//                       .with_adaptive_precision(true)
//                       .on(exec);
//     auto cg = solver::Cg<double>::build().with_preconditioner(jacobi)...on(exec);
//
// Blocks are found from the matrix structure (supervariable agglomeration, see
// sparse::find_blocks) unless given with with_block_pointers (then max_block_size is not
// used). Each block is inverted by Gauss-Jordan elimination with partial pivoting; with
// adaptive precision each inverted block is stored in the lowest precision (float32 or
// float16 for double, float16 for float) that its condition number allows for the accuracy
// asked (sparse::choose_storage_precision), which cuts the bytes every apply reads, while
// the arithmetic stays in V's precision. When every block has one row (max_block_size 1, or
// a pattern whose rows all differ from their neighbours) the operator is scalar Jacobi: it
// keeps the inverted diagonal in V's precision and applies a diagonal scaling.
//
// The generated operator is a LinOp (x = D^-1 b) and ConjTransposable: conj_transpose()
// shares the stored inverse, so BiCG's M^H costs no memory.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/solver/operators.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/block_diagonal.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::precond {

template <typename I>
struct JacobiParameters {
    /// Largest block find_blocks may form, in [1, 32]; 1 is scalar Jacobi.
    size_type max_block_size = 32;
    /// Block boundaries (num_blocks + 1, from 0 to the order); empty: found from A.
    std::vector<I> block_pointers;
    /// Store each inverted block in the lowest precision its condition number allows.
    bool adaptive_precision = false;
    /// The bound adaptive precision keeps on ||M~_k D_k - I||_1 per block, in (0, 1).
    double accuracy = 1e-1;
};

template <typename V, typename I = int32>
class Jacobi final : public EnableGenerated<Jacobi<V, I>, V, JacobiParameters<I>>,
                     public ConjTransposable<V> {
public:
    using index_type = I;
    using Parameters = JacobiParameters<I>;

    class Builder : public FactoryBuilder<Builder, Parameters, Jacobi> {
    public:
        /// BadInput outside [1, 32].
        Builder& with_max_block_size(size_type size);
        /// Blocks given by the user (checked against A at generate: BadInput when they do not
        /// run from 0 to the order in steps of 1 to 32).
        Builder& with_block_pointers(std::vector<I> pointers)
        {
            return this->set(&Parameters::block_pointers, std::move(pointers));
        }
        Builder& with_block_pointers(const Array<I>& pointers);
        Builder& with_adaptive_precision(bool enable = true)
        {
            return this->set(&Parameters::adaptive_precision, enable);
        }
        /// BadInput outside (0, 1).
        Builder& with_accuracy(double accuracy);
    };

    /// Made by Factory::generate: D^-1 of `system`, which must be a square
    /// matrix::Csr<V, I> (copied to exec when it lives elsewhere). BadInput when null,
    /// NotSupported naming the type of any other operator, DimensionMismatch when not square,
    /// NumericalError naming the block and row of a singular block (the row of a zero
    /// diagonal entry).
    Jacobi(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
           const Parameters& params);

    /// Whether every block has one row (then inverse_diagonal() holds D^-1).
    bool is_scalar() const noexcept { return diagonal_ != nullptr; }
    size_type num_blocks() const noexcept;
    /// The inverted blocks; nullptr for scalar Jacobi.
    const sparse::BlockDiagonalInverse<V, I>* blocks() const noexcept { return blocks_.get(); }
    /// The inverted diagonal; nullptr for block Jacobi.
    const Array<V>* inverse_diagonal() const noexcept { return diagonal_.get(); }
    /// Bytes of stored inverse that one apply reads.
    size_type storage_bytes() const noexcept;
    /// Whether this operator applies (D^-1)^H.
    bool is_conj_transposed() const noexcept { return conj_transposed_; }

    /// (D^-1)^H, sharing this operator's stored inverse.
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    Jacobi(const Jacobi& other, bool conj_transposed);

    std::shared_ptr<const sparse::BlockDiagonalInverse<V, I>> blocks_;
    std::shared_ptr<const Array<V>> diagonal_;
    bool conj_transposed_ = false;
};

}  // namespace loom::precond

LOOM_PUBLIC_END
