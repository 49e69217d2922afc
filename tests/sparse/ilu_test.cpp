// Incomplete factorizations: exact answers where there is no fill (tridiagonal), L U = A on
// A's pattern, level-of-fill patterns, every kind on every backend against the reference,
// ParILU's convergence, ParILUT's fill limit, pivots and shifts, numeric reuse, bad input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/ilu.hpp"
#include "loom/sparse/isai.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/types.hpp"

namespace {

using loom::dim2;
using loom::size_type;
using loom::sparse::DiagonalShift;
using loom::sparse::IluKind;
using loom::sparse::IluOptions;
namespace matrix = loom::matrix;
namespace sparse = loom::sparse;

const std::vector<IluKind> all_kinds{IluKind::ilu0,   IluKind::iluk,  IluKind::ic0,
                                     IluKind::ick,    IluKind::parilu, IluKind::paric,
                                     IluKind::parilut, IluKind::parict};

template <typename T>
class Ilu : public ::testing::Test {
protected:
    using V = typename T::value_type;
    using I = typename T::index_type;
    using Csr = matrix::Csr<V, I>;
    using Dense = std::vector<std::vector<V>>;

    std::shared_ptr<const loom::Executor> ref = loom::test::reference();

    /// A random matrix with a dominant diagonal; Hermitian when `hermitian`.
    Csr dominant(size_type n, double per_row, bool hermitian, std::uint64_t seed = 7) const
    {
        std::mt19937_64 rng(seed);
        std::poisson_distribution<int> count(per_row);
        std::uniform_int_distribution<size_type> col(0, n - 1);
        Dense a(n, std::vector<V>(n));
        std::vector<std::vector<bool>> stored(n, std::vector<bool>(n, false));
        for (size_type r = 0; r < n; ++r) {
            for (int k = count(rng); k > 0; --k) {
                const auto c = col(rng);
                const auto v = loom::test::random_value<V>(rng);
                a[r][c] += v;
                stored[r][c] = true;
                if (hermitian) {
                    a[c][r] += loom::conj(v);
                    stored[c][r] = true;
                }
            }
        }
        for (size_type r = 0; r < n; ++r) {
            double sum = 0;
            for (size_type c = 0; c < n; ++c) sum += std::abs(a[r][c]);
            a[r][r] = V(static_cast<loom::remove_complex_t<V>>(sum + 1));
            stored[r][r] = true;
        }
        return from_dense(a, stored);
    }

    Csr from_dense(const Dense& a, const std::vector<std::vector<bool>>& stored) const
    {
        std::vector<I> ptrs{0}, cols;
        std::vector<V> values;
        for (size_type r = 0; r < static_cast<size_type>(a.size()); ++r) {
            for (size_type c = 0; c < static_cast<size_type>(a.size()); ++c) {
                if (!stored[r][c]) continue;
                cols.push_back(static_cast<I>(c));
                values.push_back(a[r][c]);
            }
            ptrs.push_back(static_cast<I>(cols.size()));
        }
        const auto n = static_cast<size_type>(a.size());
        return Csr::from_host(ref, dim2{n, n}, ptrs, cols, values);
    }

    static Dense to_dense(const Csr& M)
    {
        Dense d(M.rows(), std::vector<V>(M.cols()));
        const auto ptrs = M.row_ptrs().to_host();
        const auto cols = M.col_idxs().to_host();
        const auto values = M.values().to_host();
        for (size_type r = 0; r < M.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) d[r][cols[k]] += values[k];
        }
        return d;
    }

    /// L R, with R = U, or L^H for IC.
    static Dense product(const Csr& L, const Csr* U)
    {
        const auto l = to_dense(L);
        const auto n = static_cast<size_type>(l.size());
        Dense r(n, std::vector<V>(n));
        if (U) {
            r = to_dense(*U);
        } else {
            for (size_type i = 0; i < n; ++i) {
                for (size_type j = 0; j < n; ++j) r[i][j] = loom::conj(l[j][i]);
            }
        }
        Dense p(n, std::vector<V>(n));
        for (size_type i = 0; i < n; ++i) {
            for (size_type k = 0; k < n; ++k) {
                if (l[i][k] == V{}) continue;
                for (size_type j = 0; j < n; ++j) p[i][j] += l[i][k] * r[k][j];
            }
        }
        return p;
    }

    struct Factors {
        Csr L, U;
        double shift = 0;
        size_type l_nnz = 0, u_nnz = 0;
    };

    Factors factor(const std::shared_ptr<const loom::Executor>& exec, const Csr& A,
                   const IluOptions& options) const
    {
        Factors f;
        const Csr a(exec, A);
        sparse::IluHandle<V, I> handle(options);
        sparse::ilu_symbolic(handle, a, f.L, f.U);
        sparse::ilu_numeric(handle, a, f.L, f.U);
        f.shift = handle.shift();
        f.l_nnz = handle.l_nnz();
        f.u_nnz = handle.u_nnz();
        return f;
    }

    static double max_difference(const Csr& X, const Csr& Y)
    {
        const auto x = X.values().to_host();
        const auto y = Y.values().to_host();
        EXPECT_EQ(x.size(), y.size());
        EXPECT_EQ(X.col_idxs().to_host(), Y.col_idxs().to_host());
        double worst = 0;
        for (size_t k = 0; k < std::min(x.size(), y.size()); ++k) {
            worst = std::max(worst, static_cast<double>(std::abs(x[k] - y[k])) /
                                        (1 + static_cast<double>(std::abs(y[k]))));
        }
        return worst;
    }

