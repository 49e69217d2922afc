// Device memory exhausted (issue 18): an allocation or a SpGEMM whose output does not fit the
// free memory raises OutOfMemory with the bytes it needed and the bytes free, leaves its
// inputs intact, and the executor stays usable. Runs on a CUDA device; skipped without one.
#include <cstdlib>
#include <list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/resources.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/sparse/spgemm.hpp"
#include "support/types.hpp"

namespace {

using V = std::tuple_element_t<0, loom::test::value_tuple>;
using I = std::tuple_element_t<0, loom::test::index_tuple>;

class DeviceMemory : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!loom::CudaExecutor::available()) GTEST_SKIP() << "no CUDA device";
        // These tests take the whole device: next to other tests (ctest --parallel) they make
        // those run out of memory. scripts/device.sh runs them alone, after ctest.
        const char* fill = std::getenv("LOOM_TEST_FILL_DEVICE");
        if (!fill || std::string(fill) != "1") {
            GTEST_SKIP() << "fills the device's memory: run alone with LOOM_TEST_FILL_DEVICE=1";
        }
        cuda_ = loom::CudaExecutor::create(0);
    }

    /// Takes device memory in chunks until an allocation fails, and returns that failure:
    /// afterwards less than one chunk is free, until filler_ is cleared.
    loom::OutOfMemory fill_device()
    {
        constexpr std::size_t chunk = std::size_t{256} << 20;
        for (;;) {
            try {
                filler_.emplace_back(cuda_, static_cast<loom::size_type>(chunk / sizeof(double)));
            } catch (const loom::OutOfMemory& e) {
                return e;
            }
        }
    }

    std::shared_ptr<const loom::CudaExecutor> cuda_;
    std::list<loom::Array<double>> filler_;
};

TEST_F(DeviceMemory, AllocationNamesNeededAndFreeBytes)
{
    const auto failure = fill_device();
    EXPECT_EQ(failure.needed_bytes(), std::size_t{256} << 20);
    EXPECT_LT(failure.free_bytes(), failure.needed_bytes());
    EXPECT_NE(std::string(failure.what()).find("out of memory: needed 268 MB"), std::string::npos)
        << failure.what();
    EXPECT_NE(std::string(failure.what()).find("free"), std::string::npos) << failure.what();
    // Memory given back is usable again.
    filler_.clear();
    EXPECT_NO_THROW(loom::Array<double>(cuda_, loom::size_type{1} << 27));
}

TEST_F(DeviceMemory, SpgemmOutputBeyondFreeMemoryLeavesInputsIntact)
{
    // 27-point Poisson on 120^3: A has 46 M entries, A * A (125-point) 216 M, 2.6 GB in
    // double with 32-bit indices: more than the < 256 MB left free.
    const auto host = loom::ReferenceExecutor::create();
    const auto A_host = loom::matrix::poisson3d<V, I>(host, 120, 27);
    const loom::matrix::Csr<V, I> A(cuda_, A_host);
    fill_device();
    try {
        (void)loom::sparse::spgemm(A, A);
        ADD_FAILURE() << "no OutOfMemory";
    } catch (const loom::OutOfMemory& e) {
        // Not needed > free: with the memory nearly full, cudaMalloc also fails below the free
        // byte count (it hands out whole pages), and the failing allocation may be a small one.
        EXPECT_GT(e.needed_bytes(), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("free"), std::string::npos) << e.what();
    }
    filler_.clear();
    EXPECT_EQ(A.row_ptrs().to_host(), A_host.row_ptrs().to_host());
    EXPECT_EQ(A.col_idxs().to_host(), A_host.col_idxs().to_host());
    EXPECT_EQ(A.values().to_host(), A_host.values().to_host());
    // With the memory back, the same product runs.
    const auto C = loom::sparse::spgemm(A, A);
    EXPECT_GT(C.nnz(), A.nnz());
}

}  // namespace
