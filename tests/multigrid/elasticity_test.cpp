// Elasticity for smoothed aggregation: the elasticity3d generator, rigid-body modes from
// coordinates, node aggregation (dofs_per_node), AMG-CG with the six modes against the
// constant vector, and the setup kernels (strength filter, L1 diagonal, per-aggregate QR) of
// every backend against the reference.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/multigrid/rigid_body_modes.hpp"
#include "loom/solver/cg.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace {

using namespace loom;
using Csr = matrix::Csr<double, int32>;
using Dense = matrix::Dense<double>;
using Amg = solver::Multigrid<double, int32>;
using Problem = matrix::GeneratedProblem<double, int32>;

/// OpenMP where it is built (the CPU backend these tests time), else the reference.
std::shared_ptr<const Executor> host_backend()
{
    const auto backends = test::backends();
    return backends.empty() || !backends.front()->is_host() ? test::reference() : backends.front();
}

Problem elasticity(std::shared_ptr<const Executor> exec, size_type n)
{
    return matrix::elasticity3d<double, int32>(std::move(exec), n);
}

/// The iterations of solver (a CG on exec, expected to converge) from zero for b = ones.
template <typename Solver>
size_type iterations_for_ones(Solver& cg, const std::shared_ptr<const Executor>& exec)
{
    Dense b(exec, dim2{cg.size().rows, 1});
    Dense x(exec, dim2{cg.size().rows, 1});
    b.fill(1.0);
    x.fill(0.0);
    cg.apply(b, x);
    EXPECT_TRUE(cg.result().converged()) << cg.result().message();
    return cg.result().iterations;
}

/// CG to 1e-8 from zero, b = ones, preconditioned by `amg`: its iterations (converged).
size_type amg_cg_iterations(const Problem& problem, std::shared_ptr<const Amg::Factory> amg)
{
    const auto& exec = problem.A.executor();
    auto A = std::make_shared<const Csr>(problem.A);
    auto cg = solver::Cg<double>::build()
                  .with_preconditioner(amg)
                  .with_criteria(stop::max_iterations(1000), stop::relative_residual(1e-8))
                  .on(exec)
                  ->generate(A);
    return iterations_for_ones(*cg, exec);
}

TEST(Elasticity3d, SizesSymmetryAndSpec)
{
    const size_type n = 3;
    const auto problem = elasticity(test::reference(), n);
    const size_type nodes = n * (n + 1) * (n + 1);
    EXPECT_EQ(problem.A.rows(), 3 * nodes);
    EXPECT_EQ(problem.A.cols(), 3 * nodes);
    EXPECT_EQ(problem.dofs_per_node, 3);
    ASSERT_EQ(problem.coordinates.rows(), nodes);
    ASSERT_EQ(problem.coordinates.cols(), 3);
    EXPECT_EQ(sparse::column_order(problem.A), sparse::ColumnOrder::increasing);
    // An interior node couples to all 27 neighbours, 3 x 3 each.
    const auto ptrs = problem.A.row_ptrs().to_host();
    std::size_t longest = 0;
    for (std::size_t r = 0; r + 1 < ptrs.size(); ++r) {
        longest = std::max<std::size_t>(longest, ptrs[r + 1] - ptrs[r]);
    }
    EXPECT_EQ(longest, 81u);
    // Symmetric with a positive diagonal.
    const auto a = test::dense_of(problem.A);
    const auto at = test::dense_of(sparse::transpose(problem.A));
    const size_type rows = problem.A.rows();
    for (size_type r = 0; r < rows; ++r) {
        EXPECT_GT(a[r * rows + r], 0.0);
        for (size_type c = 0; c < rows; ++c) ASSERT_NEAR(a[r * rows + c], at[r * rows + c], 1e-14);
    }
    // The spec gives the same matrix; a malformed one names itself.
    const auto spec = matrix::generate_problem<double, int32>(test::reference(), "elasticity3d:3");
    EXPECT_EQ(spec.A.values().to_host(), problem.A.values().to_host());
    EXPECT_EQ(spec.coordinates.to_host(), problem.coordinates.to_host());
    EXPECT_EQ((matrix::generate_csr<double, int32>(test::reference(), "elasticity3d:3").nnz()),
              problem.A.nnz());
    EXPECT_THROW((matrix::generate_csr<double, int32>(test::reference(), "elasticity3d:3:1")),
                 BadInput);
    EXPECT_THROW((matrix::generate_csr<double, int32>(test::reference(), "elasticity3d:x")),
                 BadInput);
    EXPECT_EQ(elasticity(test::reference(), 0).A.rows(), 0);
}

