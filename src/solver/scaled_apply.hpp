// x = alpha op(b) + beta x for the operators that compute only x = op(b) (a triangular solve,
// a preconditioner's sweeps, a multigrid cycle, a user callable): op(b) lands in a temporary,
// which is then combined with x.
#pragma once

#include <memory>

#include "loom/base/linop.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::detail {

/// `cache` as a multi-vector of `size` on exec, reallocated only when its shape changes.
template <typename V>
matrix::Dense<V>& sized(matrix::Dense<V>& cache, const std::shared_ptr<const Executor>& exec,
                        dim2 size)
{
    if (cache.size() != size || !cache.executor()) cache = matrix::Dense<V>(exec, size);
    return cache;
}

/// x = alpha op(b) + beta x, where `apply(b, result)` writes op(b) into `result` (x's size).
template <typename V, typename Apply>
void scaled_apply(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x,
                  matrix::Dense<V>& result, Apply&& apply)
{
    apply(b, result);
    blas::axpby(alpha, result, beta, x);
}

/// The same through a temporary allocated on exec for this call.
template <typename V, typename Apply>
void scaled_apply(const std::shared_ptr<const Executor>& exec, V alpha, const matrix::Dense<V>& b,
                  V beta, matrix::Dense<V>& x, Apply&& apply)
{
    matrix::Dense<V> result(exec, x.size());
    scaled_apply(alpha, b, beta, x, result, apply);
}

/// A LinOp whose scaled apply, x = alpha op(b) + beta x, is scaled_apply of its plain apply
/// (which it overrides), through a result kept across applies: the 6-line override that
/// every such operator wrote, and no allocation per apply of a preconditioner.
template <typename V>
class PlainApplyLinOp : public LinOp<V> {
public:
    using LinOp<V>::LinOp;

protected:
    using LinOp<V>::apply_impl;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const final
    {
        scaled_apply(alpha, b, beta, x, sized(scaled_, this->executor(), x.size()),
                     [this](const auto& in, auto& out) { this->apply_impl(in, out); });
    }

private:
    mutable matrix::Dense<V> scaled_;
};

}  // namespace loom::detail
