// The multigrid setup kernels written once for OpenMP and CUDA on the unified launchers
// (base/parallel.hpp): a row, an entry or an aggregate per index, the bodies in rows.hpp.
// One aggregate per index in the QR: aggregates hold a few dozen rows and m <= 6 vectors,
// so a thread's sequential Gram-Schmidt is short and the aggregates are many.
#pragma once

#include "base/array_kernels.hpp"
#include "base/parallel.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "multigrid/kernels/rows.hpp"

namespace loom::multigrid::unified {

inline constexpr const char* where = "loom::multigrid (setup)";

/// The smaller of two values, for parallel_reduce.
struct Min {
    template <typename T>
    LOOM_HOST_DEVICE T operator()(const T& a, const T& b) const
    {
        return b < a ? b : a;
    }
};

/// A's rows for the strength filter, values as exec's kernels see them.
template <typename Exec, typename V, typename I>
auto strength_rows(const Exec& exec, const matrix::Csr<V, I>& A,
                   const matrix::Dense<V>& diagonal, double theta)
{
    const auto vals = loom::detail::kernel_data(exec, A.values().data());
    using D = std::remove_const_t<std::remove_pointer_t<decltype(vals)>>;
    return setup_rows::StrengthRows<D, I>{A.row_ptrs().data(),
                                          A.col_idxs().data(),
                                          vals,
                                          loom::detail::kernel_data(exec, diagonal.data()),
                                          diagonal.stride(),
                                          theta * theta};
}

template <typename Exec, typename V, typename I>
void strength_row_nnz(const Exec& exec, const matrix::Csr<V, I>& A,
                      const matrix::Dense<V>& diagonal, double theta, Array<I>& row_nnz)
{
    const auto strength = strength_rows(exec, A, diagonal, theta);
    I* counts = row_nnz.data();
    loom::detail::parallel_for_uneven(
        exec, A.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) { counts[r] = strength.count(r); }, where);
}

template <typename Exec, typename V, typename I>
void strength_fill(const Exec& exec, const matrix::Csr<V, I>& A,
                   const matrix::Dense<V>& diagonal, double theta, matrix::Csr<V, I>& result)
{
    const auto strength = strength_rows(exec, A, diagonal, theta);
    const I* out_ptrs = result.row_ptrs().data();
    I* out_cols = result.col_idxs().data();
    const auto out_vals = loom::detail::kernel_data(exec, result.values().data());
    loom::detail::parallel_for_uneven(
        exec, A.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            strength.copy(r, out_ptrs[r], out_cols, out_vals);
        },
        where);
}

template <typename Exec, typename V, typename I>
size_type l1_inverse_diagonal(const Exec& exec, const matrix::Csr<V, I>& A, Array<V>& inverse)
{
    const I* ptrs = A.row_ptrs().data();
    const auto vals = loom::detail::kernel_data(exec, A.values().data());
    const auto out = loom::detail::kernel_data(exec, inverse.data());
    const size_type rows = A.rows();
    loom::detail::parallel_for_uneven(
        exec, rows, [=] LOOM_HOST_DEVICE(size_type r) { out[r] = setup_rows::l1_inverse(ptrs, vals, r); },
        where);
    return loom::detail::parallel_reduce(
        exec, rows,
        [=] LOOM_HOST_DEVICE(size_type r) {
            return setup_rows::squared_magnitude(out[r]) == 0 ? r : rows;
        },
        rows, Min{}, where);
}

template <typename Exec, typename V, typename I>
void tentative_pattern(const Exec& exec, const Array<I>& aggregate_of, size_type m,
                       matrix::Csr<V, I>& P)
{
    const I* aggregate = aggregate_of.data();
    I* ptrs = P.row_ptrs().data();
    I* cols = P.col_idxs().data();
    const auto vals = loom::detail::kernel_data(exec, P.values().data());
    using D = std::remove_pointer_t<decltype(vals)>;
    const size_type n = aggregate_of.size();
    loom::detail::parallel_for(
        exec, n + 1, [=] LOOM_HOST_DEVICE(size_type r) { ptrs[r] = static_cast<I>(r * m); },
        where);
    loom::detail::parallel_for(
        exec, n, m,
        [=] LOOM_HOST_DEVICE(size_type r, size_type j) {
            cols[r * m + j] = static_cast<I>(static_cast<size_type>(aggregate[r]) * m + j);
            vals[r * m + j] = D(1);
        },
        where);
}

