#include "loom/base/linop.hpp"

#include <optional>
#include <typeinfo>

#include "base/instantiate_storage.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"

namespace loom {
namespace {

template <typename V>
void check_apply_sizes(dim2 op, const matrix::Dense<V>& b, const matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::LinOp::apply";
    if (b.rows() != op.cols) {
        throw DimensionMismatch(where, "the operator", op, "b", b.size(),
                                "b needs one row per operator column");
    }
    if (x.rows() != op.rows) {
        throw DimensionMismatch(where, "the operator", op, "x", x.size(),
                                "x needs one row per operator row");
    }
    if (b.cols() != x.cols()) {
        throw DimensionMismatch(where, "b", b.size(), "x", x.size(),
                                "b and x need the same number of columns");
    }
}

/// Runs `body(b', x')` with b and x on `exec`, copying them there (and x back) when they
/// live on another executor, so that a caller may pass host vectors to a GPU operator.
template <typename V, typename Body>
void on_executor(const std::shared_ptr<const Executor>& exec, const matrix::Dense<V>& b,
                 matrix::Dense<V>& x, bool reads_x, Body&& body)
{
    const bool b_here = b.executor() && b.executor()->same_memory_as(*exec);
    const bool x_here = x.executor() && x.executor()->same_memory_as(*exec);
    if (b_here && x_here) {
        body(b, x);
        return;
    }
    std::optional<matrix::Dense<V>> b_moved;
    if (!b_here) b_moved.emplace(exec, b);
    std::optional<matrix::Dense<V>> x_moved;
    if (!x_here) {
        if (reads_x) {
            x_moved.emplace(exec, x);
        } else {
            x_moved.emplace(exec, x.size());
        }
    }
    body(b_here ? b : *b_moved, x_here ? x : *x_moved);
    if (!x_here) x = *x_moved;
}

template <typename V>
void notify_apply(const LinOp<V>& op, size_type columns,
                  void (log::Logger::*event)(const log::ApplyEvent&))
{
    const log::ApplyEvent e{&op, &typeid(op), op.size(), columns};
    for (const auto& logger : op.loggers()) ((*logger).*event)(e);
}

}  // namespace

template <typename V>
void LinOp<V>::apply(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    check_apply_sizes(size_, b, x);
    if (has_loggers()) notify_apply(*this, b.cols(), &log::Logger::on_apply_started);
    on_executor(exec_, b, x, false,
                [&](const matrix::Dense<V>& bb, matrix::Dense<V>& xx) { apply_impl(bb, xx); });
    if (has_loggers()) notify_apply(*this, b.cols(), &log::Logger::on_apply_finished);
}

template <typename V>
void LinOp<V>::apply(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const
{
    check_apply_sizes(size_, b, x);
    if (has_loggers()) notify_apply(*this, b.cols(), &log::Logger::on_apply_started);
    on_executor(exec_, b, x, beta != V{0}, [&](const matrix::Dense<V>& bb, matrix::Dense<V>& xx) {
        apply_impl(alpha, bb, beta, xx);
    });
    if (has_loggers()) notify_apply(*this, b.cols(), &log::Logger::on_apply_finished);
}

#define LOOM_INSTANTIATE_LINOP(V) template class LinOp<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_LINOP)
LOOM_FOR_EACH_STORAGE_TYPE(LOOM_INSTANTIATE_LINOP)

}  // namespace loom