    static double tolerance() { return std::is_same_v<loom::remove_complex_t<V>, float> ? 1e-4 : 1e-11; }
};

TYPED_TEST_SUITE(Ilu, loom::test::ValueIndexTypes);

TYPED_TEST(Ilu, Ilu0OfATridiagonalIsTheExactLu)
{
    using V = typename TestFixture::V;
    const size_type n = 50;
    typename TestFixture::Dense a(n, std::vector<V>(n));
    std::vector<std::vector<bool>> stored(n, std::vector<bool>(n, false));
    for (size_type i = 0; i < n; ++i) {
        a[i][i] = V(4 + 0.01 * i);
        stored[i][i] = true;
        if (i > 0) {
            a[i][i - 1] = V(-1 - 0.02 * i);
            a[i - 1][i] = V(-1 + 0.03 * i);
            stored[i][i - 1] = stored[i - 1][i] = true;
        }
    }
    const auto A = this->from_dense(a, stored);
    // Thomas: l_i = a_{i,i-1} / u_{i-1}, u_i = a_ii - l_i a_{i-1,i}.
    std::vector<V> l(n), u(n);
    u[0] = a[0][0];
    for (size_type i = 1; i < n; ++i) {
        l[i] = a[i][i - 1] / u[i - 1];
        u[i] = a[i][i] - l[i] * a[i - 1][i];
    }
    for (const auto& exec : loom::test::backends()) {
        const auto f = this->factor(exec, A, {.kind = IluKind::ilu0});
        const auto L = TestFixture::to_dense(f.L);
        const auto U = TestFixture::to_dense(f.U);
        for (size_type i = 0; i < n; ++i) {
            EXPECT_NEAR(std::abs(L[i][i] - V(1)), 0, this->tolerance());
            EXPECT_NEAR(std::abs(U[i][i] - u[i]), 0, this->tolerance() * 10) << i;
            if (i > 0) {
                EXPECT_NEAR(std::abs(L[i][i - 1] - l[i]), 0, this->tolerance()) << i;
                EXPECT_NEAR(std::abs(U[i - 1][i] - a[i - 1][i]), 0, this->tolerance()) << i;
            }
        }
        EXPECT_EQ(f.l_nnz, 2 * n - 1);
        EXPECT_EQ(f.u_nnz, 2 * n - 1);
    }
}

TYPED_TEST(Ilu, ProductMatchesAOnItsPattern)
{
    for (const auto kind : {IluKind::ilu0, IluKind::ic0}) {
        const bool ic = sparse::is_cholesky(kind);
        const auto A = this->dominant(60, 3, ic);
        const auto f = this->factor(this->ref, A, {.kind = kind});
        const auto p = TestFixture::product(f.L, ic ? nullptr : &f.U);
        const auto a = TestFixture::to_dense(A);
        const auto ptrs = A.row_ptrs().to_host();
        const auto cols = A.col_idxs().to_host();
        for (size_type r = 0; r < A.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                const auto c = cols[k];
                EXPECT_NEAR(std::abs(p[r][c] - a[r][c]), 0, this->tolerance() * 100)
                    << sparse::to_string(kind) << " (" << r << ", " << c << ")";
            }
        }
    }
}

TYPED_TEST(Ilu, LevelOfFillGrowsToTheFullLuPattern)
{
    using V = typename TestFixture::V;
    const auto A = this->dominant(40, 2, false);
    // The pattern of the complete LU without pivoting: symbolic Gaussian elimination.
    auto full = TestFixture::to_dense(A);
    std::vector<std::vector<bool>> nz(40, std::vector<bool>(40));
    for (int i = 0; i < 40; ++i) {
        for (int j = 0; j < 40; ++j) nz[i][j] = full[i][j] != V{} || i == j;
    }
    for (int k = 0; k < 40; ++k) {
        for (int i = k + 1; i < 40; ++i) {
            if (!nz[i][k]) continue;
            for (int j = k + 1; j < 40; ++j) nz[i][j] = nz[i][j] || nz[k][j];
        }
    }
    size_type full_nnz = 0;
    for (const auto& row : nz) full_nnz += std::count(row.begin(), row.end(), true);
    size_type previous = 0;
    for (const int level : {0, 1, 2, 3, 40}) {
        const auto f = this->factor(this->ref, A, {.kind = IluKind::iluk, .level = level});
        const auto nnz = f.l_nnz + f.u_nnz - 40;
        EXPECT_GE(nnz, previous) << level;
        previous = nnz;
        if (level == 40) EXPECT_EQ(nnz, full_nnz);
    }
    // With every fill entry the factorization is the exact LU: L U = A everywhere.
    const auto f = this->factor(this->ref, A, {.kind = IluKind::iluk, .level = 40});
    const auto p = TestFixture::product(f.L, &f.U);
    for (int i = 0; i < 40; ++i) {
        for (int j = 0; j < 40; ++j) {
            EXPECT_NEAR(std::abs(p[i][j] - full[i][j]), 0, this->tolerance() * 100);
        }
    }
}

