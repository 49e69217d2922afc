// LinOp: anything that maps a (multi-)vector b to x = op(b). Matrices, solvers and
// preconditioners are all LinOps. This is an interface only; it knows no kernel.
// Loggers attached with add_logger() see every apply (log/logger.hpp).
#pragma once

#include <memory>
#include <utility>

#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/log/logger.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

namespace matrix {
template <typename V>
class Dense;
}

template <typename V>
class LinOp : public log::Loggable {
public:
    using value_type = V;

    virtual ~LinOp() = default;

    dim2 size() const noexcept { return size_; }
    const std::shared_ptr<const Executor>& executor() const noexcept { return exec_; }

    /// x = op(b). DimensionMismatch when b is not size().cols x k or x not size().rows x k.
    void apply(const matrix::Dense<V>& b, matrix::Dense<V>& x) const;
    /// x = alpha * op(b) + beta * x (x is not read when beta is zero).
    void apply(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const;

protected:
    LinOp() = default;
    LinOp(std::shared_ptr<const Executor> exec, dim2 size) : exec_(std::move(exec)), size_(size)
    {}
    LinOp(const LinOp&) = default;
    LinOp(LinOp&&) noexcept = default;
    LinOp& operator=(const LinOp&) = default;
    LinOp& operator=(LinOp&&) noexcept = default;

    void set_size(dim2 size) noexcept { size_ = size; }
    void set_executor(std::shared_ptr<const Executor> exec) noexcept { exec_ = std::move(exec); }

    /// Called with checked sizes, b and x on this operator's executor.
    virtual void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const = 0;
    virtual void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                            matrix::Dense<V>& x) const = 0;

private:
    std::shared_ptr<const Executor> exec_;
    dim2 size_{};
};

}  // namespace loom

LOOM_PUBLIC_END
