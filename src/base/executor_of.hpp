// The executor a kernel runs on, taken from its operand: a default-constructed matrix has none,
// and the public function says so instead of dereferencing null.
#pragma once

#include <memory>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"

namespace loom::detail {

/// operand's executor; BadInput naming `where` when it has none.
template <typename Operand>
const std::shared_ptr<const Executor>& executor_of(const char* where, const Operand& operand)
{
    if (!operand.executor()) {
        throw BadInput(where, "the matrix has no executor (it was default-constructed)");
    }
    return operand.executor();
}

}  // namespace loom::detail
