// ISAI preconditioner: M ~ A^-1 (or the inverse of A's lower or upper triangle) on the pattern
// of A^k (loom/sparse/isai.hpp); an apply is one SpMV with M. For an SPD system (kind spd, for
// CG) M = G^H G stays SPD: an apply is two SpMVs, with G and with G^H.
//
//     auto isai = precond::Isai<double>::build().with_power(2).on(exec);
//     auto gmres = solver::Gmres<double>::build().with_preconditioner(isai)...on(exec);
#pragma once

#include <memory>

#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/isai.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::precond {

struct IsaiParameters {
    sparse::IsaiOptions isai;
};

template <typename V, typename I = int32>
class Isai final : public EnableGenerated<Isai<V, I>, V, IsaiParameters> {
public:
    using index_type = I;
    using Parameters = IsaiParameters;

    class Builder : public FactoryBuilder<Builder, Parameters, Isai> {
    public:
        Builder& with_kind(sparse::IsaiKind kind);
        /// BadInput below 1.
        Builder& with_power(int power);
    };

    /// Made by Factory::generate: M for `system`, a square matrix::Csr<V, I> (copied to exec
    /// when it lives elsewhere). BadInput when null, NotSupported naming the type of any
    /// other operator, DimensionMismatch when not square, and sparse::isai's errors.
    Isai(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
         const Parameters& params);

    /// The approximate inverse; for IsaiKind::spd its factor G (M = G^H G).
    const matrix::Csr<V, I>& inverse() const noexcept { return *m_; }

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    std::shared_ptr<const matrix::Csr<V, I>> m_;
    /// G^H for IsaiKind::spd, else null.
    std::shared_ptr<const matrix::Csr<V, I>> m_adjoint_;
    /// G b during an IsaiKind::spd apply.
    mutable matrix::Dense<V> g_b_;
};

}  // namespace loom::precond

LOOM_PUBLIC_END
