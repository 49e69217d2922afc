// ISAI preconditioner: M ~ A^-1 (or the inverse of A's lower or upper triangle) on the pattern
// of A^k (loom/sparse/isai.hpp); an apply is one SpMV with M.
//
//     auto isai = precond::Isai<double>::build().with_power(2).on(exec);
//     auto gmres = solver::Gmres<double>::build().with_preconditioner(isai)...on(exec);
#pragma once

#include <memory>

#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/isai.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::precond {

template <typename V, typename I = int32>
class Isai final : public LinOp<V> {
public:
    using value_type = V;
    using index_type = I;

    struct Parameters {
        sparse::IsaiOptions isai;
    };

    class Factory;

    class Builder {
    public:
        Builder& with_kind(sparse::IsaiKind kind);
        /// BadInput below 1.
        Builder& with_power(int power);

        const Parameters& parameters() const noexcept { return params_; }
        /// The factory, generating preconditioners on exec. BadInput when exec is null.
        std::shared_ptr<const Factory> on(std::shared_ptr<const Executor> exec) const;

    private:
        Parameters params_;
    };

    /// Binds the parameters to system matrices.
    class Factory final : public LinOpFactory<V> {
    public:
        Factory(std::shared_ptr<const Executor> exec, Parameters params);
        const Parameters& parameters() const noexcept { return params_; }

        /// M for `system`, a square matrix::Csr<V, I> (moved to the factory's executor when it
        /// lives elsewhere). BadInput when null, NotSupported for any other operator, and
        /// sparse::isai's errors.
        std::shared_ptr<Isai> generate(std::shared_ptr<const LinOp<V>> system) const;

    protected:
        std::shared_ptr<LinOp<V>> generate_impl(
            std::shared_ptr<const LinOp<V>> system) const override;

    private:
        Parameters params_;
    };

    static Builder build() { return {}; }

    /// Made by Factory::generate.
    Isai(std::shared_ptr<const Executor> exec, const matrix::Csr<V, I>& A,
         const Parameters& params);

    const Parameters& parameters() const noexcept { return params_; }
    /// The approximate inverse.
    const matrix::Csr<V, I>& inverse() const noexcept { return *m_; }

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    Parameters params_;
    std::shared_ptr<const matrix::Csr<V, I>> m_;
};

}  // namespace loom::precond

LOOM_PUBLIC_END