TYPED_TEST(Ilu, EveryKindOnEveryBackendMatchesTheReference)
{
    // 5 entries a row, and 24 (OpenMP's elimination looks long rows' positions up).
    for (const auto kind : all_kinds) {
        for (const auto [n, per_row] : {std::pair<size_type, double>{300, 5}, {80, 24}}) {
            const auto A = this->dominant(n, per_row, sparse::is_cholesky(kind));
            const IluOptions options{.kind = kind, .level = 2, .sweeps = 3};
            const auto expected = this->factor(this->ref, A, options);
            for (const auto& exec : loom::test::backends()) {
                const auto f = this->factor(exec, A, options);
                EXPECT_LE(TestFixture::max_difference(f.L, expected.L), this->tolerance())
                    << sparse::to_string(kind) << " " << per_row << " on " << exec->name();
                if (!sparse::is_cholesky(kind)) {
                    EXPECT_LE(TestFixture::max_difference(f.U, expected.U), this->tolerance())
                        << sparse::to_string(kind) << " " << per_row << " on " << exec->name();
                }
            }
        }
    }
}

TYPED_TEST(Ilu, ParIluConvergesTowardsIlu0)
{
    for (const auto [par, exact] : {std::pair{IluKind::parilu, IluKind::ilu0},
                                    std::pair{IluKind::paric, IluKind::ic0}}) {
        const auto A = this->dominant(200, 4, sparse::is_cholesky(par));
        const auto ilu0 = this->factor(this->ref, A, {.kind = exact});
        double previous = INFINITY;
        for (const int sweeps : {0, 1, 2, 4, 8}) {
            const auto f = this->factor(this->ref, A, {.kind = par, .sweeps = sweeps});
            const auto error = TestFixture::max_difference(f.L, ilu0.L);
            EXPECT_TRUE(error < previous || error == 0) << sparse::to_string(par) << " " << sweeps;
            previous = error;
        }
        const auto f = this->factor(this->ref, A, {.kind = par, .sweeps = 60});
        EXPECT_LE(TestFixture::max_difference(f.L, ilu0.L), this->tolerance() * 10);
    }
}

TYPED_TEST(Ilu, ThresholdFactorsStayUnderTheFillLimit)
{
    const auto A = this->dominant(300, 6, false);
    const auto S = this->dominant(300, 6, true);
    size_type lower = 0;
    {
        const auto ptrs = S.row_ptrs().to_host();
        const auto cols = S.col_idxs().to_host();
        for (size_type r = 0; r < S.rows(); ++r) {
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) lower += cols[k] <= r;
        }
    }
    for (const double fill : {1.0, 1.5, 3.0}) {
        const auto f = this->factor(this->ref, A, {.kind = IluKind::parilut, .fill_limit = fill});
        EXPECT_LE(f.l_nnz + f.u_nnz - A.rows(), fill * A.nnz()) << fill;
        const auto c = this->factor(this->ref, S, {.kind = IluKind::parict, .fill_limit = fill});
        EXPECT_LE(c.l_nnz, fill * lower) << fill;
    }
    // A larger limit admits fill: the factors are then more than A's pattern.
    const auto f = this->factor(this->ref, A, {.kind = IluKind::parilut, .fill_limit = 3.0});
    EXPECT_GT(f.l_nnz + f.u_nnz - A.rows(), A.nnz());
}

TYPED_TEST(Ilu, ZeroPivotNamesItsRowUnlessShifting)
{
    using V = typename TestFixture::V;
    const size_type n = 6;
    typename TestFixture::Dense a(n, std::vector<V>(n));
    std::vector<std::vector<bool>> stored(n, std::vector<bool>(n, false));
    for (size_type i = 0; i < n; ++i) {
        a[i][i] = i == 3 ? V{0} : V{2};
        stored[i][i] = true;
    }
    const auto A = this->from_dense(a, stored);
    for (const auto& exec : loom::test::backends()) {
        try {
            this->factor(exec, A, {.kind = IluKind::ilu0});
            ADD_FAILURE() << "no NumericalError on " << exec->name();
        } catch (const loom::NumericalError& e) {
            EXPECT_NE(std::string(e.what()).find("row 3"), std::string::npos) << e.what();
        }
        const auto f = this->factor(exec, A, {.kind = IluKind::ilu0,
                                              .diagonal_shift = DiagonalShift::on});
        EXPECT_GT(f.shift, 0);
        // IC shifts by default; off makes the same pivot an error.
        const auto c = this->factor(exec, A, {.kind = IluKind::ic0});
        EXPECT_GT(c.shift, 0);
        EXPECT_THROW(this->factor(exec, A, {.kind = IluKind::ic0,
                                            .diagonal_shift = DiagonalShift::off}),
                     loom::NumericalError);
    }
    // A matrix that needs no shift reports none.
    EXPECT_EQ(this->factor(this->ref, this->dominant(20, 2, true), {.kind = IluKind::ic0}).shift,
              0.0);
}

TYPED_TEST(Ilu, NumericReuseAfterAValueChange)
{
    using Csr = typename TestFixture::Csr;
    using V = typename TestFixture::V;
    for (const auto kind : all_kinds) {
        const bool ic = sparse::is_cholesky(kind);
        for (const auto& exec : loom::test::backends()) {
            Csr A(exec, this->dominant(60, 3, ic));
            sparse::IluHandle<V, typename TestFixture::I> handle({.kind = kind});
            Csr L, U;
            sparse::ilu_symbolic(handle, A, L, U);
            sparse::ilu_numeric(handle, A, L, U);
            auto values = A.values().to_host();
            for (auto& v : values) v = v * V(2);
            A.values() = loom::Array<V>(exec, values);
            sparse::ilu_numeric(handle, A, L, U);
            // The threshold kinds' pattern came from the old values; the rest compare with a
            // fresh factorization.
            if (kind == IluKind::parilut || kind == IluKind::parict) continue;
            const auto fresh = this->factor(exec, A, {.kind = kind});
            EXPECT_LE(TestFixture::max_difference(L, fresh.L), this->tolerance())
                << sparse::to_string(kind);
        }
    }
}

