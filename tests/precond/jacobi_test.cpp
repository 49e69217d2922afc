// precond::Jacobi: the builder and factory, scalar and block inverses, conj_transpose,
// adaptive precision, and Krylov solvers preconditioned by it on generated and shared
// matrices, checked by the true residual, on every backend.
#include <cmath>
#include <complex>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/solvers.hpp"
#include "precond/block_matrices.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/shared_matrices.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


/// y = D x for the block diagonal D of A (blocks given by ptrs), on the host.
template <typename V, typename I>
std::vector<V> block_diagonal_times(const matrix::Csr<V, I>& A, const std::vector<I>& ptrs,
                                    const matrix::Dense<V>& x)
{
    const auto blocks = diagonal_blocks(A, ptrs);
    const matrix::Dense<V> xh(test::reference(), x);
    std::vector<V> y(static_cast<std::size_t>(x.rows() * x.cols()), V{0});
    for (std::size_t k = 0; k + 1 < ptrs.size(); ++k) {
        const size_type begin = ptrs[k];
        const size_type s = ptrs[k + 1] - begin;
        for (size_type i = 0; i < s; ++i) {
            for (size_type c = 0; c < x.cols(); ++c) {
                V sum{0};
                for (size_type j = 0; j < s; ++j) sum += blocks[k][i * s + j] * xh.at(begin + j, c);
                y[(begin + i) * x.cols() + c] = sum;
            }
        }
    }
    return y;
}

template <typename V>
class Jacobi : public ::testing::Test {
protected:
    using I = int32;
    using Precond = precond::Jacobi<V, I>;
    std::shared_ptr<const Executor> ref = test::reference();
};
TYPED_TEST_SUITE(Jacobi, loom::test::ValueTypes);

TYPED_TEST(Jacobi, BuilderAndFactoryRejectBadInput)
{
    using V = TypeParam;
    using Precond = typename TestFixture::Precond;
    EXPECT_THROW(Precond::build().with_max_block_size(0), BadInput);
    EXPECT_THROW(Precond::build().with_max_block_size(33), BadInput);
    EXPECT_THROW(Precond::build().with_accuracy(0.0), BadInput);
    EXPECT_THROW(Precond::build().with_accuracy(1.5), BadInput);
    EXPECT_THROW(Precond::build().on(nullptr), BadInput);

    const auto factory = Precond::build().on(this->ref);
    EXPECT_THROW(factory->generate(nullptr), BadInput);
    const auto dense = std::make_shared<matrix::Dense<V>>(this->ref, dim2{4, 4});
    try {
        factory->generate(dense);
        ADD_FAILURE() << "no NotSupported";
    } catch (const NotSupported& e) {
        EXPECT_NE(std::string(e.what()).find("Dense"), std::string::npos) << e.what();
    }
    if constexpr (LOOM_HAS_INT64) {
        const auto other_index = std::make_shared<matrix::Csr<V, int64>>(
            matrix::poisson2d<V, int64>(this->ref, 3));
        EXPECT_THROW(factory->generate(other_index), NotSupported);
    }
    const auto rectangle = std::make_shared<matrix::Csr<V, int32>>(
        test::RowLists<V, int32>(3).to_csr(this->ref, 4));
    EXPECT_THROW(factory->generate(rectangle), DimensionMismatch);
    const auto A =
        std::make_shared<matrix::Csr<V, int32>>(block_matrix<V, int32>(this->ref, {2, 3}));
    const auto wrong_blocks =
        Precond::build().with_block_pointers(std::vector<int32>{0, 2, 4}).on(this->ref);
    EXPECT_THROW(wrong_blocks->generate(A), BadInput);
}

TYPED_TEST(Jacobi, ScalarJacobiScalesByTheInverseDiagonal)
{
    using V = TypeParam;
    using Precond = typename TestFixture::Precond;
    const auto A = std::make_shared<matrix::Csr<V>>(matrix::poisson2d<V>(this->ref, 6));
    const auto b = test::random_dense<V>(this->ref, {36, 2}, 3);
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto M = Precond::build().with_max_block_size(1).on(exec)->generate(A);
        EXPECT_TRUE(M->is_scalar());
        EXPECT_EQ(M->num_blocks(), 36);
        EXPECT_EQ(M->executor(), exec);
        EXPECT_EQ(M->storage_bytes(), 36 * static_cast<size_type>(sizeof(V)));
        matrix::Dense<V> x(this->ref, b.size());
        M->apply(b, x);  // b and x on the host: moved to exec and back
        std::vector<V> expected;
        for (auto v : b.to_host()) expected.push_back(v / V{4});
        LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected, test::tolerance<V>());
        // x = 2 M b - x
        M->apply(V{2}, b, V{-1}, x);
        LOOM_EXPECT_NEAR_VECTORS(x.to_host(), expected, 4 * test::tolerance<V>());
    }
}

