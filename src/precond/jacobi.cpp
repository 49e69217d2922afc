#include "loom/precond/jacobi.hpp"

#include <algorithm>
#include <string>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "precond/system_matrix.hpp"

namespace loom::precond {
namespace {

/// Whether user-given pointers describe n blocks of one row each.
template <typename I>
bool all_single_rows(const std::vector<I>& pointers, size_type rows)
{
    if (static_cast<size_type>(pointers.size()) != rows + 1) return false;
    for (std::size_t k = 0; k < pointers.size(); ++k) {
        if (pointers[k] != static_cast<I>(k)) return false;
    }
    return true;
}

sparse::Mode mode_of(bool conj_transposed)
{
    return conj_transposed ? sparse::Mode::conj_transpose : sparse::Mode::none;
}

}  // namespace

template <typename V, typename I>
auto Jacobi<V, I>::Builder::with_max_block_size(size_type size) -> Builder&
{
    if (size < 1 || size > sparse::max_supported_block_size) {
        throw BadInput("loom::precond::Jacobi::Builder::with_max_block_size",
                       "max_block_size " + std::to_string(size) + " is outside [1, " +
                           std::to_string(sparse::max_supported_block_size) + "]");
    }
    return this->set(&Parameters::max_block_size, size);
}

template <typename V, typename I>
auto Jacobi<V, I>::Builder::with_block_pointers(const Array<I>& pointers) -> Builder&
{
    return with_block_pointers(pointers.to_host());
}

template <typename V, typename I>
auto Jacobi<V, I>::Builder::with_accuracy(double accuracy) -> Builder&
{
    if (!(accuracy > 0 && accuracy < 1)) {
        throw BadInput("loom::precond::Jacobi::Builder::with_accuracy",
                       "accuracy " + std::to_string(accuracy) + " is outside (0, 1)");
    }
    return this->set(&Parameters::accuracy, accuracy);
}

template <typename V, typename I>
Jacobi<V, I>::Jacobi(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
                     const Parameters& params)
    : EnableGenerated<Jacobi, V, Parameters>(exec, {}, params)
{
    const auto csr = detail::square_csr_system<V, I>("loom::precond::Jacobi", system, exec);
    const auto& A = *csr;
    this->set_size(A.size());
    const bool given = !params.block_pointers.empty();
    if (given ? all_single_rows(params.block_pointers, A.rows()) : params.max_block_size == 1) {
        diagonal_ = std::make_shared<const Array<V>>(sparse::invert_diagonal(A));
        return;
    }
    const auto pointers = given ? Array<I>(A.executor(), params.block_pointers)
                                : sparse::find_blocks(A, params.max_block_size);
    if (!given && pointers.size() == A.rows() + 1) {
        // The pattern gave no block larger than a row: scalar Jacobi is the same, cheaper.
        diagonal_ = std::make_shared<const Array<V>>(sparse::invert_diagonal(A));
        return;
    }
    blocks_ = std::make_shared<const sparse::BlockDiagonalInverse<V, I>>(sparse::invert_blocks(
        A, pointers,
        {.adaptive_precision = params.adaptive_precision, .accuracy = params.accuracy}));
}

template <typename V, typename I>
Jacobi<V, I>::Jacobi(const Jacobi& other, bool conj_transposed)
    : EnableGenerated<Jacobi, V, Parameters>(other.executor(), other.size(), other.parameters()),
      blocks_(other.blocks_),
      diagonal_(other.diagonal_),
      conj_transposed_(conj_transposed)
{}

template <typename V, typename I>
size_type Jacobi<V, I>::num_blocks() const noexcept
{
    return is_scalar() ? this->size().rows : blocks_->num_blocks();
}

template <typename V, typename I>
size_type Jacobi<V, I>::storage_bytes() const noexcept
{
    return is_scalar() ? diagonal_->size() * static_cast<size_type>(sizeof(V))
                       : blocks_->storage().size();
}

template <typename V, typename I>
std::shared_ptr<const LinOp<V>> Jacobi<V, I>::conj_transpose() const
{
    return std::shared_ptr<const Jacobi>(new Jacobi(*this, !conj_transposed_));
}

template <typename V, typename I>
void Jacobi<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    apply_impl(V{1}, b, V{0}, x);
}

template <typename V, typename I>
void Jacobi<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const
{
    const auto mode = mode_of(conj_transposed_);
    if (is_scalar()) {
        sparse::apply_diagonal(mode, alpha, *diagonal_, b, beta, x);
    } else {
        sparse::apply_block_inverse(mode, alpha, *blocks_, b, beta, x);
    }
}

#define LOOM_INSTANTIATE_JACOBI(V, I) template class Jacobi<V, I>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_JACOBI)

}  // namespace loom::precond