TEST(RigidBodyModes, AreInTheKernelAwayFromTheClampedFace)
{
    const size_type n = 4;
    const auto problem = elasticity(test::reference(), n);
    const auto B = multigrid::rigid_body_modes(problem.coordinates, 3);
    ASSERT_EQ(B.rows(), problem.A.rows());
    ASSERT_EQ(B.cols(), 6);
    Dense AB(test::reference(), dim2{B.rows(), 6});
    problem.A.apply(B, AB);
    const auto coordinates = problem.coordinates.to_host();
    const double scale = problem.A.values().to_host()[0];
    for (size_type r = 0; r < AB.rows(); ++r) {
        // Rows whose node has no clamped neighbour (x >= 2 h) see a rigid motion: no force.
        if (coordinates[(r / 3) * 3] < 1.5 / n) continue;
        for (size_type j = 0; j < 6; ++j) {
            ASSERT_NEAR(AB.at(r, j), 0.0, 1e-12 * std::abs(scale)) << "row " << r << " mode " << j;
        }
    }
}

TEST(RigidBodyModes, TwoAndThreeDimensions)
{
    const auto exec = test::reference();
    // Two nodes at (0, 0) and (2, 0): centroid (1, 0).
    const auto plane = Dense::from_host(exec, dim2{2, 2}, {0.0, 0.0, 2.0, 0.0});
    const auto B2 = multigrid::rigid_body_modes(plane, 2);
    ASSERT_EQ(B2.rows(), 4);
    ASSERT_EQ(B2.cols(), 3);
    // Rows (u0, v0, u1, v1); columns t_x, t_y, rotation (-y, x).
    EXPECT_EQ(B2.to_host(), (std::vector<double>{1, 0, 0, 0, 1, -1, 1, 0, 0, 0, 1, 1}));
    const auto B3 = multigrid::rigid_body_modes(plane, 3);
    ASSERT_EQ(B3.rows(), 6);
    EXPECT_EQ(B3.at(2, 2), 1.0);  // the rotation's own unknown
    const auto space = Dense::from_host(exec, dim2{1, 3}, {1.0, 2.0, 3.0});
    const auto B6 = multigrid::rigid_body_modes(space, 6);
    ASSERT_EQ(B6.rows(), 6);
    ASSERT_EQ(B6.cols(), 6);
    for (size_type i = 0; i < 6; ++i) EXPECT_EQ(B6.at(i, i), 1.0);
    EXPECT_THROW(multigrid::rigid_body_modes(space, 4), BadInput);
    EXPECT_THROW(multigrid::rigid_body_modes(plane, 6), BadInput);
    EXPECT_THROW(multigrid::rigid_body_modes(Dense(exec, dim2{2, 4}), 3), BadInput);
    EXPECT_THROW(multigrid::rigid_body_modes(Dense(), 3), BadInput);
}

TEST(Multigrid, RigidBodyModesCutIterationsOnElasticity)
{
    const auto exec = host_backend();
    const auto problem = elasticity(exec, 8);
    const auto scalar = amg_cg_iterations(problem, Amg::build().on(exec));
    const auto modes = amg_cg_iterations(
        problem, Amg::build().with_coordinates(problem.coordinates, 3).on(exec));
    const auto translations =
        amg_cg_iterations(problem, Amg::build().with_dofs_per_node(3).on(exec));
    EXPECT_LT(modes * 3, scalar * 2) << modes << " with the modes, " << scalar << " without";
    EXPECT_LT(modes, translations);
    std::printf("elasticity3d:8 AMG-CG iterations: constant %lld, 3 translations %lld, "
                "6 rigid-body modes %lld\n",
                static_cast<long long>(scalar), static_cast<long long>(translations),
                static_cast<long long>(modes));
}

TEST(Multigrid, NodeAggregationKeepsNodesWhole)
{
    const auto exec = test::reference();
    const auto problem = elasticity(exec, 4);
    auto A = std::make_shared<const Csr>(problem.A);
    auto amg = Amg::build().with_coordinates(problem.coordinates, 3).with_coarse_size(20).on(exec)
                   ->generate(A);
    ASSERT_GE(amg->num_levels(), 2);
    // P_tent's columns come in blocks of 6 per aggregate; the smoothed P keeps that shape.
    EXPECT_EQ(amg->level_matrix(1).rows() % 6, 0);
    EXPECT_THROW(Amg::build().with_dofs_per_node(7).on(exec)->generate(A), DimensionMismatch);
    EXPECT_THROW(Amg::build().with_dofs_per_node(0), BadInput);
}

TEST(Multigrid, DependentNearNullSpaceVectorsAreRefused)
{
    const auto exec = test::reference();
    auto A = std::make_shared<const Csr>(matrix::poisson2d<double, int32>(exec, 12));
    auto vectors = std::make_shared<Dense>(exec, dim2{A->rows(), 2});
    vectors->fill(1.0);  // the same vector twice
    try {
        Amg::build().with_near_null_space(vectors).with_coarse_size(10).on(exec)->generate(A);
        FAIL() << "no error";
    } catch (const NumericalError& e) {
        EXPECT_NE(std::string(e.what()).find("aggregate 0"), std::string::npos) << e.what();
    }
}