TYPED_TEST(Jacobi, BlockJacobiInvertsTheBlocksItFinds)
{
    using V = TypeParam;
    using I = typename TestFixture::I;
    using Precond = typename TestFixture::Precond;
    const auto A = std::make_shared<matrix::Csr<V>>(test::poisson_kron<V, I>(this->ref, 5, 3));
    const auto b = test::random_dense<V>(this->ref, {75, 2}, 4);
    for (const auto& exec : loom::test::all_executors()) {
        for (size_type max : {3, 8, 32}) {
            SCOPED_TRACE(exec->name() + " max " + std::to_string(max));
            const auto M = Precond::build().with_max_block_size(max).on(exec)->generate(A);
            ASSERT_FALSE(M->is_scalar());
            const auto ptrs = M->blocks()->block_ptrs().to_host();
            EXPECT_EQ(ptrs, test::expected_blocks<I>(std::vector<size_type>(25, 3), max));
            matrix::Dense<V> x(exec, b.size());
            M->apply(matrix::Dense<V>(exec, b), x);
            // D (D^-1 b) = b
            LOOM_EXPECT_NEAR_VECTORS(block_diagonal_times(*A, ptrs, x), b.to_host(),
                                     100 * test::tolerance<V>());
        }
    }
}

TYPED_TEST(Jacobi, UsesTheBlocksItIsGiven)
{
    using V = TypeParam;
    using I = typename TestFixture::I;
    using Precond = typename TestFixture::Precond;
    const std::vector<size_type> sizes{3, 1, 4, 32, 2};
    const auto A = std::make_shared<matrix::Csr<V>>(block_matrix<V, I>(this->ref, sizes, 2, 3));
    const auto ptrs = pointers_of<I>(sizes);
    const auto M = Precond::build()
                       .with_block_pointers(Array<I>(this->ref, ptrs))
                       .with_max_block_size(2)  // not used with given blocks
                       .on(this->ref)
                       ->generate(A);
    ASSERT_FALSE(M->is_scalar());
    EXPECT_EQ(M->blocks()->block_ptrs().to_host(), ptrs);
    const auto b = test::random_dense<V>(this->ref, {A->rows(), 1}, 5);
    matrix::Dense<V> x(this->ref, b.size());
    M->apply(b, x);
    LOOM_EXPECT_NEAR_VECTORS(block_diagonal_times(*A, ptrs, x), b.to_host(),
                             100 * test::tolerance<V>());

    std::vector<I> singles(static_cast<std::size_t>(A->rows() + 1));
    for (std::size_t i = 0; i < singles.size(); ++i) singles[i] = static_cast<I>(i);
    const auto scalar = Precond::build().with_block_pointers(singles).on(this->ref)->generate(A);
    EXPECT_TRUE(scalar->is_scalar());
}

TYPED_TEST(Jacobi, ConjTransposeSharesTheInverse)
{
    using V = TypeParam;
    using I = typename TestFixture::I;
    using Precond = typename TestFixture::Precond;
    // Non-Hermitian blocks: <M x, y> = <x, M^H y>.
    const auto A = std::make_shared<matrix::Csr<V>>(block_matrix<V, I>(this->ref, {3, 5, 1, 7}, 8));
    const auto x = test::random_dense<V>(this->ref, {16, 1}, 1);
    const auto y = test::random_dense<V>(this->ref, {16, 1}, 2);
    for (const auto& exec : loom::test::all_executors()) {
        for (size_type max : {1, 8}) {
            SCOPED_TRACE(exec->name() + " max " + std::to_string(max));
            const auto M = Precond::build().with_max_block_size(max).on(exec)->generate(A);
            const auto MH = loom::conj_transpose<V>(M);
            const auto& jacobi_h = dynamic_cast<const Precond&>(*MH);
            EXPECT_TRUE(jacobi_h.is_conj_transposed());
            EXPECT_EQ(jacobi_h.blocks(), M->blocks());
            EXPECT_EQ(jacobi_h.inverse_diagonal(), M->inverse_diagonal());
            matrix::Dense<V> Mx(this->ref, x.size());
            matrix::Dense<V> MHy(this->ref, y.size());
            M->apply(x, Mx);
            MH->apply(y, MHy);
            V left{0}, right{0};
            for (size_type i = 0; i < 16; ++i) {
                left += loom::conj(Mx.at(i, 0)) * y.at(i, 0);
                right += loom::conj(x.at(i, 0)) * MHy.at(i, 0);
            }
            EXPECT_NEAR(std::abs(left - right), 0.0, 10 * test::tolerance<V>() * std::abs(left));
            const auto back = loom::conj_transpose<V>(MH);
            EXPECT_FALSE(dynamic_cast<const Precond&>(*back).is_conj_transposed());
        }
    }
}