TYPED_TEST(Ilu, PatternChangeIsBadInputAndLeavesTheFactorsUntouched)
{
    using Csr = typename TestFixture::Csr;
    using V = typename TestFixture::V;
    for (const auto check : {loom::PatternCheck::cached, loom::PatternCheck::always}) {
        Csr A = this->dominant(50, 3, false);
        sparse::IluHandle<V, typename TestFixture::I> handle({.pattern_check = check});
        Csr L, U;
        sparse::ilu_symbolic(handle, A, L, U);
        sparse::ilu_numeric(handle, A, L, U);
        const auto l_before = L.values().to_host();
        const auto u_before = U.values().to_host();
        auto cols = A.col_idxs().to_host();
        std::swap(cols[0], cols[1]);
        A.col_idxs() = loom::Array<typename TestFixture::I>(this->ref, cols);
        EXPECT_THROW(sparse::ilu_numeric(handle, A, L, U), loom::BadInput);
        EXPECT_EQ(L.values().to_host(), l_before);
        EXPECT_EQ(U.values().to_host(), u_before);
    }
}

TYPED_TEST(Ilu, BadInputGivesClearErrors)
{
    using Csr = typename TestFixture::Csr;
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    Csr L, U;
    sparse::IluHandle<V, I> handle;
    const auto rect = loom::test::random_csr<V, I>(this->ref, {.rows = 4, .cols = 5});
    EXPECT_THROW(sparse::ilu_symbolic(handle, rect, L, U), loom::DimensionMismatch);
    EXPECT_FALSE(handle.analyzed());
    EXPECT_THROW(sparse::ilu_numeric(handle, this->dominant(5, 1, false), L, U), loom::BadInput);
    EXPECT_THROW(handle.shift(), loom::BadInput);
    sparse::IluHandle<V, I> negative({.kind = IluKind::iluk, .level = -1});
    EXPECT_THROW(sparse::ilu_symbolic(negative, this->dominant(5, 1, false), L, U),
                 loom::BadInput);
    EXPECT_THROW(sparse::parse_ilu_kind("lu"), loom::BadInput);
    EXPECT_EQ(sparse::parse_ilu_kind("ILUT"), IluKind::ilut);  // Saad's, no longer ParILUT
    // cuSPARSE's csrilu02: CUDA and ILU(0) only; nothing changes on refusal.
    for (const auto kind : {IluKind::ilu0, IluKind::iluk}) {
        sparse::IluHandle<V, I> vendor({.kind = kind, .algorithm = sparse::IluAlgorithm::vendor});
        EXPECT_THROW(sparse::ilu_symbolic(vendor, this->dominant(5, 1, false), L, U),
                     loom::NotSupported);
        EXPECT_FALSE(vendor.analyzed());
        EXPECT_EQ(L.rows(), 0);
    }
}

TYPED_TEST(Ilu, IsaiSolvesItsRowsSystemsAndInvertsABidiagonalExactly)
{
    using V = typename TestFixture::V;
    const auto A = this->dominant(80, 3, false);
    const auto a = TestFixture::to_dense(A);
    for (const auto kind : {sparse::IsaiKind::general, sparse::IsaiKind::lower,
                            sparse::IsaiKind::upper}) {
        for (const auto& exec : loom::test::backends()) {
            const auto M = sparse::isai(matrix::Csr<V, typename TestFixture::I>(exec, A),
                                        {.kind = kind, .power = 2});
            const auto m = TestFixture::to_dense(M);
            const auto ptrs = M.row_ptrs().to_host();
            const auto cols = M.col_idxs().to_host();
            // (M T)(i, j) = delta_ij for every j of row i's pattern.
            for (size_type i = 0; i < 80; ++i) {
                for (auto k = ptrs[i]; k < ptrs[i + 1]; ++k) {
                    const auto j = cols[k];
                    V sum{};
                    for (auto t = ptrs[i]; t < ptrs[i + 1]; ++t) {
                        const auto c = cols[t];
                        const bool inside = kind == sparse::IsaiKind::general ||
                                            (kind == sparse::IsaiKind::lower ? j <= c : j >= c);
                        if (inside) sum += m[i][c] * a[c][j];
                    }
                    EXPECT_NEAR(std::abs(sum - V(i == j ? 1 : 0)), 0, this->tolerance() * 100)
                        << exec->name() << " (" << i << ", " << j << ")";
                }
            }
        }
    }
    // A lower bidiagonal's inverse is full lower: power n gives it exactly.
    const size_type n = 12;
    typename TestFixture::Dense b(n, std::vector<V>(n));
    std::vector<std::vector<bool>> stored(n, std::vector<bool>(n, false));
    for (size_type i = 0; i < n; ++i) {
        b[i][i] = V(2);
        stored[i][i] = true;
        if (i > 0) {
            b[i][i - 1] = V(-1);
            stored[i][i - 1] = true;
        }
    }
    const auto M = TestFixture::to_dense(
        sparse::isai(this->from_dense(b, stored), {.kind = sparse::IsaiKind::lower, .power = 12}));
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            V sum{};
            for (size_type k = 0; k < n; ++k) sum += M[i][k] * b[k][j];
            EXPECT_NEAR(std::abs(sum - V(i == j ? 1 : 0)), 0, this->tolerance() * 100);
        }
    }
    EXPECT_THROW(sparse::isai(A, {.power = 0}), loom::BadInput);
}