template <typename Exec, typename V, typename I>
size_type orthonormalize_aggregates(const Exec& exec, const matrix::Csr<V, I>& members,
                                    const matrix::Dense<V>& B, matrix::Csr<V, I>& P,
                                    matrix::Dense<V>& coarse)
{
    const I* first = members.row_ptrs().data();
    const I* rows = members.col_idxs().data();
    const auto b = loom::detail::kernel_data(exec, B.data());
    const auto q = loom::detail::kernel_data(exec, P.values().data());
    const auto r = loom::detail::kernel_data(exec, coarse.data());
    const size_type bstride = B.stride();
    const size_type rstride = coarse.stride();
    const size_type m = B.cols();
    const size_type count = members.rows();
    loom::detail::parallel_for_uneven(
        exec, count,
        [=] LOOM_HOST_DEVICE(size_type a) {
            setup_rows::orthonormalize_aggregate(first, rows, b, bstride, m, q, r, rstride, a);
        },
        where);
    return loom::detail::parallel_reduce(
        exec, count,
        [=] LOOM_HOST_DEVICE(size_type a) {
            return setup_rows::has_failed(r, m, rstride, a) ? a : count;
        },
        count, Min{}, where);
}

template <typename Exec, typename V, typename I>
void pairwise_choose(const Exec& exec, const matrix::Csr<V, I>& S,
                     const matrix::Dense<V>& diagonal, const Array<I>& partner, bool matched,
                     Array<I>& choice)
{
    const I* ptrs = S.row_ptrs().data();
    const I* cols = S.col_idxs().data();
    const auto vals = loom::detail::kernel_data(exec, S.values().data());
    const auto diag = loom::detail::kernel_data(exec, diagonal.data());
    const size_type stride = diagonal.stride();
    const I* partners = partner.data();
    I* out = choice.data();
    loom::detail::parallel_for_uneven(
        exec, S.rows(),
        [=] LOOM_HOST_DEVICE(size_type v) {
            out[v] = partners[v] >= 0
                         ? I{-1}
                         : setup_rows::strongest_neighbour(ptrs, cols, vals, diag, stride,
                                                           partners, matched, v);
        },
        where);
}

template <typename Exec, typename V, typename I>
void pairwise_propose(const Exec& exec, const matrix::Csr<V, I>& S,
                      const matrix::Dense<V>& diagonal, const Array<I>& partner,
                      Array<I>& proposal)
{
    pairwise_choose(exec, S, diagonal, partner, false, proposal);
}

template <typename Exec, typename V, typename I>
void pairwise_join(const Exec& exec, const matrix::Csr<V, I>& S,
                   const matrix::Dense<V>& diagonal, const Array<I>& partner, Array<I>& joined)
{
    pairwise_choose(exec, S, diagonal, partner, true, joined);
}

template <typename Exec, typename I>
size_type pairwise_accept(const Exec& exec, const Array<I>& proposal, Array<I>& partner)
{
    const I* proposed = proposal.data();
    I* matched = partner.data();
    // Each vertex writes its own entry only, from proposals fixed before: a pure gather.
    loom::detail::parallel_for(
        exec, proposal.size(),
        [=] LOOM_HOST_DEVICE(size_type v) {
            const auto p = proposed[v];
            if (p >= 0 && proposed[p] == static_cast<I>(v)) matched[v] = p;
        },
        where);
    return loom::detail::parallel_reduce(
        exec, proposal.size(),
        [=] LOOM_HOST_DEVICE(size_type v) -> size_type {
            const auto p = proposed[v];
            return p >= 0 && proposed[p] == static_cast<I>(v) ? 1 : 0;
        },
        size_type{0}, loom::detail::Max{}, where);
}