TYPED_TEST(Jacobi, ASingularBlockFailsGeneration)
{
    using V = TypeParam;
    using I = typename TestFixture::I;
    using Precond = typename TestFixture::Precond;
    test::RowLists<V, I> lists(4);
    lists.add(0, 0, V{1});
    lists.add(1, 1, V{1});
    lists.add(1, 2, V{1});
    lists.add(2, 1, V{1});
    lists.add(2, 2, V{1});
    lists.add(3, 3, V{1});
    const auto A = std::make_shared<matrix::Csr<V>>(lists.to_csr(this->ref));
    const auto factory =
        Precond::build().with_block_pointers(std::vector<I>{0, 1, 3, 4}).on(this->ref);
    try {
        factory->generate(A);
        ADD_FAILURE() << "no NumericalError";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("block 1 (rows 1 to 2)"), std::string::npos)
            << e.what();
    }
    lists.rows[3].clear();
    const auto zero_diagonal = std::make_shared<matrix::Csr<V>>(lists.to_csr(this->ref));
    EXPECT_THROW(Precond::build().with_max_block_size(1).on(this->ref)->generate(zero_diagonal),
                 NumericalError);
}

TYPED_TEST(Jacobi, PreconditionedSolversConvergeOnEveryBackend)
{
    using V = TypeParam;
    using I = typename TestFixture::I;
    using Precond = typename TestFixture::Precond;
    const auto A =
        std::make_shared<matrix::Csr<V>>(test::poisson_kron<V, I>(this->ref, 12, 3, true));
    const auto b = test::random_dense<V>(this->ref, {A->rows(), 2}, 6);
    const auto criteria = [] {
        return stop::max_iterations(1000) | stop::relative_residual(test::solve_tolerance<V>());
    };
    const auto solve = [&](const std::shared_ptr<const Executor>& exec, size_type max_block_size,
                           bool adaptive) {
        std::shared_ptr<const LinOpFactory<V>> M;
        if (max_block_size > 0) {
            M = Precond::build()
                    .with_max_block_size(max_block_size)
                    .with_adaptive_precision(adaptive)
                    .on(exec);
        }
        auto builder = solver::Cg<V>::build().with_criteria(criteria());
        if (M) builder.with_preconditioner(M);
        const auto cg = builder.on(exec)->generate(std::make_shared<matrix::Csr<V>>(exec, *A));
        matrix::Dense<V> x(exec, b.size());
        x.fill(V{0});
        cg->apply(matrix::Dense<V>(exec, b), x);
        EXPECT_TRUE(cg->result().converged()) << cg->result().message();
        EXPECT_LE(true_relative_residual(*A, b, matrix::Dense<V>(this->ref, x)),
                  20 * test::solve_tolerance<V>());
        return cg->result().iterations;
    };
    const auto plain = solve(this->ref, 0, false);
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        const auto scalar = solve(exec, 1, false);
        const auto blocks = solve(exec, 3, false);
        const auto lines = solve(exec, 32, false);
        const auto adaptive = solve(exec, 32, true);
        EXPECT_LT(scalar, plain);
        EXPECT_LT(blocks, plain);
        EXPECT_LT(lines, blocks);
        EXPECT_LE(adaptive, lines + 1 + lines / 10);
    }
}

TYPED_TEST(Jacobi, AdaptivePrecisionStoresWellConditionedBlocksNarrower)
{
    using V = TypeParam;
    using Precond = typename TestFixture::Precond;
    const auto A = std::make_shared<matrix::Csr<V>>(test::poisson_kron<V, int32>(this->ref, 8, 3));
    const auto full = Precond::build().with_max_block_size(3).on(this->ref)->generate(A);
    const auto narrow = Precond::build()
                            .with_max_block_size(3)
                            .with_adaptive_precision(true)
                            .on(this->ref)
                            ->generate(A);
    // kappa of each 3 x 3 node block is small: all of them go to float16.
    for (auto p : narrow->blocks()->precisions().to_host()) {
        EXPECT_EQ(static_cast<sparse::StoragePrecision>(p), sparse::StoragePrecision::float16);
    }
    EXPECT_EQ(narrow->storage_bytes() * (std::is_same_v<remove_complex_t<V>, double> ? 4 : 2),
              full->storage_bytes());
    // A tight accuracy keeps the working precision.
    const auto strict = Precond::build()
                            .with_max_block_size(3)
                            .with_adaptive_precision(true)
                            .with_accuracy(1e-9)
                            .on(this->ref)
                            ->generate(A);
    EXPECT_EQ(strict->storage_bytes(), full->storage_bytes());
}

