// ISAI (include/loom/sparse/isai.hpp): the pattern on the host, the rows' systems by backend;
// the SPD kind's scaling of each row on the host.
#include "loom/sparse/isai.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/triangle.hpp"
#include "sparse/ilu/kernels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* where = "loom::sparse::isai";

/// T's rows sorted with duplicates summed, on the host.
template <typename V, typename I>
void sorted_rows(const matrix::Csr<V, I>& T, std::vector<I>& ptrs, std::vector<I>& cols,
                 std::vector<V>& values)
{
    const auto t_ptrs = T.row_ptrs().to_host();
    const auto t_cols = T.col_idxs().to_host();
    const auto t_values = T.values().to_host();
    ptrs.assign(1, 0);
    cols.clear();
    values.clear();
    std::vector<std::pair<I, V>> row;
    for (size_type r = 0; r < T.rows(); ++r) {
        row.clear();
        for (auto k = t_ptrs[r]; k < t_ptrs[r + 1]; ++k) row.emplace_back(t_cols[k], t_values[k]);
        std::sort(row.begin(), row.end(),
                  [](const auto& x, const auto& y) { return x.first < y.first; });
        for (const auto& [c, v] : row) {
            if (cols.size() > static_cast<std::size_t>(ptrs.back()) && cols.back() == c) {
                values.back() += v;
            } else {
                cols.push_back(c);
                values.push_back(v);
            }
        }
        ptrs.push_back(static_cast<I>(cols.size()));
    }
}

/// The pattern of T^power with the diagonal: row i of P_k is the union of the rows of P_1
/// that P_{k-1} names in row i.
template <typename I>
void power_pattern(size_type n, const std::vector<I>& ptrs, const std::vector<I>& cols,
                   int power, std::vector<I>& m_ptrs, std::vector<I>& m_cols)
{
    std::vector<std::vector<I>> base(n);
    for (size_type i = 0; i < n; ++i) {
        std::set<I> row(cols.begin() + ptrs[i], cols.begin() + ptrs[i + 1]);
        row.insert(static_cast<I>(i));
        base[i].assign(row.begin(), row.end());
    }
    auto current = base;
    for (int k = 1; k < power; ++k) {
        for (size_type i = 0; i < n; ++i) {
            std::set<I> row;
            for (const I j : current[i]) row.insert(base[j].begin(), base[j].end());
            current[i].assign(row.begin(), row.end());
        }
    }
    m_ptrs.assign(1, 0);
    m_cols.clear();
    for (const auto& row : current) {
        m_cols.insert(m_cols.end(), row.begin(), row.end());
        m_ptrs.push_back(static_cast<I>(m_cols.size()));
    }
}

/// Row i of the FSAI factor G from its row system's solution m (M(i, J) A(J, J) = e_i, so m =
/// conj(A(J, J)^-1 e_i), whose last entry, at the diagonal, is (A(J, J)^-1)_ii > 0 for an SPD
/// A): scaled by 1 / sqrt(m_ii), (G A G^H)_ii = 1.
template <typename V, typename I>
void scale_to_unit_diagonal(const std::vector<I>& ptrs, std::vector<V>& values)
{
    for (std::size_t i = 0; i + 1 < ptrs.size(); ++i) {
        const auto diagonal = std::real(values[ptrs[i + 1] - 1]);  // the last column is i
        if (!(diagonal > 0)) {
            throw NumericalError(where, "row " + std::to_string(i) +
                                            ": A(J, J)^-1 has a non-positive diagonal entry (" +
                                            std::to_string(diagonal) +
                                            "): A is not positive definite");
        }
        const auto scale = 1 / std::sqrt(diagonal);
        for (auto k = ptrs[i]; k < ptrs[i + 1]; ++k) values[k] *= scale;
    }
}

}  // namespace

template <typename V, typename I>
matrix::Csr<V, I> isai(const matrix::Csr<V, I>& A, const IsaiOptions& options)
{
    if (!A.executor()) throw BadInput(where, "A has no executor (it was default-constructed)");
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(where, "A", A.size(), "A", A.size(),
                                "an approximate inverse needs a square matrix");
    }
    if (options.power < 1) {
        throw BadInput(where, "IsaiOptions::power must be >= 1, got " +
                                  std::to_string(options.power));
    }
    const auto n = A.rows();
    std::vector<I> ptrs, cols, m_ptrs, m_cols;
    std::vector<V> values;
    if (options.kind == IsaiKind::general || options.kind == IsaiKind::spd) {
        sorted_rows(A, ptrs, cols, values);
    } else {
        sorted_rows(triangle(A, options.kind == IsaiKind::lower ? blas::Uplo::lower
                                                                 : blas::Uplo::upper),
                    ptrs, cols, values);
    }
    if (options.kind == IsaiKind::spd) {
        // G's pattern is that of tril(A)^power; its rows' systems take the whole A.
        std::vector<I> l_ptrs, l_cols;
        std::vector<V> l_values;
        sorted_rows(triangle(A, blas::Uplo::lower), l_ptrs, l_cols, l_values);
        power_pattern(n, l_ptrs, l_cols, options.power, m_ptrs, m_cols);
    } else {
        power_pattern(n, ptrs, cols, options.power, m_ptrs, m_cols);
    }
    std::vector<V> m_values(m_cols.size());
    const auto rows = [&](const auto& e) {
        return reference::isai_rows(e, n, ptrs.data(), cols.data(), values.data(),
                                    m_ptrs.data(), m_cols.data(), m_values.data());
    };
    const auto singular = A.executor()->run(loom::detail::overloaded{
        [&](const ReferenceExecutor& e) { return rows(e); },
        [&]([[maybe_unused]] const OmpExecutor& e) -> size_type {
            LOOM_OMP_CALL(where, return omp::isai_rows(e, n, ptrs.data(), cols.data(),
                                                       values.data(), m_ptrs.data(),
                                                       m_cols.data(), m_values.data()));
        },
        // The rows' systems are host code; on CUDA they run on the reference backend.
        [&](const CudaExecutor&) { return rows(*ReferenceExecutor::create()); }});
    if (singular < n) {
        throw NumericalError(where, "row " + std::to_string(singular) +
                                        ": A(J, J) on the row's pattern J is singular");
    }
    if (options.kind == IsaiKind::spd) scale_to_unit_diagonal(m_ptrs, m_values);
    return matrix::Csr<V, I>::from_host(A.executor(), A.size(), m_ptrs, m_cols, m_values);
}

#define LOOM_INSTANTIATE_ISAI_FUNCTION(V, I) \
    template matrix::Csr<V, I> isai(const matrix::Csr<V, I>&, const IsaiOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ISAI_FUNCTION)

}  // namespace loom::sparse