TYPED_TEST(Ilu, RealMatricesMatchTheReferenceOnEveryBackend)
{
    using V = typename TestFixture::V;
    using I = typename TestFixture::I;
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    for (const auto& [name, kind] : {std::pair{"sherman1", IluKind::ilu0},
                                     std::pair{"e05r0000", IluKind::iluk},
                                     std::pair{"nos4", IluKind::ic0},
                                     std::pair{"bcsstk05", IluKind::ick}}) {
        if (!loom::test::have_shared_matrix(name)) continue;
        const auto A = matrix::read_csr<V, I>(this->ref, loom::test::shared_matrix_path(name));
        const IluOptions options{.kind = kind};
        const auto expected = this->factor(this->ref, A, options);
        for (const auto& exec : loom::test::backends()) {
            const auto f = this->factor(exec, A, options);
            EXPECT_LE(TestFixture::max_difference(f.L, expected.L), this->tolerance() * 100)
                << name << " on " << exec->name();
        }
    }
}

/// A CSR matrix from (row, column, value) triplets given row by row, columns ascending.
matrix::Csr<double, loom::int32> from_rows(const std::shared_ptr<const loom::Executor>& exec,
                                           size_type n,
                                           const std::vector<std::vector<std::pair<int, double>>>& rows)
{
    std::vector<loom::int32> ptrs{0}, cols;
    std::vector<double> values;
    for (const auto& row : rows) {
        for (const auto& [c, v] : row) {
            cols.push_back(c);
            values.push_back(v);
        }
        ptrs.push_back(static_cast<loom::int32>(cols.size()));
    }
    return matrix::Csr<double, loom::int32>::from_host(exec, {n, n}, ptrs, cols, values);
}

/// Tridiagonal (2, -1) of n rows: n levels, every one thin.
matrix::Csr<double, loom::int32> chain(const std::shared_ptr<const loom::Executor>& exec,
                                       size_type n)
{
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    for (size_type i = 0; i < n; ++i) {
        const auto r = static_cast<int>(i);
        if (i > 0) rows[i].emplace_back(r - 1, -1.0);
        rows[i].emplace_back(r, 2.0);
        if (i + 1 < n) rows[i].emplace_back(r + 1, -1.0);
    }
    return from_rows(exec, n, rows);
}

/// A chain whose last row and column are full: short rows but one long row (on CUDA, 4 lanes
/// per row, and the long row too long for the registers).
matrix::Csr<double, loom::int32> arrow(const std::shared_ptr<const loom::Executor>& exec,
                                       size_type n)
{
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    const auto last = static_cast<int>(n) - 1;
    for (size_type i = 0; i < n; ++i) {
        const auto r = static_cast<int>(i);
        if (r == last) {
            for (int c = 0; c < last; ++c) rows[i].emplace_back(c, -1.0 / (1 + c % 5));
            rows[i].emplace_back(r, 4.0 * n);
            continue;
        }
        if (r > 0) rows[i].emplace_back(r - 1, -1.0);
        rows[i].emplace_back(r, 4.0);
        if (r + 1 < last) rows[i].emplace_back(r + 1, -1.5);
        rows[i].emplace_back(last, 0.5);
    }
    return from_rows(exec, n, rows);
}

/// Diagonally dominant with a nonsymmetric pattern of 12 off-diagonal entries a row, near and
/// far, drawn by a fixed generator: on CUDA some rows' lower entries on rows two or more levels
/// back are taken before the wait on the level just before, and some rows cannot be split so
/// (an entry on the level just before updates an older one: u_{k' k} != 0, k' < k).
matrix::Csr<double, loom::int32> scattered(const std::shared_ptr<const loom::Executor>& exec,
                                           size_type n)
{
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    std::uint64_t state = 12345;
    for (size_type i = 0; i < n; ++i) {
        const auto r = static_cast<int>(i);
        std::vector<int> cols{r};
        for (int t = 0; t < 12; ++t) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const auto draw = static_cast<long long>(state >> 33);
            // Half of them within 8 rows, the rest anywhere.
            const long long c = t % 2 == 0 ? r - 8 + draw % 17 : draw % static_cast<long long>(n);
            if (c >= 0 && c < static_cast<long long>(n)) cols.push_back(static_cast<int>(c));
        }
        std::sort(cols.begin(), cols.end());
        cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
        for (const int c : cols) {
            rows[i].emplace_back(c, c == r ? 20.0 : -1.0 / (1 + (c + 3 * r) % 7));
        }
    }
    return from_rows(exec, n, rows);
}

/// Dense and diagonally dominant: ILU(0) is the full LU, rows long (a warp per row on CUDA).
matrix::Csr<double, loom::int32> dense(const std::shared_ptr<const loom::Executor>& exec,
                                       size_type n)
{
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = 0; j < n; ++j) {
            const double v = i == j ? 2.0 * n : 1.0 / (1.0 + static_cast<double>(i + 2 * j % 7));
            rows[i].emplace_back(static_cast<int>(j), v);
        }
    }
    return from_rows(exec, n, rows);
}

