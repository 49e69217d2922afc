// A CPU-only process loads no CUDA library: libloom needs none, and libloom_cuda (with the CUDA
// runtime it needs) is loaded when the devices are first counted or a CudaExecutor is made
// (src/base/cuda_loader.cpp). Its own executable (tests/CMakeLists.txt): the other test
// executables link the CUDA runtime themselves.
#include <link.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"

namespace {

/// The file names of the shared objects loaded in this process.
std::vector<std::string> loaded_objects()
{
    std::vector<std::string> names;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
            return 0;
        },
        &names);
    return names;
}

bool loaded(const std::string& library)
{
    for (const auto& name : loaded_objects()) {
        if (name.find(library) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST(CudaLoading, HostWorkLoadsNothingOfCudaAndCountingDevicesLoadsTheBackend)
{
    if (LOOM_HAS_CUDA && !LOOM_CUDA_SEPARATE) {
        GTEST_SKIP() << "the CUDA backend is part of libloom in this build";
    }
    auto ref = loom::ReferenceExecutor::create();
    loom::Array<double> a(ref, {1.0, 2.0});
    loom::Array<double> b(ref, a);
    EXPECT_TRUE(loaded("libloom"));
    EXPECT_FALSE(loaded("libcudart"));
    EXPECT_FALSE(loaded("libloom_cuda"));

    const int devices = loom::CudaExecutor::device_count();
    EXPECT_GE(devices, 0);
    EXPECT_EQ(loaded("libloom_cuda"), bool{LOOM_HAS_CUDA});
    EXPECT_EQ(loaded("libcudart"), bool{LOOM_HAS_CUDA});
}

TEST(CudaLoading, AFirstCallIntoTheCudaSideLoadsItOnTheWay)
{
    if (!LOOM_CUDA_SEPARATE) GTEST_SKIP() << "no separate CUDA library in this build";
    if (loaded("libloom_cuda")) GTEST_SKIP() << "loaded by an earlier test of this process";
    // DeviceScope is defined in libloom_cuda: called before anything loaded it, its trampoline
    // loads the library (loom_cuda_lazy in src/base/cuda_loader.cpp) and the call goes on
    // with its arguments (`this` among them: a wrong one would write elsewhere).
    {
        const loom::CudaExecutor::DeviceScope scope(0);
    }
    EXPECT_TRUE(loaded("libloom_cuda"));
}

TEST(CudaLoading, WithoutDeviceCreatingOneSaysSo)
{
    if (loom::CudaExecutor::device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
    try {
        loom::CudaExecutor::create(0);
        FAIL() << "created a CudaExecutor without a device";
    } catch (const loom::NotCompiled&) {
        EXPECT_FALSE(LOOM_HAS_CUDA);
    } catch (const loom::CudaError& error) {
        // Not "cannot load libloom_cuda" nor "does not match": the backend was loaded and
        // every trampoline found its function; only the device is missing.
        EXPECT_NE(std::string(error.what()).find("no CUDA device"), std::string::npos)
            << error.what();
    }
}
