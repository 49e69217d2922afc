// Sequential multigrid setup kernels: rows and aggregates in order (bodies in rows.hpp).
#include "base/instantiate.hpp"
#include "multigrid/kernels/kernels.hpp"
#include "multigrid/kernels/rows.hpp"

namespace loom::multigrid::reference {

template <typename V, typename I>
setup_rows::StrengthRows<V, I> strength_rows(const matrix::Csr<V, I>& A,
                                             const matrix::Dense<V>& diagonal, double theta)
{
    return {A.row_ptrs().data(), A.col_idxs().data(), A.values().data(),
            diagonal.data(),     diagonal.stride(),   theta * theta};
}

template <typename V, typename I>
void strength_row_nnz(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                      const matrix::Dense<V>& diagonal, double theta, Array<I>& row_nnz)
{
    const auto strength = strength_rows(A, diagonal, theta);
    for (size_type r = 0; r < A.rows(); ++r) row_nnz.data()[r] = strength.count(r);
}

template <typename V, typename I>
void strength_fill(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                   const matrix::Dense<V>& diagonal, double theta, matrix::Csr<V, I>& result)
{
    const auto strength = strength_rows(A, diagonal, theta);
    for (size_type r = 0; r < A.rows(); ++r) {
        strength.copy(r, result.row_ptrs().data()[r], result.col_idxs().data(),
                      result.values().data());
    }
}

template <typename V, typename I>
size_type l1_inverse_diagonal(const ReferenceExecutor&, const matrix::Csr<V, I>& A,
                              Array<V>& inverse)
{
    size_type first_zero = A.rows();
    for (size_type r = A.rows(); r-- > 0;) {
        inverse.data()[r] = setup_rows::l1_inverse(A.row_ptrs().data(), A.values().data(), r);
        if (inverse.data()[r] == V{0}) first_zero = r;
    }
    return first_zero;
}

template <typename V, typename I>
void tentative_pattern(const ReferenceExecutor&, const Array<I>& aggregate_of, size_type m,
                       matrix::Csr<V, I>& P)
{
    const size_type n = aggregate_of.size();
    for (size_type r = 0; r <= n; ++r) P.row_ptrs().data()[r] = static_cast<I>(r * m);
    for (size_type r = 0; r < n; ++r) {
        for (size_type j = 0; j < m; ++j) {
            P.col_idxs().data()[r * m + j] =
                static_cast<I>(static_cast<size_type>(aggregate_of.data()[r]) * m + j);
            P.values().data()[r * m + j] = V{1};
        }
    }
}

template <typename V, typename I>
size_type orthonormalize_aggregates(const ReferenceExecutor&, const matrix::Csr<V, I>& members,
                                    const matrix::Dense<V>& B, matrix::Csr<V, I>& P,
                                    matrix::Dense<V>& coarse)
{
    const size_type m = B.cols();
    for (size_type a = 0; a < members.rows(); ++a) {
        setup_rows::orthonormalize_aggregate(members.row_ptrs().data(), members.col_idxs().data(),
                                             B.data(), B.stride(), m, P.values().data(),
                                             coarse.data(), coarse.stride(), a);
        if (setup_rows::has_failed(coarse.data(), m, coarse.stride(), a)) return a;
    }
    return members.rows();
}

template <typename V, typename I>
void pairwise_choose(const matrix::Csr<V, I>& S, const matrix::Dense<V>& diagonal,
                     const Array<I>& partner, bool matched, Array<I>& choice)
{
    for (size_type v = 0; v < S.rows(); ++v) {
        choice.data()[v] =
            partner.data()[v] >= 0
                ? I{-1}
                : setup_rows::strongest_neighbour(S.row_ptrs().data(), S.col_idxs().data(),
                                                  S.values().data(), diagonal.data(),
                                                  diagonal.stride(), partner.data(), matched, v);
    }
}

template <typename V, typename I>
void pairwise_propose(const ReferenceExecutor&, const matrix::Csr<V, I>& S,
                      const matrix::Dense<V>& diagonal, const Array<I>& partner,
                      Array<I>& proposal)
{
    pairwise_choose(S, diagonal, partner, false, proposal);
}

template <typename V, typename I>
void pairwise_join(const ReferenceExecutor&, const matrix::Csr<V, I>& S,
                   const matrix::Dense<V>& diagonal, const Array<I>& partner, Array<I>& joined)
{
    pairwise_choose(S, diagonal, partner, true, joined);
}

template <typename I>
size_type pairwise_accept(const ReferenceExecutor&, const Array<I>& proposal, Array<I>& partner)
{
    size_type paired = 0;
    for (size_type v = 0; v < proposal.size(); ++v) {
        const auto p = proposal.data()[v];
        if (p >= 0 && proposal.data()[p] == static_cast<I>(v)) {
            partner.data()[v] = p;
            paired = 1;
        }
    }
    return paired;
}

template <typename I>
void pair_root_flags(const ReferenceExecutor&, const Array<I>& partner, const Array<I>& joined,
                     Array<I>& flags)
{
    for (size_type v = 0; v < partner.size(); ++v) {
        flags.data()[v] =
            setup_rows::pair_root(partner.data(), joined.data(), v) == static_cast<I>(v) ? 1 : 0;
    }
}

template <typename I>
void pair_aggregates(const ReferenceExecutor&, const Array<I>& partner, const Array<I>& joined,
                     const Array<I>& positions, Array<I>& aggregate_of, Array<I>& roots)
{
    for (size_type v = 0; v < partner.size(); ++v) {
        const auto root = setup_rows::pair_root(partner.data(), joined.data(), v);
        aggregate_of.data()[v] = positions.data()[root];
        if (root == static_cast<I>(v)) roots.data()[positions.data()[v]] = root;
    }
}

template <typename V, typename I>
void transpose_positions(const ReferenceExecutor&, const matrix::Csr<V, I>& P,
                         const matrix::Csr<V, I>& R, Array<I>& positions)
{
    for (size_type r = 0; r < P.rows(); ++r) {
        setup_rows::transpose_positions_of_row(P.row_ptrs().data(), P.col_idxs().data(),
                                               R.row_ptrs().data(), R.col_idxs().data(), r,
                                               positions.data());
    }
}

template <typename V, typename I>
void conj_transpose_values(const ReferenceExecutor&, const matrix::Csr<V, I>& P,
                           const Array<I>& positions, matrix::Csr<V, I>& R)
{
    for (size_type k = 0; k < P.nnz(); ++k) {
        R.values().data()[positions.data()[k]] = setup_rows::conjugate(P.values().data()[k]);
    }
}

template <typename V>
void start_vector(const ReferenceExecutor&, matrix::Dense<V>& x)
{
    for (size_type i = 0; i < x.rows(); ++i) {
        x.data()[i * x.stride()] = static_cast<V>(setup_rows::start_value(i));
    }
}

template <typename I>
void gather_indices(const ReferenceExecutor&, const Array<I>& table, const Array<I>& indices,
                    Array<I>& out)
{
    for (size_type k = 0; k < indices.size(); ++k) {
        out.data()[k] = table.data()[indices.data()[k]];
    }
}

template <typename I>
void spread_blocks(const ReferenceExecutor&, const Array<I>& values, size_type block, I scale,
                   Array<I>& out)
{
    for (size_type v = 0; v < out.size(); ++v) {
        const auto node = v / block;
        out.data()[v] = static_cast<I>(
            (values.size() == 0 ? static_cast<I>(node) : values.data()[node]) * scale);
    }
}

LOOM_INSTANTIATE_MULTIGRID_ALL_KERNELS(ReferenceExecutor)

}  // namespace loom::multigrid::reference