TEST(IluCuda, FactorizationMatchesTheReference)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const std::vector<std::pair<std::string, matrix::Csr<double, loom::int32>>> matrices{
        {"7-point 12^3", matrix::poisson3d<double, loom::int32>(ref, 12)},
        {"27-point 6^3", matrix::poisson3d<double, loom::int32>(ref, 6, 27)},
        {"27-point 12^3", matrix::poisson3d<double, loom::int32>(ref, 12, 27)},
        {"scattered nonsymmetric 3000", scattered(ref, 3000)},
        {"chain of 5000 thin levels", chain(ref, 5000)},
        {"arrow of 300", arrow(ref, 300)},
        {"dense 48 x 48", dense(ref, 48)}};
    for (const auto& [name, A_ref] : matrices) {
        for (const auto kind : {IluKind::ilu0, IluKind::iluk, IluKind::ic0}) {
            SCOPED_TRACE(name + ", " + sparse::to_string(kind));
            const IluOptions options{.kind = kind, .level = 1};
            matrix::Csr<double, loom::int32> L_ref, U_ref, L, U;
            sparse::IluHandle<double, loom::int32> expected(options);
            sparse::ilu_symbolic(expected, A_ref, L_ref, U_ref);
            sparse::ilu_numeric(expected, A_ref, L_ref, U_ref);
            const matrix::Csr<double, loom::int32> A(cuda, A_ref);
            sparse::IluHandle<double, loom::int32> handle(options);
            sparse::ilu_symbolic(handle, A, L, U);
            // Twice: the second factorization starts from fresh counters.
            for (int numeric = 0; numeric < 2; ++numeric) {
                sparse::ilu_numeric(handle, A, L, U);
                EXPECT_EQ(L.col_idxs().to_host(), L_ref.col_idxs().to_host());
                LOOM_EXPECT_NEAR_VECTORS(L.values().to_host(), L_ref.values().to_host(), 1e-12);
                if (!sparse::is_cholesky(kind)) {
                    LOOM_EXPECT_NEAR_VECTORS(U.values().to_host(), U_ref.values().to_host(), 1e-12);
                }
            }
        }
    }
}

/// Whether `levels` (host copies) is a level schedule of the triangle with rows (ptrs, cols):
/// every row once, each in a later level than the rows its off-diagonal entries name.
bool valid_schedule(const std::vector<loom::int32>& level_ptrs,
                    const std::vector<loom::int32>& order, const std::vector<loom::int32>& ptrs,
                    const std::vector<loom::int32>& cols)
{
    const auto n = ptrs.size() - 1;
    if (order.size() != n || level_ptrs.empty() || level_ptrs.back() != static_cast<int>(n)) {
        return false;
    }
    std::vector<int> level(n, -1);
    for (size_type l = 0; l + 1 < level_ptrs.size(); ++l) {
        for (auto s = level_ptrs[l]; s < level_ptrs[l + 1]; ++s) {
            if (level[order[s]] != -1) return false;
            level[order[s]] = static_cast<int>(l);
        }
    }
    for (size_type r = 0; r < n; ++r) {
        for (auto p = ptrs[r]; p < ptrs[r + 1]; ++p) {
            if (cols[p] != static_cast<int>(r) && level[cols[p]] >= level[r]) return false;
        }
    }
    return true;
}

