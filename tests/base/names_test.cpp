// Every table of names: complete, unambiguous, and parse(to_string(v)) == v; unknown names
// raise BadInput listing the accepted ones.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "loom/precond/gauss_seidel.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/sparse/isai.hpp"
#include "loom/sparse/ilu.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/names.hpp"
#include "loom/batched/front.hpp"
#include "loom/blas/types.hpp"
#include "loom/graph/coloring.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/matrix/io.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/gmres.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "loom/sparse/spadd.hpp"
#include "loom/sparse/spgemm.hpp"
#include "loom/sparse/spmv.hpp"

namespace {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

std::string upper(std::string text)
{
    for (auto& c : text) c = (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
    return text;
}

/// The table of E names every enumerator 0..last once, and every spelling once; each name
/// and alias parses back to its value in any case; anything else is BadInput listing the
/// names.
template <typename E>
void expect_complete_table(E last)
{
    const auto table = names_of(E{});
    SCOPED_TRACE(table.what());
    const auto count = static_cast<std::size_t>(last) + 1;
    ASSERT_EQ(table.entries().size(), count);
    std::set<int> values;
    std::set<std::string> spellings;
    for (const auto& entry : table.entries()) {
        values.insert(static_cast<int>(entry.value));
        EXPECT_STREQ(table.to_string(entry.value), entry.name);
        EXPECT_EQ(table.parse(entry.name, "test"), entry.value);
        EXPECT_EQ(table.find(upper(entry.name)), entry.value) << entry.name;
        EXPECT_TRUE(spellings.insert(entry.name).second) << entry.name << " twice";
        EXPECT_STRNE(entry.description, "") << entry.name;
        for (const char* alias : entry.aliases) {
            if (alias == nullptr) continue;
            EXPECT_EQ(table.parse(alias, "test"), entry.value) << alias;
            EXPECT_TRUE(spellings.insert(alias).second) << alias << " twice";
        }
    }
    EXPECT_EQ(values.size(), count);
    EXPECT_EQ(*values.rbegin(), static_cast<int>(last));
    EXPECT_EQ(table.spellings().size(), spellings.size());

    try {
        table.parse("no-such-name", "loom::test");
        ADD_FAILURE() << "no BadInput";
    } catch (const loom::BadInput& e) {
        EXPECT_EQ(e.where(), "loom::test");
        EXPECT_TRUE(contains(e.what(), "'no-such-name'")) << e.what();
        for (const auto& name : table.names()) EXPECT_TRUE(contains(e.what(), name)) << e.what();
    }
    EXPECT_FALSE(table.find(""));
}

TEST(Names, EveryTableIsCompleteAndRoundTrips)
{
    using namespace loom;
    expect_complete_table(ExecKind::cuda);
    expect_complete_table(sparse::Mode::conj_transpose);
    expect_complete_table(sparse::SpmvAlgorithm::binned);
    expect_complete_table(sparse::ReorderKind::degree);
    expect_complete_table(sparse::SpgemmAlgorithm::vendor);
    expect_complete_table(sparse::SpaddAlgorithm::vendor);
    expect_complete_table(sparse::StoragePrecision::float16);
    expect_complete_table(blas::Op::conj_transpose);
    expect_complete_table(blas::Side::right);
    expect_complete_table(blas::Uplo::upper);
    expect_complete_table(blas::Diag::unit);
    expect_complete_table(blas::Backend::vendor);
    expect_complete_table(batched::Launch::vendor);
    expect_complete_table(matrix::MtxFormat::array);
    expect_complete_table(matrix::MtxField::pattern);
    expect_complete_table(matrix::MtxSymmetry::hermitian);
    expect_complete_table(solver::Orthogonalization::classical);
    expect_complete_table(solver::InitialGuess::zero);
    expect_complete_table(solver::SolverKind::amg);
    expect_complete_table(solver::InnerPrecision::lower);
    expect_complete_table(solver::MultigridCycle::f);
    expect_complete_table(precond::GaussSeidelDirection::symmetric);
    expect_complete_table(precond::GaussSeidelVariant::cluster);
    expect_complete_table(solver::MultigridSmoother::gauss_seidel);
    expect_complete_table(solver::MultigridAggregation::pairwise);
    expect_complete_table(solver::PreconditionerKind::isai);
    expect_complete_table(sparse::SptrsvAlgorithm::vendor);
    expect_complete_table(sparse::IluKind::ilut);
    expect_complete_table(sparse::DiagonalShift::on);
    expect_complete_table(sparse::IsaiKind::spd);
    expect_complete_table(precond::TriangularSolve::isai);
    expect_complete_table(graph::ColoringAlgorithm::bipartition);
    expect_complete_table(graph::Mis2Mode::quality);
}

/// parse(to_string(value)) is the value for every entry of the table.
template <typename Table, typename Parse>
void expect_parse_inverts_print(const Table& table, Parse parse)
{
    for (const auto& e : table) EXPECT_EQ(parse(to_string(e.value)), e.value) << e.name;
}

TEST(Names, PublicParseAndPrintUseTheTables)
{
    using namespace loom;
    expect_parse_inverts_print(sparse::mode_names, sparse::parse_mode);
    expect_parse_inverts_print(sparse::spmv_algorithm_names, sparse::parse_spmv_algorithm);
    expect_parse_inverts_print(sparse::spgemm_algorithm_names, sparse::parse_spgemm_algorithm);
    expect_parse_inverts_print(sparse::spadd_algorithm_names, sparse::parse_spadd_algorithm);
    expect_parse_inverts_print(blas::op_names, blas::parse_op);
    expect_parse_inverts_print(blas::backend_names, blas::parse_backend);
    expect_parse_inverts_print(batched::launch_names, batched::parse_launch);
    expect_parse_inverts_print(graph::coloring_algorithm_names, graph::parse_coloring_algorithm);
    expect_parse_inverts_print(graph::mis2_mode_names, graph::parse_mis2_mode);
    for (const auto& e : matrix::mtx_symmetry_names) {
        EXPECT_EQ(matrix::to_string(e.value), e.name);
    }
    EXPECT_STREQ(solver::to_string(solver::Orthogonalization::classical), "classical");
    EXPECT_STREQ(sparse::to_string(sparse::StoragePrecision::float32), "float32");
    EXPECT_STREQ(blas::to_string(blas::Uplo::lower), "lower");

    // The spellings kept from before the tables.
    EXPECT_EQ(sparse::parse_mode("T"), sparse::Mode::transpose);
    EXPECT_EQ(sparse::parse_spmv_algorithm("auto"), sparse::SpmvAlgorithm::automatic);
    EXPECT_EQ(sparse::parse_spadd_algorithm("cusparse"), sparse::SpaddAlgorithm::vendor);
    EXPECT_EQ(blas::parse_op("c"), blas::Op::conj_transpose);
    EXPECT_EQ(batched::parse_launch("team_vector"), batched::Launch::team_vector);
    EXPECT_STREQ(batched::to_string(batched::Launch::automatic), "auto");
    EXPECT_EQ(graph::parse_coloring_algorithm("auto"), graph::ColoringAlgorithm::automatic);
    EXPECT_EQ(graph::parse_coloring_algorithm("cusparse"), graph::ColoringAlgorithm::vendor);
    EXPECT_EQ(graph::parse_mis2_mode("Quality"), graph::Mis2Mode::quality);
}

TEST(Names, UnknownNameNamesTheFunctionAndTheChoices)
{
    try {
        loom::sparse::parse_spmv_algorithm("fastest");
        FAIL() << "no BadInput";
    } catch (const loom::BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "loom::sparse::parse_spmv_algorithm: unknown SpMV algorithm 'fastest' "
                  "(expected one of automatic, row_vector, stream, load_balanced, vendor, binned)");
    }
}

TEST(Names, GraphParsersNameTheFunctionAndEveryChoice)
{
    try {
        loom::graph::parse_coloring_algorithm("rainbow");
        FAIL() << "no BadInput";
    } catch (const loom::BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "loom::graph::parse_coloring_algorithm: unknown coloring algorithm 'rainbow' "
                  "(expected one of automatic, greedy, vb, vbbit, vbcs, eb, nb, vendor, "
                  "bipartition)");
    }
    try {
        loom::graph::parse_mis2_mode("slow");
        FAIL() << "no BadInput";
    } catch (const loom::BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "loom::graph::parse_mis2_mode: unknown MIS-2 mode 'slow' (expected one of fast, "
                  "quality)");
    }
}

