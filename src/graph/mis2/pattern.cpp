// The symmetrized pattern is SpAdd's symbolic phase on A and A^T: their union, on any backend.
#include "graph/mis2/pattern.hpp"

#include "base/executor_of.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"

namespace loom::graph::detail {

template <typename V, typename I>
const Executor& graph_executor(const char* where, const matrix::Csr<V, I>& A)
{
    const auto& exec = loom::detail::executor_of(where, A);
    if (A.rows() != A.cols()) {
        throw BadInput(where, "a graph needs a square matrix, got " + std::to_string(A.rows()) +
                                  " x " + std::to_string(A.cols()));
    }
    return *exec;
}

template <typename V, typename I>
matrix::Csr<V, I> symmetrized_pattern(const matrix::Csr<V, I>& A)
{
    sparse::SpaddHandle<V, I> handle;
    matrix::Csr<V, I> result;
    sparse::spadd_symbolic(handle, A, sparse::transpose(A), result);
    return result;
}

#define LOOM_INSTANTIATE_GRAPH_PATTERN(V, I)                                        \
    template const Executor& graph_executor(const char*, const matrix::Csr<V, I>&); \
    template matrix::Csr<V, I> symmetrized_pattern(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GRAPH_PATTERN)

}  // namespace loom::graph::detail
