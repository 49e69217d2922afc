// Partitions, assembly and the distributed SpMV, compared with the single-process product.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "loom/matrix/ell.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/matrix/sellp.hpp"
#include "support/shared_matrices.hpp"
#include "distributed/support.hpp"

namespace loom::test {
namespace {

TEST(Partition, ContiguousBlocksDifferByAtMostOne)
{
    const auto p = distributed::Partition::contiguous(10, 4);
    EXPECT_EQ(p.local_rows(0), 3);
    EXPECT_EQ(p.local_rows(3), 2);
    EXPECT_EQ(p.owner(3), 1);
    EXPECT_EQ(p.local_index(3), 0);
    EXPECT_TRUE(p.is_contiguous());
}

TEST(Partition, FromPartsNumbersEachRanksRowsInOrder)
{
    const auto p = distributed::Partition::from_parts({1, 0, 1, 1, 0}, 3);
    EXPECT_EQ(p.rows_of(0), (std::vector<size_type>{1, 4}));
    EXPECT_EQ(p.rows_of(1), (std::vector<size_type>{0, 2, 3}));
    EXPECT_TRUE(p.rows_of(2).empty());
    EXPECT_EQ(p.local_index(3), 2);
    EXPECT_EQ(p.owner(4), 0);
    EXPECT_FALSE(p.is_contiguous());
}

TEST(Partition, ARowOwnedByNoRankRaises)
{
    EXPECT_THROW(distributed::Partition::from_parts({0, 3, 1}, 3), BadInput);
    EXPECT_THROW(distributed::Partition::from_parts({0, -1}, 2), BadInput);
    EXPECT_THROW(distributed::Partition::contiguous(5, 2).owner(5), OutOfRange);
}

/// dA x and 2 dA x - x, gathered on rank 0, equal the single-process product `expected` (A x).
void expect_product(const DMatrix& dA, const matrix::Dense<V>& x, const std::vector<V>& expected)
{
    const auto& exec = dA.executor();
    const auto& space = dA.space();
    const auto x_local = space.local_part(matrix::Dense<V>(exec, x));
    auto y_local = space.create(x.cols());
    dA.apply(x_local, y_local);
    const auto y = space.gather(y_local);
    if (world().rank() == 0) LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected, tolerance<V>());
    auto z_local = space.local_part(matrix::Dense<V>(exec, x));
    dA.apply(V{2}, x_local, V{-1}, z_local);
    const auto z = space.gather(z_local);
    if (world().rank() == 0) {
        auto expected_z = expected;
        const auto xs = x.to_host();
        for (std::size_t i = 0; i < expected_z.size(); ++i) {
            expected_z[i] = 2 * expected_z[i] - xs[i];
        }
        LOOM_EXPECT_NEAR_VECTORS(z.to_host(), expected_z, tolerance<V>());
    }
}

/// The distributed product equals the single-process one, on every backend and partition, for
/// k right-hand sides; in every block format and halo path on the reference backend (the
/// formats' kernels are compared across backends in their own tests).
void expect_spmv_matches(const matrix::Csr<V, I>& A, size_type k)
{
    const auto x = random_dense<V>(reference(), {A.cols(), k}, 5);
    const auto expected = single_process_apply(A, x).to_host();
    for (const auto& [name, partition] : awkward_partitions(A.rows())) {
        for (const auto& exec : backends()) {
            SCOPED_TRACE(exec->name() + ", " + name);
            expect_product(*DMatrix::from_global(exec, world(), partition, A), x, expected);
        }
        for (const auto& [how, options] : matrix_options()) {
            SCOPED_TRACE(name + ", " + how);
            expect_product(*DMatrix::from_global(reference(), world(), partition, A, options), x,
                           expected);
        }
    }
}

TEST(DistributedSpmv, RandomMatrixMatchesOneProcess)
{
    PatternSpec spec{.rows = 57, .cols = 57, .avg_per_row = 5, .dense_row = true,
                     .duplicates = true, .seed = 3};
    expect_spmv_matches(random_csr<V, I>(reference(), spec), 1);
    expect_spmv_matches(random_csr<V, I>(reference(), spec), 3);
}

TEST(DistributedSpmv, TinyAndEmptyMatrices)
{
    PatternSpec spec{.rows = 2, .cols = 2, .avg_per_row = 2, .seed = 9};
    expect_spmv_matches(random_csr<V, I>(reference(), spec), 2);
    spec.rows = spec.cols = 0;
    expect_spmv_matches(random_csr<V, I>(reference(), spec), 1);
}

TEST(DistributedSpmv, SharedMatrixMatchesOneProcess)
{
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    const auto path = shared_matrix_path("bcsstk05");
    const auto A = matrix::read_csr<V, I>(reference(), path);
    expect_spmv_matches(A, 2);
    // Read by every rank from the file (each its share of the lines): the same product.
    const auto dA = DMatrix::read_mtx(reference(), world(), path);
    EXPECT_EQ(dA->global_size(), A.rows());
    EXPECT_EQ(dA->global_nnz(), A.nnz());
    const auto x = random_dense<V>(reference(), {A.rows(), 1}, 8);
    auto y_local = dA->space().create(1);
    dA->apply(dA->space().local_part(x), y_local);
    const auto y = dA->space().gather(y_local);
    if (world().rank() == 0) {
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), single_process_apply(A, x).to_host(),
                                 tolerance<V>());
    }
}

