#include "loom/solver/operators.hpp"

#include <algorithm>
#include <string>

#include "base/instantiate.hpp"
#include "log/demangle.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/spmv.hpp"
#include "solver/scaled_apply.hpp"

namespace loom {
namespace {

template <typename V>
void check_not_null(const std::vector<std::shared_ptr<const LinOp<V>>>& ops, const char* where,
                    const char* what)
{
    if (ops.empty()) throw BadInput(where, std::string("no ") + what + " given");
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!ops[i]) {
            throw BadInput(where, std::string(what) + " " + std::to_string(i) + " is null");
        }
    }
}

template <typename V, typename I>
std::shared_ptr<const LinOp<V>> csr_conj_transpose(std::shared_ptr<const matrix::Csr<V, I>> A)
{
    auto spmv_as = [A](sparse::Mode mode) {
        return [A, mode](const matrix::Dense<V>& b, matrix::Dense<V>& x) {
            sparse::spmv(mode, V{1}, *A, b, V{0}, x);
        };
    };
    return std::make_shared<MatrixFree<V>>(A->executor(), A->size().transposed(),
                                           spmv_as(sparse::Mode::conj_transpose),
                                           spmv_as(sparse::Mode::none));
}

template <typename V>
std::shared_ptr<const LinOp<V>> dense_conj_transpose(const matrix::Dense<V>& A)
{
    const auto values = A.to_host();
    std::vector<V> transposed(values.size());
    for (size_type r = 0; r < A.rows(); ++r) {
        for (size_type c = 0; c < A.cols(); ++c) {
            transposed[c * A.rows() + r] = loom::conj(values[r * A.cols() + c]);
        }
    }
    return std::make_shared<matrix::Dense<V>>(
        matrix::Dense<V>::from_host(A.executor(), A.size().transposed(), transposed));
}

}  // namespace

template <typename V>
std::shared_ptr<const LinOp<V>> conj_transpose(const std::shared_ptr<const LinOp<V>>& op)
{
    constexpr const char* where = "loom::conj_transpose";
    if (!op) throw BadInput(where, "the operator is null");
    if (const auto* t = dynamic_cast<const ConjTransposable<V>*>(op.get())) {
        return t->conj_transpose();
    }
#if LOOM_HAS_INT32
    if (auto csr = std::dynamic_pointer_cast<const matrix::Csr<V, int32>>(op)) {
        return csr_conj_transpose(std::move(csr));
    }
#endif
#if LOOM_HAS_INT64
    if (auto csr = std::dynamic_pointer_cast<const matrix::Csr<V, int64>>(op)) {
        return csr_conj_transpose(std::move(csr));
    }
#endif
    if (const auto* dense = dynamic_cast<const matrix::Dense<V>*>(op.get())) {
        return dense_conj_transpose(*dense);
    }
    const auto& op_ref = *op;
    throw NotSupported(where, detail::demangle(typeid(op_ref)) +
                                  " cannot apply its conjugate transpose (implement "
                                  "loom::ConjTransposable for it)");
}

// ---------------------------------------------------------------- Identity

template <typename V>
Identity<V>::Identity(std::shared_ptr<const Executor> exec, size_type n)
    : LinOp<V>(std::move(exec), {n, n})
{
    if (!this->executor()) throw BadInput("loom::Identity", "the executor is null");
    if (n < 0) throw BadInput("loom::Identity", "negative size " + std::to_string(n));
}

template <typename V>
std::shared_ptr<const LinOp<V>> Identity<V>::conj_transpose() const
{
    return std::make_shared<Identity>(this->executor(), this->size().rows);
}

template <typename V>
void Identity<V>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    blas::copy(b, x);
}

template <typename V>
void Identity<V>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                             matrix::Dense<V>& x) const
{
    blas::axpby(alpha, b, beta, x);
}

// ---------------------------------------------------------------- Composition

template <typename V>
Composition<V>::Composition(std::vector<std::shared_ptr<const LinOp<V>>> factors)
    : factors_(std::move(factors))
{
    constexpr const char* where = "loom::Composition";
    check_not_null(factors_, where, "factor");
    for (std::size_t i = 0; i + 1 < factors_.size(); ++i) {
        if (factors_[i]->size().cols != factors_[i + 1]->size().rows) {
            throw DimensionMismatch(where, "factor " + std::to_string(i), factors_[i]->size(),
                                    "factor " + std::to_string(i + 1), factors_[i + 1]->size(),
                                    "the product is undefined");
        }
    }
    this->set_executor(factors_.front()->executor());
    this->set_size({factors_.front()->size().rows, factors_.back()->size().cols});
    intermediates_.resize(factors_.size() - 1);
}