/// Solves A x = A * 1 from the shared matrix set with and without the preconditioner.
class SharedMatrices : public ::testing::Test {
protected:
    using V = double;
    using Precond = precond::Jacobi<V>;

    void SetUp() override { LOOM_SKIP_WITHOUT_SHARED_MATRICES(); }

    static std::shared_ptr<matrix::Csr<V>> load(const std::string& name)
    {
        return std::make_shared<matrix::Csr<V>>(
            matrix::read_csr<V>(test::reference(), test::shared_matrix_path(name)));
    }

    template <typename Solver>
    static auto builder_for()
    {
        if constexpr (std::is_same_v<Solver, solver::Gmres<V>>) {
            return Solver::build().with_krylov_dim(30);
        } else {
            return Solver::build();
        }
    }

    /// Iterations of the solve (1e-8 relative residual, at most max_iterations), after
    /// checking the true residual when it converged.
    template <typename Solver>
    size_type iterations(const std::shared_ptr<const Executor>& exec,
                         const std::shared_ptr<matrix::Csr<V>>& A,
                         std::shared_ptr<const LinOpFactory<V>> preconditioner,
                         size_type max_iterations, bool must_converge)
    {
        const auto n = A->rows();
        matrix::Dense<V> ones(this->ref_, {n, 1});
        ones.fill(1.0);
        matrix::Dense<V> b(this->ref_, {n, 1});
        A->apply(ones, b);
        auto builder = builder_for<Solver>();
        builder.with_criteria(stop::max_iterations(max_iterations) | stop::relative_residual(1e-8));
        if (preconditioner) builder.with_preconditioner(preconditioner);
        const auto A_exec = std::make_shared<matrix::Csr<V>>(exec, *A);
        const auto solver = builder.on(exec)->generate(A_exec);
        matrix::Dense<V> x(exec, {n, 1});
        x.fill(0.0);
        solver->apply(matrix::Dense<V>(exec, b), x);
        if (must_converge) {
            EXPECT_TRUE(solver->result().converged()) << solver->result().message();
            EXPECT_LE(true_relative_residual(*A, b, matrix::Dense<V>(this->ref_, x)), 1e-7);
        }
        return solver->result().converged() ? solver->result().iterations : max_iterations + 1;
    }

    /// The preconditioned solve converges on every backend in fewer iterations than the
    /// plain one, each backend within `spread` (relative) of the reference's count.
    template <typename Solver>
    void expect_preconditioner_helps(const std::string& matrix, size_type max_block_size,
                                     bool adaptive, size_type max_iterations,
                                     double spread = 0.05)
    {
        SCOPED_TRACE(matrix);
        const auto A = load(matrix);
        size_type reference_count = 0;
        for (const auto& exec : loom::test::all_executors()) {
            SCOPED_TRACE(exec->name());
            const auto M = Precond::build()
                               .with_max_block_size(max_block_size)
                               .with_adaptive_precision(adaptive)
                               .on(exec);
            const auto count = iterations<Solver>(exec, A, M, max_iterations, true);
            if (exec->kind() == ExecKind::reference) {
                reference_count = count;
            } else {
                EXPECT_NEAR(static_cast<double>(count), static_cast<double>(reference_count),
                            1 + spread * static_cast<double>(reference_count));
            }
        }
        // Without the preconditioner it has not converged after as many iterations.
        EXPECT_GT(iterations<Solver>(ref_, A, nullptr, reference_count, false), reference_count);
    }

    std::shared_ptr<const Executor> ref_ = test::reference();
};

TEST_F(SharedMatrices, CgWithScalarJacobiOnBcsstk08)
{
    expect_preconditioner_helps<solver::Cg<V>>("bcsstk08", 1, false, 600);
}

TEST_F(SharedMatrices, CgWithAdaptiveBlockJacobiOnNos3)
{
    expect_preconditioner_helps<solver::Cg<V>>("nos3", 32, true, 600);
}

TEST_F(SharedMatrices, GmresWithBlockJacobiOnAdd32)
{
    expect_preconditioner_helps<solver::Gmres<V>>("add32", 8, false, 500);
}

TEST_F(SharedMatrices, BicgstabWithBlockJacobiOnSherman5)
{
    // BiCGSTAB's iterates are erratic: summation order moves its count more than others'.
    expect_preconditioner_helps<solver::Bicgstab<V>>("sherman5", 32, false, 1000, 0.35);
}

TEST_F(SharedMatrices, BicgWithAdaptiveBlockJacobiOnSherman5)
{
    // BiCG applies M^H through Jacobi's conj_transpose.
    expect_preconditioner_helps<solver::Bicg<V>>("sherman5", 32, true, 1000);
}

}  // namespace
}  // namespace loom::test