TEST(DistributedMatrix, MultipliesItsBlocksInTheFormatAsked)
{
    using distributed::BlockFormat;
    const auto A = matrix::poisson2d<V, I>(reference(), 7);
    const auto x = random_dense<V>(reference(), {A.rows(), 2}, 6);
    const auto expected = single_process_apply(A, x).to_host();
    const auto contiguous = distributed::Partition::contiguous(A.rows(), world().size());
    const auto dA = DMatrix::from_global(reference(), world(), contiguous, A,
                                         {.format = BlockFormat::sellp});
    using Sellp = matrix::Sellp<V, I>;
    EXPECT_NE(dynamic_cast<const Sellp*>(dA->local_spmv_block().get()), nullptr);
    EXPECT_NE(dynamic_cast<const Sellp*>(dA->nonlocal_spmv_block().get()), nullptr);
    // Still the Csr of its local block, which the preconditioners are built on.
    EXPECT_EQ(dA->nnz(), dA->local_block()->nnz());
    // Moved rows and A^H keep the format; with_options changes it.
    const auto moved = dA->redistributed(awkward_partitions(A.rows())[1].second);
    EXPECT_EQ(moved->options().format, BlockFormat::sellp);
    expect_product(*moved, x, expected);
    const auto transposed = std::dynamic_pointer_cast<const DMatrix>(dA->conj_transpose());
    ASSERT_NE(transposed, nullptr);
    EXPECT_EQ(transposed->options().format, BlockFormat::sellp);
    expect_product(*transposed, x, expected);  // Poisson is symmetric
    const auto ell = dA->with_options({.format = BlockFormat::ell});
    using Ell = matrix::Ell<V, I>;
    EXPECT_NE(dynamic_cast<const Ell*>(ell->local_spmv_block().get()), nullptr);
    expect_product(*ell, x, expected);
    // csr multiplies the blocks themselves: nothing stored twice.
    const auto csr = ell->with_options({});
    EXPECT_EQ(csr->local_spmv_block(), csr->local_block());
    EXPECT_EQ(csr->nonlocal_spmv_block().get(), &csr->nonlocal_block());
}

TEST(DistributedMatrix, StagedHaloResizesItsBuffersWithTheColumns)
{
    // The staged path on the host: the halo rows gathered, copied to host buffers, sent from
    // there, received into others and copied back before the non-local product; the buffers
    // follow the number of columns from one apply to the next.
    PatternSpec spec{.rows = 40, .cols = 40, .avg_per_row = 4, .seed = 12};
    const auto A = random_csr<V, I>(reference(), spec);
    const auto contiguous = distributed::Partition::contiguous(A.rows(), world().size());
    const auto exec = OmpExecutor::create(2);
    const auto staged = DMatrix::from_global(exec, world(), contiguous, A, {.stage_halo = true});
    EXPECT_EQ(staged->transport(), "host buffers staged through separate host memory");
    EXPECT_EQ(DMatrix::from_global(exec, world(), contiguous, A)->transport(), "host memory");
    for (const size_type k : {1, 3, 3, 2, 1}) {
        SCOPED_TRACE(k);
        const auto x = random_dense<V>(reference(), {A.rows(), k}, k);
        expect_product(*staged, x, single_process_apply(A, x).to_host());
    }
    EXPECT_GE(staged->time_exchange(2, 2), 0.0);
}

