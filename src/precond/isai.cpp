// Isai preconditioner (include/loom/precond/isai.hpp).
#include "loom/precond/isai.hpp"

#include <string>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "precond/system_matrix.hpp"
#include "solver/scaled_apply.hpp"

namespace loom::precond {

template <typename V, typename I>
auto Isai<V, I>::Builder::with_kind(sparse::IsaiKind kind) -> Builder&
{
    return this->set(&Parameters::isai, &sparse::IsaiOptions::kind, kind);
}

template <typename V, typename I>
auto Isai<V, I>::Builder::with_power(int power) -> Builder&
{
    if (power < 1) {
        throw BadInput("loom::precond::Isai::Builder::with_power",
                       "power must be at least 1, got " + std::to_string(power));
    }
    return this->set(&Parameters::isai, &sparse::IsaiOptions::power, power);
}

template <typename V, typename I>
Isai<V, I>::Isai(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
                 const Parameters& params)
    : EnableGenerated<Isai, V, Parameters>(exec, {}, params)
{
    const auto A = detail::square_csr_system<V, I>("loom::precond::Isai", system, exec);
    this->set_size(A->size());
    m_ = std::make_shared<const matrix::Csr<V, I>>(sparse::isai(*A, params.isai));
    if (params.isai.kind == sparse::IsaiKind::spd) {
        m_adjoint_ = std::make_shared<const matrix::Csr<V, I>>(sparse::conj_transpose(*m_));
    }
}

template <typename V, typename I>
void Isai<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    apply_impl(V{1}, b, V{0}, x);
}

template <typename V, typename I>
void Isai<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                            matrix::Dense<V>& x) const
{
    if (!m_adjoint_) return m_->apply(alpha, b, beta, x);
    // G b in a vector kept across applies: no allocation per apply of a preconditioner.
    auto& g_b = loom::detail::sized(g_b_, this->executor(), b.size());
    m_->apply(b, g_b);
    m_adjoint_->apply(alpha, g_b, beta, x);
}

#define LOOM_INSTANTIATE_ISAI_PRECOND(V, I) template class Isai<V, I>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ISAI_PRECOND)

}  // namespace loom::precond