template <typename Exec, typename I>
void pair_root_flags(const Exec& exec, const Array<I>& partner, const Array<I>& joined,
                     Array<I>& flags)
{
    const I* matched = partner.data();
    const I* join = joined.data();
    I* out = flags.data();
    loom::detail::parallel_for(
        exec, partner.size(),
        [=] LOOM_HOST_DEVICE(size_type v) {
            out[v] = setup_rows::pair_root(matched, join, v) == static_cast<I>(v) ? 1 : 0;
        },
        where);
}

template <typename Exec, typename I>
void pair_aggregates(const Exec& exec, const Array<I>& partner, const Array<I>& joined,
                     const Array<I>& positions, Array<I>& aggregate_of, Array<I>& roots)
{
    const I* matched = partner.data();
    const I* join = joined.data();
    const I* position = positions.data();
    I* aggregate = aggregate_of.data();
    I* root_of = roots.data();
    loom::detail::parallel_for(
        exec, partner.size(),
        [=] LOOM_HOST_DEVICE(size_type v) {
            const auto root = setup_rows::pair_root(matched, join, v);
            aggregate[v] = position[root];
            if (root == static_cast<I>(v)) root_of[position[v]] = root;
        },
        where);
}

template <typename Exec, typename V, typename I>
void transpose_positions(const Exec& exec, const matrix::Csr<V, I>& P,
                         const matrix::Csr<V, I>& R, Array<I>& positions)
{
    const I* p_ptrs = P.row_ptrs().data();
    const I* p_cols = P.col_idxs().data();
    const I* r_ptrs = R.row_ptrs().data();
    const I* r_cols = R.col_idxs().data();
    I* out = positions.data();
    loom::detail::parallel_for_uneven(
        exec, P.rows(),
        [=] LOOM_HOST_DEVICE(size_type r) {
            setup_rows::transpose_positions_of_row(p_ptrs, p_cols, r_ptrs, r_cols, r, out);
        },
        where);
}

template <typename Exec, typename V, typename I>
void conj_transpose_values(const Exec& exec, const matrix::Csr<V, I>& P,
                           const Array<I>& positions, matrix::Csr<V, I>& R)
{
    const auto from = loom::detail::kernel_data(exec, P.values().data());
    const auto to = loom::detail::kernel_data(exec, R.values().data());
    const I* at = positions.data();
    loom::detail::parallel_for(
        exec, P.nnz(),
        [=] LOOM_HOST_DEVICE(size_type k) { to[at[k]] = setup_rows::conjugate(from[k]); },
        where);
}

template <typename Exec, typename V>
void start_vector(const Exec& exec, matrix::Dense<V>& x)
{
    const auto out = loom::detail::kernel_data(exec, x.data());
    using D = std::remove_pointer_t<decltype(out)>;
    const size_type stride = x.stride();
    loom::detail::parallel_for(
        exec, x.rows(),
        [=] LOOM_HOST_DEVICE(size_type i) { out[i * stride] = D(setup_rows::start_value(i)); },
        where);
}

template <typename Exec, typename I>
void gather_indices(const Exec& exec, const Array<I>& table, const Array<I>& indices,
                    Array<I>& out)
{
    array_kernels::gather(exec, table, indices, out, where);
}

template <typename Exec, typename I>
void spread_blocks(const Exec& exec, const Array<I>& values, size_type block, I scale,
                   Array<I>& out)
{
    const I* in = values.data();
    const bool identity = values.size() == 0;
    I* o = out.data();
    loom::detail::parallel_for(
        exec, out.size(),
        [=] LOOM_HOST_DEVICE(size_type v) {
            const auto node = v / block;
            o[v] = static_cast<I>((identity ? static_cast<I>(node) : in[node]) * scale);
        },
        where);
}

}  // namespace loom::multigrid::unified
