// FusedMM: an SDDMM whose sampled values are used at once by an SpMM, never stored:
//     z_i = sum over stored (i, j) of A of  edge(x_i . y_j, a_ij) * w_j
// that is Z = edge(X Y^T o pattern(A)) W, one pass over A. X is A.rows x k, Y A.cols x k,
// W A.cols x kw and Z A.rows x kw, all row-major. The edge operator is a built-in (EdgeOp)
// or any callable of the user's (loom/sparse/fusedmm_custom.hpp). Real value types only.
//
// Common graph-neural-network forms are named presets: gcn_aggregate (Z = A W) and
// attention_aggregate (attention scores sigmoid(q_i . k_j) on the edges, then aggregation).
#pragma once

#include <cmath>
#include <string>

#include "loom/base/names.hpp"
#include "loom/launch/macros.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmm.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// The built-in edge operators s_ij = edge(x_i . y_j, a_ij).
enum class EdgeOp { identity, scale, sigmoid };

LOOM_NAME_TABLE(EdgeOp, edge_op_names, "edge operator",
    {EdgeOp::identity, "identity", "s = x_i . y_j"},
    {EdgeOp::scale, "scale", "s = a_ij * (x_i . y_j)"},
    {EdgeOp::sigmoid, "sigmoid", "s = 1 / (1 + exp(-x_i . y_j))"},
);

EdgeOp parse_edge_op(const std::string& text);

/// The built-in operators as callables (host and device), for fusedmm_with as well.
struct IdentityEdge {
    template <typename V>
    LOOM_HOST_DEVICE V operator()(V dot, V) const
    {
        return dot;
    }
};
struct ScaleEdge {
    template <typename V>
    LOOM_HOST_DEVICE V operator()(V dot, V a) const
    {
        return a * dot;
    }
};
struct SigmoidEdge {
    template <typename V>
    LOOM_HOST_DEVICE V operator()(V dot, V) const
    {
        using std::exp;
        return V{1} / (V{1} + exp(-dot));
    }
};

/// Returns body(functor) with the callable of op (IdentityEdge, ScaleEdge or SigmoidEdge).
template <typename Body>
decltype(auto) with_edge_functor(EdgeOp op, Body&& body)
{
    switch (op) {
    case EdgeOp::identity: return body(IdentityEdge{});
    case EdgeOp::scale: return body(ScaleEdge{});
    default: return body(SigmoidEdge{});
    }
}

/// Z = edge(X Y^T o pattern(A)) W with a built-in operator. A, X, Y, W and Z on one executor;
/// Z shares no memory with the others. DimensionMismatch on wrong shapes, BadInput on mixed
/// executors or overlap; Z is untouched on failure. float and double, and the 16-bit storage
/// types (half, bfloat16: dot products, edge values and sums in float, Z rounded once).
template <typename V, typename I>
LOOM_EXPORT void fusedmm(EdgeOp op, const matrix::Csr<V, I>& A, const matrix::Dense<V>& X,
                         const matrix::Dense<V>& Y, const matrix::Dense<V>& W, matrix::Dense<V>& Z);

/// GCN aggregation Z = A W (the edge value is a_ij itself: no dot products), one SpMM.
template <typename V, typename I>
void gcn_aggregate(const matrix::Csr<V, I>& A, const matrix::Dense<V>& W, matrix::Dense<V>& Z)
{
    spmm(Mode::none, compute_type_t<V>{1}, A, W, compute_type_t<V>{0}, Z);
}

/// Graph-attention-style aggregation: the score of edge (i, j) is sigmoid(q_i . k_j), and
/// z_i = sum_j score_ij h_j over the edges of A, in one pass (scores never stored).
template <typename V, typename I>
void attention_aggregate(const matrix::Csr<V, I>& A, const matrix::Dense<V>& Q,
                         const matrix::Dense<V>& K, const matrix::Dense<V>& H, matrix::Dense<V>& Z)
{
    fusedmm(EdgeOp::sigmoid, A, Q, K, H, Z);
}

}  // namespace loom::sparse

LOOM_PUBLIC_END
