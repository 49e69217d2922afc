#include "multigrid/setup.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "loom/sparse/spmv.hpp"
#include "solver/pseudo_random.hpp"

namespace loom::multigrid {
namespace {

// The strength filter, the L1 diagonal and the orthonormal tentative prolongator run on the
// host for now: they need a row-wise kernel (a relative drop, a row sum of magnitudes, a
// batched QR over aggregates) that the sparse families do not have yet (NOTES.md). The
// default setup (theta = 0, piecewise constant, Jacobi or Chebyshev) never calls them.

std::shared_ptr<const Executor> host() { return ReferenceExecutor::create(); }

template <typename V>
double magnitude(const V& x)
{
    return static_cast<double>(std::abs(x));
}

/// A host copy's diagonal, duplicates summed.
template <typename V, typename I>
std::vector<double> diagonal_magnitudes(const matrix::Csr<V, I>& A)
{
    std::vector<double> diagonal(static_cast<std::size_t>(A.rows()), 0.0);
    const I* ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* vals = A.values().data();
    for (size_type r = 0; r < A.rows(); ++r) {
        V sum{0};
        for (I e = ptrs[r]; e < ptrs[r + 1]; ++e) {
            if (cols[e] == static_cast<I>(r)) sum += vals[e];
        }
        diagonal[r] = magnitude(sum);
    }
    return diagonal;
}

}  // namespace

template <typename V, typename I>
matrix::Csr<V, I> strength_graph(const matrix::Csr<V, I>& A, double theta)
{
    if (theta <= 0) return A;
    const matrix::Csr<V, I> h(host(), A);
    const auto diagonal = diagonal_magnitudes(h);
    const I* ptrs = h.row_ptrs().data();
    const I* cols = h.col_idxs().data();
    const V* vals = h.values().data();
    std::vector<I> row_ptrs{0};
    std::vector<I> col_idxs;
    std::vector<V> values;
    for (size_type r = 0; r < h.rows(); ++r) {
        for (I e = ptrs[r]; e < ptrs[r + 1]; ++e) {
            const auto c = static_cast<size_type>(cols[e]);
            const double a = magnitude(vals[e]);
            if (c == r || a * a >= theta * theta * diagonal[r] * diagonal[c]) {
                col_idxs.push_back(cols[e]);
                values.push_back(vals[e]);
            }
        }
        row_ptrs.push_back(static_cast<I>(col_idxs.size()));
    }
    return matrix::Csr<V, I>::from_host(A.executor(), A.size(), row_ptrs, col_idxs, values);
}

template <typename V, typename I>
Array<V> l1_inverse_diagonal(const matrix::Csr<V, I>& A)
{
    const matrix::Csr<V, I> h(host(), A);
    const I* ptrs = h.row_ptrs().data();
    const V* vals = h.values().data();
    std::vector<V> inverse(static_cast<std::size_t>(h.rows()));
    for (size_type r = 0; r < h.rows(); ++r) {
        double sum = 0;
        for (I e = ptrs[r]; e < ptrs[r + 1]; ++e) sum += magnitude(vals[e]);
        if (sum == 0) {
            throw NumericalError("loom::multigrid::l1_inverse_diagonal",
                                 "row " + std::to_string(r) + " is zero");
        }
        inverse[r] = static_cast<V>(1.0 / sum);
    }
    return Array<V>(A.executor(), inverse);
}

template <typename V, typename I>
matrix::Csr<V, I> piecewise_constant(const graph::Aggregation<I>& aggregation)
{
    const auto& exec = aggregation.aggregate_of.executor();
    const size_type n = aggregation.aggregate_of.size();
    std::vector<I> row_ptrs(static_cast<std::size_t>(n + 1));
    for (size_type r = 0; r <= n; ++r) row_ptrs[r] = static_cast<I>(r);
    matrix::Dense<V> ones(exec, dim2{n, 1});
    ones.fill(V{1});
    return matrix::Csr<V, I>(exec, dim2{n, aggregation.count()}, Array<I>(exec, row_ptrs),
                             Array<I>(exec, aggregation.aggregate_of), std::move(ones.values()));
}

template <typename V, typename I>
TentativeProlongator<V, I> orthonormal_tentative(const graph::Aggregation<I>& aggregation,
                                                 const matrix::Dense<V>& vectors)
{
    constexpr const char* where = "loom::multigrid::orthonormal_tentative";
    const auto& exec = aggregation.aggregate_of.executor();
    const auto aggregate_of = aggregation.aggregate_of.to_host();
    const auto B = vectors.to_host();
    const auto n = static_cast<size_type>(aggregate_of.size());
    const size_type m = vectors.cols();
    const size_type count = aggregation.count();
    // Members of every aggregate in increasing row order (a counting sort).
    std::vector<size_type> first(static_cast<std::size_t>(count + 1), 0);
    for (const auto a : aggregate_of) ++first[a + 1];
    for (size_type a = 0; a < count; ++a) first[a + 1] += first[a];
    std::vector<size_type> members(static_cast<std::size_t>(n));
    auto next = first;
    for (size_type r = 0; r < n; ++r) members[next[aggregate_of[r]]++] = r;

    std::vector<V> Q(static_cast<std::size_t>(n * m));                // row r: Q(r, 0..m-1)
    std::vector<V> R(static_cast<std::size_t>(count * m * m), V{0});  // row a m + i
    for (size_type a = 0; a < count; ++a) {
        const size_type begin = first[a];
        const size_type end = first[a + 1];
        for (size_type j = 0; j < m; ++j) {
            double original = 0;
            for (size_type k = begin; k < end; ++k) {
                const auto r = members[k];
                Q[r * m + j] = B[r * m + j];
                original += squared_norm(B[r * m + j]);
            }
            for (size_type i = 0; i < j; ++i) {
                V projection{0};
                for (size_type k = begin; k < end; ++k) {
                    const auto r = members[k];
                    projection += conj(Q[r * m + i]) * Q[r * m + j];
                }
                for (size_type k = begin; k < end; ++k) {
                    const auto r = members[k];
                    Q[r * m + j] -= projection * Q[r * m + i];
                }
                R[(a * m + i) * m + j] = projection;
            }
            double norm = 0;
            for (size_type k = begin; k < end; ++k) norm += squared_norm(Q[members[k] * m + j]);
            norm = std::sqrt(norm);
            // Relative to the column's own size: what is left is rounding, not a direction.
            if (!(norm > 1e-10 * std::sqrt(original))) {
                throw NumericalError(
                    where, "aggregate " + std::to_string(a) + " (" + std::to_string(end - begin) +
                               " rows) cannot represent near-null-space "
                               "vector " +
                               std::to_string(j) + " independently of the previous ones");
            }
            for (size_type k = begin; k < end; ++k) Q[members[k] * m + j] /= static_cast<V>(norm);
            R[(a * m + j) * m + j] = static_cast<V>(norm);
        }
    }
    std::vector<I> row_ptrs(static_cast<std::size_t>(n + 1));
    std::vector<I> col_idxs(static_cast<std::size_t>(n * m));
    for (size_type r = 0; r <= n; ++r) row_ptrs[r] = static_cast<I>(r * m);
    for (size_type r = 0; r < n; ++r) {
        for (size_type j = 0; j < m; ++j)
            col_idxs[r * m + j] = static_cast<I>(aggregate_of[r] * m + j);
    }
    return {matrix::Csr<V, I>::from_host(exec, dim2{n, count * m}, row_ptrs, col_idxs, Q),
            matrix::Dense<V>::from_host(exec, dim2{count * m, m}, R)};
}

template <typename V, typename I>
double spectral_radius(const matrix::Csr<V, I>& A, const Array<V>& inverse_diagonal, int iterations)
{
    const auto& exec = A.executor();
    const size_type n = A.rows();
    if (n == 0) return 0;
    auto x = matrix::Dense<V>::from_host(exec, dim2{n, 1},
                                         solver::detail::pseudo_random_values<V>(n, -0.5, 1.0));
    matrix::Dense<V> y(exec, dim2{n, 1});
    matrix::Dense<remove_complex_t<V>> norm(exec, dim2{1, 1});
    blas::nrm2(x, norm);
    double previous = static_cast<double>(norm.to_host()[0]);
    double rho = 0;
    for (int it = 0; it < iterations && previous > 0; ++it) {
        blas::scal(static_cast<V>(1.0 / previous), x);
        sparse::spmv(sparse::Mode::none, V{1}, A, x, V{0}, y);
        sparse::apply_diagonal(sparse::Mode::none, V{1}, inverse_diagonal, y, V{0}, y);
        blas::nrm2(y, norm);
        rho = static_cast<double>(norm.to_host()[0]);
        previous = rho;
        std::swap(x, y);
    }
    return rho;
}

#define LOOM_INSTANTIATE_MULTIGRID_SETUP(V, I)                                              \
    template matrix::Csr<V, I> strength_graph(const matrix::Csr<V, I>&, double);            \
    template Array<V> l1_inverse_diagonal(const matrix::Csr<V, I>&);                        \
    template matrix::Csr<V, I> piecewise_constant<V, I>(const graph::Aggregation<I>&);      \
    template TentativeProlongator<V, I> orthonormal_tentative(const graph::Aggregation<I>&, \
                                                              const matrix::Dense<V>&);     \
    template double spectral_radius(const matrix::Csr<V, I>&, const Array<V>&, int);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID_SETUP)

}  // namespace loom::multigrid