TEST(Names, HelpListsNamesAlignedWithTheirDescriptions)
{
    using loom::sparse::IsaiKind;
    EXPECT_EQ(names_of(IsaiKind{}).help(),
              "  general  a general matrix\n"
              "  lower    a lower triangular matrix\n"
              "  upper    an upper triangular matrix\n"
              "  spd      an SPD matrix, as the factor G of M = G^H G\n");
}

TEST(Names, ExecutorNamesIncludeDevices)
{
    using loom::ExecKind;
    EXPECT_EQ(loom::parse_executor_name("omp").kind, ExecKind::omp);
    EXPECT_EQ(loom::parse_executor_name("ref").kind, ExecKind::reference);
    const auto device = loom::parse_executor_name("cuda:3");
    EXPECT_EQ(device.kind, ExecKind::cuda);
    EXPECT_EQ(device.device, 3);
    EXPECT_EQ(loom::parse_executor_name("cuda").device, 0);
    for (const auto* bad : {"omp:1", "cuda:", "cuda:x", "cuda:-1", "cuda:1234567", "gpu"}) {
        try {
            loom::parse_executor_name(bad);
            ADD_FAILURE() << bad << ": no BadInput";
        } catch (const loom::BadInput& e) {
            EXPECT_TRUE(contains(e.what(), "reference, omp, cuda, cuda:N")) << e.what();
        }
    }
    EXPECT_THROW(loom::make_executor("bogus"), loom::BadInput);
    EXPECT_EQ(loom::make_executor("reference")->kind(), ExecKind::reference);
}

}  // namespace
