// Isai preconditioner (include/loom/precond/isai.hpp).
#include "loom/precond/isai.hpp"

#include <optional>
#include <string>
#include <typeinfo>

#include "base/instantiate.hpp"
#include "log/demangle.hpp"
#include "loom/base/error.hpp"

namespace loom::precond {

template <typename V, typename I>
auto Isai<V, I>::Builder::with_kind(sparse::IsaiKind kind) -> Builder&
{
    params_.isai.kind = kind;
    return *this;
}

template <typename V, typename I>
auto Isai<V, I>::Builder::with_power(int power) -> Builder&
{
    if (power < 1) {
        throw BadInput("loom::precond::Isai::Builder::with_power",
                       "power must be at least 1, got " + std::to_string(power));
    }
    params_.isai.power = power;
    return *this;
}

template <typename V, typename I>
auto Isai<V, I>::Builder::on(std::shared_ptr<const Executor> exec) const
    -> std::shared_ptr<const Factory>
{
    return std::make_shared<const Factory>(std::move(exec), params_);
}

template <typename V, typename I>
Isai<V, I>::Factory::Factory(std::shared_ptr<const Executor> exec, Parameters params)
    : LinOpFactory<V>(std::move(exec)), params_(params)
{}

template <typename V, typename I>
auto Isai<V, I>::Factory::generate(std::shared_ptr<const LinOp<V>> system) const
    -> std::shared_ptr<Isai>
{
    constexpr const char* where = "loom::precond::Isai::Factory::generate";
    if (!system) throw BadInput(where, "the system matrix is null");
    const auto* csr = dynamic_cast<const matrix::Csr<V, I>*>(system.get());
    if (csr == nullptr) {
        const auto& op = *system;
        throw NotSupported(where, std::string("an ISAI needs a matrix::Csr<") + type_name<V>() +
                                      ", " + type_name<I>() + "> system matrix; got " +
                                      detail::demangle(typeid(op)));
    }
    return std::make_shared<Isai>(this->executor(), *csr, params_);
}

template <typename V, typename I>
std::shared_ptr<LinOp<V>> Isai<V, I>::Factory::generate_impl(
    std::shared_ptr<const LinOp<V>> system) const
{
    return generate(std::move(system));
}

template <typename V, typename I>
Isai<V, I>::Isai(std::shared_ptr<const Executor> exec, const matrix::Csr<V, I>& A,
                 const Parameters& params)
    : LinOp<V>(std::move(exec), A.size()), params_(params)
{
    std::optional<matrix::Csr<V, I>> moved;
    if (!A.executor()->same_memory_as(*this->executor())) moved.emplace(this->executor(), A);
    m_ = std::make_shared<const matrix::Csr<V, I>>(sparse::isai(moved ? *moved : A, params.isai));
}

template <typename V, typename I>
void Isai<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    m_->apply(b, x);
}

template <typename V, typename I>
void Isai<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                            matrix::Dense<V>& x) const
{
    m_->apply(alpha, b, beta, x);
}

#define LOOM_INSTANTIATE_ISAI_PRECOND(V, I) template class Isai<V, I>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ISAI_PRECOND)

}  // namespace loom::precond