TEST(Multigrid, CoordinatesFromConfig)
{
    const auto exec = test::reference();
    const auto problem = elasticity(exec, 4);
    const std::string path = ::testing::TempDir() + "loom_amg_coordinates.mtx";
    matrix::write_mtx(path, problem.coordinates);
    auto A = std::make_shared<const Csr>(problem.A);
    const auto iterations = [&](const std::string& amg) {
        auto cg = solver::from_config<double, int32>(
                      R"({"solver": "cg", "criteria": {"relative_residual": 1e-8},
                          "preconditioner": )" + amg + "}",
                      exec)
                      ->generate(A);
        return iterations_for_ones(*cg, exec);
    };
    const auto with_builder = amg_cg_iterations(
        problem, Amg::build().with_coordinates(problem.coordinates, 3).on(exec));
    EXPECT_EQ(iterations(R"({"type": "amg", "coordinates": ")" + path + "\"}"), with_builder);
    EXPECT_EQ(iterations(R"({"type": "amg", "coordinates": ")" + path +
                         R"(", "dofs_per_node": 3})"),
              with_builder);
    // The same coordinates written inline as rows.
    std::string rows;
    const auto xyz = problem.coordinates.to_host();
    for (size_type node = 0; node < problem.coordinates.rows(); ++node) {
        rows += (node ? ", [" : "[") + std::to_string(xyz[3 * node]) + ", " +
                std::to_string(xyz[3 * node + 1]) + ", " + std::to_string(xyz[3 * node + 2]) + "]";
    }
    EXPECT_EQ(iterations(R"({"type": "amg", "coordinates": [)" + rows + "]}"), with_builder);
    EXPECT_THROW(iterations(R"({"type": "amg", "coordinates": [[1, 2, 3], [4, 5]]})"), BadInput);
    EXPECT_THROW(iterations(R"({"type": "amg", "coordinates": [[1, 2, 3, 4]]})"), BadInput);
    EXPECT_THROW(iterations(R"({"type": "amg", "coordinates": []})"), BadInput);
    EXPECT_THROW(iterations(R"({"type": "amg", "coordinates": 3})"), BadInput);
    EXPECT_THROW(iterations(R"({"type": "amg", "coordinates": ")" + path +
                            R"(", "dofs_per_node": 4})"),
                 BadInput);
    EXPECT_THROW(iterations(R"({"type": "amg", "dofs_per_node": 0})"), BadInput);
    std::remove(path.c_str());
}

/// Every level's operator and prolongator, and one cycle's output, of `amg` against `ref`.
void expect_same_hierarchy(const Amg& amg, const Amg& ref, const Dense& b_host)
{
    ASSERT_EQ(amg.num_levels(), ref.num_levels());
    const auto near = [](const std::vector<double>& a, const std::vector<double>& e) {
        ASSERT_EQ(a.size(), e.size());
        double largest = 0;
        for (auto v : e) largest = std::max(largest, std::abs(v));
        for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], e[i], 1e-12 * largest) << i;
    };
    // As dense matrices: the same operators whatever order a backend keeps within a row.
    for (size_type k = 0; k < amg.num_levels(); ++k) {
        SCOPED_TRACE("level " + std::to_string(k));
        ASSERT_EQ(amg.level_matrix(k).nnz(), ref.level_matrix(k).nnz());
        near(test::dense_of(amg.level_matrix(k)), test::dense_of(ref.level_matrix(k)));
        if (k + 1 < amg.num_levels()) {
            ASSERT_EQ(amg.prolongator(k).nnz(), ref.prolongator(k).nnz());
            near(test::dense_of(amg.prolongator(k)), test::dense_of(ref.prolongator(k)));
        }
    }
    const auto& exec = amg.executor();
    const Dense b(exec, b_host);
    Dense x(exec, dim2{b.rows(), 1});
    amg.apply(b, x);
    Dense x_ref(ref.executor(), dim2{b.rows(), 1});
    ref.apply(b_host, x_ref);
    near(Dense(test::reference(), x).to_host(), x_ref.to_host());
}

// The strength filter (theta > 0), the L1 diagonal (l1-jacobi) and the per-aggregate QR
// (rigid-body modes) all run on the backend.
TEST(Multigrid, SetupKernelsMatchTheReference)
{
    const auto reference = test::reference();
    const auto problem = elasticity(reference, 4);
    const auto build = [&](std::shared_ptr<const Executor> exec) {
        const Dense coordinates(exec, problem.coordinates);
        return Amg::build()
            .with_coordinates(coordinates, 3)
            .with_strength_threshold(0.2)
            .with_smoother(solver::MultigridSmoother::l1_jacobi)
            .with_coarse_size(30)
            .on(exec)
            ->generate(std::make_shared<const Csr>(exec, problem.A));
    };
    const auto ref = build(reference);
    ASSERT_GE(ref->num_levels(), 2);
    // theta = 0.2 drops entries: the strength graph is not A's pattern.
    const auto all = Amg::build().with_coordinates(problem.coordinates, 3).with_coarse_size(30)
                         .on(reference)
                         ->generate(std::make_shared<const Csr>(problem.A));
    EXPECT_NE(all->level_info(1).rows, ref->level_info(1).rows);
    Dense b(reference, dim2{problem.A.rows(), 1});
    b.fill(1.0);
    for (const auto& exec : test::backends()) {
        SCOPED_TRACE(exec->name());
        expect_same_hierarchy(*build(exec), *ref, b);
    }
}

}  // namespace
