// Approximate minimum degree through SuiteSparse AMD (include/loom/graph/amd.hpp). CMake
// defines LOOM_HAS_AMD for this file alone when it finds AMD, so that the rest of the library
// neither sees its headers nor rebuilds when it appears.
#include "loom/graph/amd.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include "base/instantiate.hpp"
#include "graph/mis2/pattern.hpp"
#include "loom/base/error.hpp"

#ifndef LOOM_HAS_AMD
#define LOOM_HAS_AMD 0
#endif
#if LOOM_HAS_AMD
#include <amd.h>
#endif

namespace loom::graph {
namespace {

constexpr const char* where = "loom::graph::amd";

#if LOOM_HAS_AMD
/// AMD's index type for Loom's: int for 32-bit indices, SuiteSparse_long otherwise.
template <typename I>
using AmdIndex = std::conditional_t<sizeof(I) <= sizeof(int), int, SuiteSparse_long>;

template <typename I>
std::vector<AmdIndex<I>> to_amd(const Array<I>& indices)
{
    const auto host = indices.to_host();
    std::vector<AmdIndex<I>> result(host.begin(), host.end());
    // AMD refuses null arrays, which an empty vector may hand it.
    result.reserve(1);
    return result;
}

template <typename T>
T order(T n, const T* ptrs, const T* cols, T* perm)
{
    if constexpr (std::is_same_v<T, int>) {
        return amd_order(n, ptrs, cols, perm, nullptr, nullptr);
    } else {
        return amd_l_order(n, ptrs, cols, perm, nullptr, nullptr);
    }
}

/// A's rows read as columns are A^T's CSC; AMD orders the pattern of A^T + A, which is A's
/// graph, and its P[k] (the original row that becomes row k) is already rcm's convention.
template <typename V, typename I>
std::vector<I> amd_permutation(const matrix::Csr<V, I>& A)
{
    const auto ptrs = to_amd(A.row_ptrs());
    const auto cols = to_amd(A.col_idxs());
    std::vector<AmdIndex<I>> perm(A.rows());
    perm.reserve(1);
    const auto status =
        order(static_cast<AmdIndex<I>>(A.rows()), ptrs.data(), cols.data(), perm.data());
    if (status == AMD_OUT_OF_MEMORY) throw Error(where, "AMD ran out of memory");
    if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED) {
        throw BadInput(where,
                       "AMD rejected the matrix's pattern (status " + std::to_string(status) + ")");
    }
    return std::vector<I>(perm.begin(), perm.end());
}
#endif

}  // namespace

bool amd_available() { return LOOM_HAS_AMD; }

template <typename V, typename I>
Array<I> amd(const matrix::Csr<V, I>& A)
{
    detail::graph_executor(where, A);
#if LOOM_HAS_AMD
    return Array<I>(A.executor(), amd_permutation(A));
#else
    throw NotCompiled(where, "SuiteSparse AMD (install Debian libsuitesparse-dev)");
#endif
}

#define LOOM_INSTANTIATE_AMD(V, I) template Array<I> amd(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_AMD)

}  // namespace loom::graph