TEST(IluSchedules, HandedOverToTheTriangularSolvesOnEveryBackend)
{
    // The factorization's schedule is L's; its reverse is L^H's, and U's where F's pattern is
    // symmetric (27-point) but not where it is not (scattered): there the analysis checks it,
    // finds U's own levels, and the solve is the same.
    const auto ref = loom::test::reference();
    auto execs = loom::test::backends();
    execs.push_back(ref);
    const std::vector<std::pair<std::string, matrix::Csr<double, loom::int32>>> matrices{
        {"27-point 6^3", matrix::poisson3d<double, loom::int32>(ref, 6, 27)},
        {"scattered nonsymmetric 600", scattered(ref, 600)}};
    for (const auto& [name, A_ref] : matrices) {
        const auto n = A_ref.rows();
        std::vector<double> b_host(n);
        for (size_type i = 0; i < n; ++i) b_host[i] = 1.0 + static_cast<double>(i % 5);
        for (const auto& exec : execs) {
            SCOPED_TRACE(name + " on " + exec->name());
            const matrix::Csr<double, loom::int32> A(exec, A_ref);
            matrix::Csr<double, loom::int32> L, U;
            sparse::IluHandle<double, loom::int32> handle({.kind = IluKind::ilu0});
            sparse::ilu_symbolic(handle, A, L, U);
            sparse::ilu_numeric(handle, A, L, U);
            const auto lower = handle.lower_levels();
            const auto reversed = handle.reversed_levels();
            ASSERT_EQ(lower.level_ptrs.size(), handle.levels() + 1);
            ASSERT_EQ(reversed.level_ptrs.size(), handle.levels() + 1);
            const auto l_ptrs = L.row_ptrs().to_host();
            const auto l_cols = L.col_idxs().to_host();
            EXPECT_TRUE(valid_schedule(lower.level_ptrs.to_host(), lower.level_rows.to_host(),
                                       l_ptrs, l_cols));
            const auto expected = sparse::sptrsv_levels(L, {.uplo = loom::blas::Uplo::lower});
            EXPECT_EQ(lower.level_rows.to_host(), expected.level_rows.to_host());
            const auto lh = sparse::conj_transpose(L);
            EXPECT_TRUE(valid_schedule(reversed.level_ptrs.to_host(),
                                       reversed.level_rows.to_host(), lh.row_ptrs().to_host(),
                                       lh.col_idxs().to_host()));
            EXPECT_EQ(valid_schedule(reversed.level_ptrs.to_host(), reversed.level_rows.to_host(),
                                     U.row_ptrs().to_host(), U.col_idxs().to_host()),
                      name[0] == '2');
            // Each solve with the handed-over schedule against one that finds its own; for U
            // also L's schedule, which is not U's: the analysis must not take it.
            const auto b = matrix::Dense<double>::from_host(exec, {n, 1}, b_host);
            const auto solve = [&](const matrix::Csr<double, loom::int32>& T,
                                   const sparse::SptrsvOptions& options,
                                   const sparse::SptrsvLevels<loom::int32>& levels) {
                sparse::SptrsvHandle<double, loom::int32> h(options);
                sparse::sptrsv_symbolic(h, T, levels);
                matrix::Dense<double> x(exec, {n, 1});
                sparse::sptrsv_solve(h, T, b, x);
                return x.to_host();
            };
            const sparse::SptrsvOptions l_options{.uplo = loom::blas::Uplo::lower};
            const sparse::SptrsvOptions lh_options{.uplo = loom::blas::Uplo::lower,
                                                   .op = loom::blas::Op::conj_transpose};
            const sparse::SptrsvOptions u_options{.uplo = loom::blas::Uplo::upper};
            const sparse::SptrsvLevels<loom::int32> none{};
            LOOM_EXPECT_NEAR_VECTORS(solve(L, l_options, lower), solve(L, l_options, none), 1e-14);
            LOOM_EXPECT_NEAR_VECTORS(solve(L, lh_options, reversed), solve(L, lh_options, none),
                                     1e-14);
            const auto u_expected = solve(U, u_options, none);
            LOOM_EXPECT_NEAR_VECTORS(solve(U, u_options, reversed), u_expected, 1e-14);
            LOOM_EXPECT_NEAR_VECTORS(solve(U, u_options, lower), u_expected, 1e-14);
        }
    }
}

