// LinOpFactory: something configured once and then bound to many system matrices — a solver
// or a preconditioner. generate(A) returns an operator for A (a solver of A, an approximate
// inverse of A); the factory keeps no reference to A and may serve many matrices, e.g. one
// per time step. Any LinOpFactory can be a solver's preconditioner.
//
// Implementing one: derive, and override generate_impl (A arrives non-null). A concrete
// factory may also offer a typed `generate` returning its own operator type; it hides this
// one, which stays usable through the base class.
#pragma once

#include <memory>
#include <utility>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/linop.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

template <typename V>
class LinOpFactory {
public:
    using value_type = V;

    virtual ~LinOpFactory() = default;

    /// Where the generated operators live and run.
    const std::shared_ptr<const Executor>& executor() const noexcept { return exec_; }

    /// An operator bound to `system`. BadInput when system is null; the concrete factory
    /// raises what else it checks (DimensionMismatch for a non-square system, ...).
    std::shared_ptr<LinOp<V>> generate(std::shared_ptr<const LinOp<V>> system) const
    {
        if (!system) {
            throw BadInput("loom::LinOpFactory::generate", "the system matrix is null");
        }
        return generate_impl(std::move(system));
    }

protected:
    explicit LinOpFactory(std::shared_ptr<const Executor> exec) : exec_(std::move(exec))
    {
        if (!exec_) throw BadInput("loom::LinOpFactory", "the executor is null");
    }
    LinOpFactory(const LinOpFactory&) = default;
    LinOpFactory& operator=(const LinOpFactory&) = default;

    virtual std::shared_ptr<LinOp<V>> generate_impl(
        std::shared_ptr<const LinOp<V>> system) const = 0;

private:
    std::shared_ptr<const Executor> exec_;
};

}  // namespace loom

LOOM_PUBLIC_END
