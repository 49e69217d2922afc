// cuSPARSE, cuBLAS and cuSOLVER are loaded at their first call (src/base/cuda/vendor.hpp), so a
// process that only runs host backends never maps them: ~850 MB and 0.3 s per process start.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "loom/loom.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace {

/// Whether a shared object whose name contains `name` is mapped into this process.
bool mapped(const std::string& name)
{
    std::ifstream maps{"/proc/self/maps"};
    for (std::string line; std::getline(maps, line);) {
        if (line.find(name) != std::string::npos) return true;
    }
    return false;
}

constexpr const char* vendor_libraries[] = {"libcusparse", "libcublas", "libcusolver"};

}  // namespace

TEST(VendorLoading, HostBackendsMapNoVendorLibrary)
{
    // ctest runs each test in its own process; a whole-binary run may have used the GPU before.
    if (mapped("libcusparse")) GTEST_SKIP() << "an earlier test of this process used cuSPARSE";
    auto ref = loom::ReferenceExecutor::create();
    const auto A = loom::test::random_csr<double, loom::int32>(ref, {33, 33, 4});
    const auto x = loom::test::random_dense<double>(ref, {33, 1}, 1);
    loom::matrix::Dense<double> y(ref, {33, 1});
    loom::sparse::spmv(loom::sparse::Mode::none, 1.0, A, x, 0.0, y);
    for (const char* library : vendor_libraries) EXPECT_FALSE(mapped(library)) << library;
}

TEST(VendorLoading, FirstVendorCallLoadsItsLibrary)
{
    LOOM_CUDA_OR_SKIP(cuda);
    const auto A = loom::test::random_csr<double, loom::int32>(cuda, {33, 33, 4});
    const auto x = loom::test::random_dense<double>(cuda, {33, 1}, 1);
    loom::matrix::Dense<double> y(cuda, {33, 1});
    loom::sparse::spmv(loom::sparse::Mode::none, 1.0, A, x, 0.0, y,
                       {loom::sparse::SpmvAlgorithm::vendor});
    EXPECT_TRUE(mapped("libcusparse"));
}
