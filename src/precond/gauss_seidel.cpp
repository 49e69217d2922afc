#include "loom/precond/gauss_seidel.hpp"

#include <string>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "precond/system_matrix.hpp"

namespace loom::precond {

GaussSeidelDirection parse_gauss_seidel_direction(const std::string& text)
{
    return names_of(GaussSeidelDirection{})
        .parse(text, "loom::precond::parse_gauss_seidel_direction");
}

const char* to_string(GaussSeidelDirection direction) { return names_of(direction).to_string(direction); }

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_direction(GaussSeidelDirection direction) -> Builder&
{
    this->params_.direction = direction;
    return *this;
}

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_variant(GaussSeidelVariant variant) -> Builder&
{
    this->params_.variant = variant;
    return *this;
}

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_relaxation(double omega) -> Builder&
{
    if (!(omega > 0 && omega < 2)) {
        throw BadInput("loom::precond::GaussSeidel::Builder::with_relaxation",
                       "relaxation factor " + std::to_string(omega) + " is outside (0, 2)");
    }
    this->params_.relaxation = omega;
    return *this;
}

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_sweeps(size_type sweeps) -> Builder&
{
    if (sweeps == 0) {
        throw BadInput("loom::precond::GaussSeidel::Builder::with_sweeps",
                       "at least one sweep is needed");
    }
    this->params_.sweeps = sweeps;
    return *this;
}

template <typename V, typename I>
auto GaussSeidel<V, I>::Builder::with_coloring(graph::ColoringAlgorithm algorithm) -> Builder&
{
    this->params_.coloring = algorithm;
    return *this;
}

template <typename V, typename I>
GaussSeidel<V, I>::GaussSeidel(std::shared_ptr<const Executor> exec,
                               std::shared_ptr<const LinOp<V>> system, const Parameters& params)
    : EnableGenerated<GaussSeidel, V, Parameters>(exec, {}, params)
{
    auto A = detail::square_csr_system<V, I>("loom::precond::GaussSeidel", system, exec);
    this->set_size(A->size());
    inverse_diagonal_ = sparse::invert_diagonal(*A);
    graph::ColoringHandle handle({.algorithm = params.coloring});
    order_ = params.variant == GaussSeidelVariant::point ? sparse::point_sweep_order(*A, handle)
                                                         : sparse::cluster_sweep_order(*A, handle);
    matrix_ = std::move(A);
}

template <typename V, typename I>
void GaussSeidel<V, I>::smooth(const matrix::Dense<V>& b, matrix::Dense<V>& x,
                               size_type sweeps) const
{
    const V omega = static_cast<V>(this->parameters().relaxation);
    const auto sweep = [&](sparse::SweepDirection direction) {
        sparse::gauss_seidel_sweep(*matrix_, inverse_diagonal_, order_, direction, omega, b, x);
    };
    for (size_type s = 0; s < sweeps; ++s) {
        if (this->parameters().direction != GaussSeidelDirection::backward) {
            sweep(sparse::SweepDirection::forward);
        }
        if (this->parameters().direction != GaussSeidelDirection::forward) {
            sweep(sparse::SweepDirection::backward);
        }
    }
}

template <typename V, typename I>
void GaussSeidel<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    x.fill(V{0});
    smooth(b, x, this->parameters().sweeps);
}

template <typename V, typename I>
void GaussSeidel<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                   matrix::Dense<V>& x) const
{
    matrix::Dense<V> result(this->executor(), x.size());
    apply_impl(b, result);
    blas::axpby(alpha, result, beta, x);
}

#define LOOM_INSTANTIATE_GAUSS_SEIDEL_PRECOND(V, I) template class GaussSeidel<V, I>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GAUSS_SEIDEL_PRECOND)

}  // namespace loom::precond