/// A file of this process's own (every rank writes the same text to its own path).
std::string write_file(const std::string& name, const std::string& text)
{
    const auto path = std::filesystem::temp_directory_path() /
                      (name + "_" + std::to_string(::getpid()) + ".mtx");
    std::ofstream(path) << text;
    return path.string();
}

TEST(DistributedMatrix, ReadsEveryFieldAndSymmetryInShares)
{
    // Pattern, skew-symmetric, comments between entries: the shares split anywhere.
    const auto text = std::string("%%MatrixMarket matrix coordinate real skew-symmetric\n% c\n") +
                      "5 5 4\n2 1 1.5\n% between\n3 1 -2\n5 4 3\n\n4 2 0.25\n";
    const auto path = write_file("loom_skew", text);
    const auto A = matrix::read_csr<V, I>(reference(), path);
    const auto dA = DMatrix::read_mtx(reference(), world(), path);
    EXPECT_EQ(dA->global_nnz(), 8);
    const auto x = random_dense<V>(reference(), {5, 2}, 1);
    auto y_local = dA->space().create(2);
    dA->apply(dA->space().local_part(x), y_local);
    const auto y = dA->space().gather(y_local);
    if (world().rank() == 0) {
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), single_process_apply(A, x).to_host(),
                                 tolerance<V>());
    }
    std::filesystem::remove(path);
}

TEST(DistributedErrors, MalformedFileRaisesOnEveryRank)
{
    const auto bad_line = write_file(
        "loom_bad", "%%MatrixMarket matrix coordinate real general\n4 4 4\n1 1 1\n2 2 x\n"
                    "3 3 1\n4 4 1\n");
    EXPECT_THROW(DMatrix::read_mtx(reference(), world(), bad_line), BadInput);
    const auto short_file = write_file(
        "loom_short", "%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 1\n2 2 1\n");
    EXPECT_THROW(DMatrix::read_mtx(reference(), world(), short_file), BadInput);
    std::filesystem::remove(bad_line);
    std::filesystem::remove(short_file);
}

TEST(DistributedSpmv, RankWithoutHalo)
{
    // Tridiagonal, except that rank 0's last row does not reach rank 1's first column: rank 0
    // receives nothing (no halo) while rank 1 still receives from rank 0.
    const auto P = world().size();
    const size_type n = 8 * P;
    const auto partition = distributed::Partition::contiguous(n, P);
    std::vector<I> ptrs{0}, cols;
    std::vector<V> vals;
    for (size_type i = 0; i < n; ++i) {
        for (size_type j = std::max<size_type>(i - 1, 0); j <= std::min(i + 1, n - 1); ++j) {
            if (i == 7 && j == 8) continue;
            cols.push_back(static_cast<I>(j));
            vals.push_back(j == i ? 4.0 : -1.0 - 0.01 * double(i));
        }
        ptrs.push_back(static_cast<I>(cols.size()));
    }
    const auto A = matrix::Csr<V, I>::from_host(reference(), {n, n}, ptrs, cols, vals);
    const auto dA = DMatrix::from_global(reference(), world(), partition, A);
    if (world().rank() == 0) EXPECT_EQ(dA->halo_size(), 0);
    if (world().rank() == 1) EXPECT_GE(dA->halo_size(), 1);
    expect_spmv_matches(A, 1);
}