/// ILU(0) without a shift of make(exec) raises NumericalError naming `row` on every backend.
template <typename Make>
void expect_pivot_named(const Make& make, int row)
{
    auto execs = loom::test::backends();
    execs.push_back(loom::test::reference());
    for (const auto& exec : execs) {
        const auto A = make(exec);
        matrix::Csr<double, loom::int32> L, U;
        sparse::IluHandle<double, loom::int32> handle(
            {.kind = IluKind::ilu0, .diagonal_shift = DiagonalShift::off});
        sparse::ilu_symbolic(handle, A, L, U);
        try {
            sparse::ilu_numeric(handle, A, L, U);
            ADD_FAILURE() << "no NumericalError on " << exec->name();
        } catch (const loom::NumericalError& e) {
            EXPECT_NE(std::string(e.what()).find("row " + std::to_string(row) + " "),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(IluPivot, PivotThatVanishesDuringEliminationNamesItsRowOnEveryBackend)
{
    // A chain of 2000 rows, except that rows 1200 and 1201 form the block [1 1; 1 1] coupled
    // to nothing: row 1201's pivot becomes 1 - 1 * 1 = 0 only during the elimination, and
    // every backend names it (rows after it do not change which row is first).
    const size_type n = 2000;
    std::vector<std::vector<std::pair<int, double>>> rows(n);
    for (size_type i = 0; i < n; ++i) {
        const auto r = static_cast<int>(i);
        if (i == 1200) {
            rows[i] = {{r, 1.0}, {r + 1, 1.0}};
        } else if (i == 1201) {
            rows[i] = {{r - 1, 1.0}, {r, 1.0}};
        } else {
            if (i > 0 && i != 1202) rows[i].emplace_back(r - 1, -1.0);
            rows[i].emplace_back(r, 2.0);
            if (i + 1 < n && i != 1199) rows[i].emplace_back(r + 1, -1.0);
        }
    }
    expect_pivot_named([&](const auto& exec) { return from_rows(exec, n, rows); }, 1201);
}

TEST(IluPivot, PivotOfALongRowNamesItsRowOnEveryBackend)
{
    // Dense 40 x 40 (rows too long for CUDA's registers) with row 20 a copy of row 19: its
    // elimination repeats row 19's exactly, then subtracts 1 * row 19, so u_20,20 = 0.
    const size_type n = 40;
    const auto ref = loom::test::reference();
    const auto full = dense(ref, n);
    auto ptrs = full.row_ptrs().to_host();
    auto cols = full.col_idxs().to_host();
    auto values = full.values().to_host();
    std::copy(values.begin() + 19 * n, values.begin() + 20 * n, values.begin() + 20 * n);
    expect_pivot_named(
        [&](const auto& exec) {
            return matrix::Csr<double, loom::int32>::from_host(exec, {n, n}, ptrs, cols, values);
        },
        20);
}

TEST(IluEmpty, EmptyMatrixFactorsToEmptyFactorsOnEveryBackend)
{
    auto execs = loom::test::backends();
    execs.push_back(loom::test::reference());
    for (const auto& exec : execs) {
        for (const auto kind : {IluKind::ilu0, IluKind::ic0, IluKind::parilut}) {
            SCOPED_TRACE(std::string(sparse::to_string(kind)) + " on " + exec->name());
            const auto A = matrix::Csr<double, loom::int32>::from_host(exec, {0, 0}, {0}, {}, {});
            matrix::Csr<double, loom::int32> L, U;
            sparse::IluHandle<double, loom::int32> handle({.kind = kind});
            sparse::ilu_symbolic(handle, A, L, U);
            sparse::ilu_numeric(handle, A, L, U);
            EXPECT_EQ(L.rows(), 0u);
            EXPECT_EQ(L.nnz(), 0u);
            EXPECT_EQ(handle.levels(), 0u);
        }
    }
}

TEST(IluGather, DuplicatesAndUnsortedRowsAreSummedOnEveryBackend)
{
    // Rows stored backwards, a_{i,i-1} as two entries (-0.25 and -0.75, exact in binary) and a
    // far entry: every backend's analysis gathers the same sums as the sorted, summed matrix.
    const size_type n = 300;
    std::vector<loom::int32> ptrs{0}, cols;
    std::vector<double> values;
    std::vector<std::vector<std::pair<int, double>>> summed(n);
    for (size_type i = 0; i < n; ++i) {
        const auto r = static_cast<int>(i);
        std::vector<std::pair<int, double>> row;
        const int far = (r * 7 + 3) % static_cast<int>(n);
        if (far != r && far != r - 1 && far != r + 1) row.emplace_back(far, 0.5);
        if (r > 0) row.emplace_back(r - 1, -1.0);
        row.emplace_back(r, 6.0 + r % 3);
        if (i + 1 < n) row.emplace_back(r + 1, -1.5);
        std::sort(row.begin(), row.end());
        summed[i] = row;
        for (auto it = row.rbegin(); it != row.rend(); ++it) {
            if (it->first == r - 1) {
                cols.insert(cols.end(), {it->first, it->first});
                values.insert(values.end(), {-0.25, -0.75});
            } else {
                cols.push_back(it->first);
                values.push_back(it->second);
            }
        }
        ptrs.push_back(static_cast<loom::int32>(cols.size()));
    }
    const auto ref = loom::test::reference();
    const auto sorted = from_rows(ref, n, summed);
    const auto stored = matrix::Csr<double, loom::int32>::from_host(ref, {n, n}, ptrs, cols, values);
    const auto factor = [](const matrix::Csr<double, loom::int32>& A, IluKind kind) {
        matrix::Csr<double, loom::int32> L, U;
        sparse::IluHandle<double, loom::int32> handle({.kind = kind, .sweeps = 2});
        sparse::ilu_symbolic(handle, A, L, U);
        sparse::ilu_numeric(handle, A, L, U);
        return std::make_pair(L, U);
    };
    auto execs = loom::test::backends();
    execs.push_back(ref);
    for (const auto kind : {IluKind::ilu0, IluKind::ic0, IluKind::parilu}) {
        const auto [L_ref, U_ref] = factor(sorted, kind);
        for (const auto& exec : execs) {
            SCOPED_TRACE(std::string(sparse::to_string(kind)) + " on " + exec->name());
            const auto [L, U] = factor(matrix::Csr<double, loom::int32>(exec, stored), kind);
            EXPECT_EQ(L.col_idxs().to_host(), L_ref.col_idxs().to_host());
            LOOM_EXPECT_NEAR_VECTORS(L.values().to_host(), L_ref.values().to_host(), 1e-12);
            if (!sparse::is_cholesky(kind)) {
                EXPECT_EQ(U.col_idxs().to_host(), U_ref.col_idxs().to_host());
                LOOM_EXPECT_NEAR_VECTORS(U.values().to_host(), U_ref.values().to_host(), 1e-12);
            }
        }
    }
}

TEST(IluCuda, VendorCsrilu02MatchesTheReference)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto ref = loom::test::reference();
    const auto A_ref = matrix::poisson3d<double, loom::int32>(ref, 12);
    matrix::Csr<double, loom::int32> L_ref, U_ref, L, U;
    sparse::IluHandle<double, loom::int32> expected;
    sparse::ilu_symbolic(expected, A_ref, L_ref, U_ref);
    sparse::ilu_numeric(expected, A_ref, L_ref, U_ref);
    const matrix::Csr<double, loom::int32> A(cuda, A_ref);
    sparse::IluHandle<double, loom::int32> vendor({.algorithm = sparse::IluAlgorithm::vendor});
    try {
        sparse::ilu_symbolic(vendor, A, L, U);
        sparse::ilu_numeric(vendor, A, L, U);
    } catch (const loom::CudaError& e) {
        // The issue saw csrilu02's analysis fail on CUDA 13: a status, not a Loom bug.
        GTEST_SKIP() << "csrilu02 failed: " << e.what();
    }
    EXPECT_EQ(vendor.levels(), 0u);  // csrilu02 schedules its own rows: no level analysis
    EXPECT_EQ(L.col_idxs().to_host(), L_ref.col_idxs().to_host());
    LOOM_EXPECT_NEAR_VECTORS(L.values().to_host(), L_ref.values().to_host(), 1e-12);
    LOOM_EXPECT_NEAR_VECTORS(U.values().to_host(), U_ref.values().to_host(), 1e-12);
}

}  // namespace