template <typename V>
std::shared_ptr<const LinOp<V>> Composition<V>::conj_transpose() const
{
    std::vector<std::shared_ptr<const LinOp<V>>> reversed;
    reversed.reserve(factors_.size());
    for (auto it = factors_.rbegin(); it != factors_.rend(); ++it) {
        reversed.push_back(loom::conj_transpose(*it));
    }
    return std::make_shared<Composition>(std::move(reversed));
}

template <typename V>
const matrix::Dense<V>& Composition<V>::apply_inner(const matrix::Dense<V>& b) const
{
    const auto* input = &b;
    for (auto i = static_cast<size_type>(factors_.size()) - 2; i >= 0; --i) {
        const auto& factor = *factors_[i + 1];
        auto& out = loom::detail::sized(intermediates_[i], factor.executor(),
                                        {factor.size().rows, b.cols()});
        factor.apply(*input, out);
        input = &out;
    }
    return *input;
}

template <typename V>
void Composition<V>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    factors_.front()->apply(apply_inner(b), x);
}

template <typename V>
void Composition<V>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                matrix::Dense<V>& x) const
{
    factors_.front()->apply(alpha, apply_inner(b), beta, x);
}

// ---------------------------------------------------------------- Combination

template <typename V>
Combination<V>::Combination(std::vector<V> coefficients,
                            std::vector<std::shared_ptr<const LinOp<V>>> operators)
    : coefficients_(std::move(coefficients)), operators_(std::move(operators))
{
    constexpr const char* where = "loom::Combination";
    check_not_null(operators_, where, "operator");
    if (coefficients_.size() != operators_.size()) {
        throw BadInput(where, std::to_string(coefficients_.size()) + " coefficients for " +
                                  std::to_string(operators_.size()) + " operators");
    }
    for (std::size_t i = 1; i < operators_.size(); ++i) {
        if (operators_[i]->size() != operators_[0]->size()) {
            throw DimensionMismatch(where, "operator 0", operators_[0]->size(),
                                    "operator " + std::to_string(i), operators_[i]->size(),
                                    "the terms of a sum must have one size");
        }
    }
    this->set_executor(operators_.front()->executor());
    this->set_size(operators_.front()->size());
}

template <typename V>
std::shared_ptr<const LinOp<V>> Combination<V>::conj_transpose() const
{
    std::vector<V> coefficients;
    std::vector<std::shared_ptr<const LinOp<V>>> operators;
    for (std::size_t i = 0; i < operators_.size(); ++i) {
        coefficients.push_back(loom::conj(coefficients_[i]));
        operators.push_back(loom::conj_transpose(operators_[i]));
    }
    return std::make_shared<Combination>(std::move(coefficients), std::move(operators));
}

template <typename V>
void Combination<V>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    apply_impl(V{1}, b, V{0}, x);
}

template <typename V>
void Combination<V>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                                matrix::Dense<V>& x) const
{
    // Each term accumulates into x: no temporary.
    operators_[0]->apply(alpha * coefficients_[0], b, beta, x);
    for (std::size_t i = 1; i < operators_.size(); ++i) {
        operators_[i]->apply(alpha * coefficients_[i], b, V{1}, x);
    }
}

// ---------------------------------------------------------------- MatrixFree

template <typename V>
MatrixFree<V>::MatrixFree(std::shared_ptr<const Executor> exec, dim2 size, Function apply,
                          Function conj_transpose_apply)
    : LinOp<V>(std::move(exec), size),
      apply_(std::move(apply)),
      conj_transpose_apply_(std::move(conj_transpose_apply))
{
    constexpr const char* where = "loom::MatrixFree";
    if (!this->executor()) throw BadInput(where, "the executor is null");
    if (!apply_) throw BadInput(where, "the apply function is empty");
    if (size.rows < 0 || size.cols < 0) {
        throw BadInput(where, "negative size " + to_string(size));
    }
}

template <typename V>
std::shared_ptr<const LinOp<V>> MatrixFree<V>::conj_transpose() const
{
    if (!conj_transpose_apply_) {
        throw NotSupported("loom::MatrixFree::conj_transpose",
                           "this matrix-free operator was built without a conjugate-transpose "
                           "function");
    }
    return std::make_shared<MatrixFree>(this->executor(), this->size().transposed(),
                                        conj_transpose_apply_, apply_);
}

template <typename V>
void MatrixFree<V>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    apply_(b, x);
}

template <typename V>
void MatrixFree<V>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                               matrix::Dense<V>& x) const
{
    loom::detail::scaled_apply(alpha, b, beta, x,
                               loom::detail::sized(result_, this->executor(), x.size()), apply_);
}

#define LOOM_INSTANTIATE_OPERATORS(V)                                                          \
    template std::shared_ptr<const LinOp<V>> conj_transpose(                                  \
        const std::shared_ptr<const LinOp<V>>&);                                               \
    template class Identity<V>;                                                                \
    template class Composition<V>;                                                             \
    template class Combination<V>;                                                             \
    template class MatrixFree<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_OPERATORS)

}  // namespace loom