TEST(DistributedMatrix, AssemblesTripletsGivenOnAnyRank)
{
    // Rank r contributes every entry of rows congruent to r + 1 modulo P (so mostly rows it
    // does not own), plus a duplicate of the diagonal: the owners sum them.
    const auto comm = world();
    const auto A = matrix::poisson2d<V, I>(reference(), 6);
    distributed::Triplets<V> mine;
    for (size_type row = 0; row < A.rows(); ++row) {
        if ((row + 1) % comm.size() != comm.rank()) continue;
        for (auto k = A.row_ptrs()[row]; k < A.row_ptrs()[row + 1]; ++k) {
            const bool diagonal = A.col_idxs()[k] == row;
            for (int copy = 0; copy < (diagonal ? 2 : 1); ++copy) {
                mine.rows.push_back(row);
                mine.cols.push_back(A.col_idxs()[k]);
                mine.values.push_back(diagonal ? A.values()[k] / 2 : A.values()[k]);
            }
        }
    }
    const auto partition = distributed::Partition::contiguous(A.rows(), comm.size());
    const auto dA = DMatrix::assemble(reference(), comm, partition, A.rows(), mine);
    EXPECT_EQ(dA->global_nnz(), A.nnz());
    const auto x = random_dense<V>(reference(), {A.rows(), 1}, 2);
    const auto x_local = dA->space().local_part(x);
    auto y_local = dA->space().create(1);
    dA->apply(x_local, y_local);
    const auto y = dA->space().gather(y_local);
    if (comm.rank() == 0) {
        LOOM_EXPECT_NEAR_VECTORS(y.to_host(), single_process_apply(A, x).to_host(),
                                 tolerance<V>());
    }
}

TEST(DistributedMatrix, RedistributesToAnotherPartitionAndMetis)
{
    const auto A = matrix::poisson2d<V, I>(reference(), 9);
    const auto x = random_dense<V>(reference(), {A.rows(), 2}, 4);
    const auto expected = single_process_apply(A, x).to_host();
    const auto dA = DMatrix::from_global(
        reference(), world(), distributed::Partition::contiguous(A.rows(), world().size()), A);
    std::vector<distributed::Partition> targets{awkward_partitions(A.rows())[2].second};
#if LOOM_TEST_HAS_METIS
    targets.push_back(distributed::metis_partition(*dA));
#endif
    for (const auto& partition : targets) {
        const auto moved = dA->redistributed(partition);
        EXPECT_EQ(moved->partition(), partition);
        const auto x_local = moved->space().local_part(x);
        auto y_local = moved->space().create(2);
        moved->apply(x_local, y_local);
        const auto y = moved->space().gather(y_local);
        if (world().rank() == 0) LOOM_EXPECT_NEAR_VECTORS(y.to_host(), expected, tolerance<V>());
    }
}

// ---- bad input: the same clear error on every rank, never a hang

TEST(DistributedErrors, EntryOutsideTheMatrixOnOneRankRaisesOnEveryRank)
{
    const auto comm = world();
    distributed::Triplets<V> mine;
    if (comm.rank() == comm.size() - 1) mine = {{0, 12}, {0, 1}, {1.0, 2.0}};  // row 12 of 10
    const auto partition = distributed::Partition::contiguous(10, comm.size());
    try {
        DMatrix::assemble(reference(), comm, partition, 10, mine);
        ADD_FAILURE() << "no error";
    } catch (const BadInput& e) {
        EXPECT_NE(std::string(e.what()).find("on rank " + std::to_string(comm.size() - 1)),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("12"), std::string::npos) << e.what();
    }
}

TEST(DistributedErrors, SizesThatDifferAcrossRanksRaiseOnEveryRank)
{
    const auto comm = world();
    if (comm.size() == 1) GTEST_SKIP() << "needs two ranks";
    const size_type n = comm.rank() == 1 ? 11 : 10;
    const auto partition = distributed::Partition::contiguous(n, comm.size());
    EXPECT_THROW(DMatrix::assemble(reference(), comm, partition, n, {}), DimensionMismatch);
}

TEST(DistributedErrors, PartitionOfTheWrongShapeRaisesOnEveryRank)
{
    const auto comm = world();
    const auto partition = distributed::Partition::contiguous(10, comm.size() + 1);
    EXPECT_THROW(DMatrix::assemble(reference(), comm, partition, 10, {}), BadInput);
    const auto short_partition = distributed::Partition::contiguous(9, comm.size());
    EXPECT_THROW(DMatrix::assemble(reference(), comm, short_partition, 10, {}), BadInput);
}

TEST(DistributedErrors, MissingFileOnOneRankRaisesOnEveryRank)
{
    const auto comm = world();
    LOOM_SKIP_WITHOUT_SHARED_MATRICES();
    const auto path = comm.rank() == comm.size() - 1 ? std::string("/nonexistent/A.mtx")
                                                     : shared_matrix_path("bcsstk01");
    EXPECT_THROW(DMatrix::read_mtx(reference(), comm, path), BadInput);
}

}  // namespace
}  // namespace loom::test
