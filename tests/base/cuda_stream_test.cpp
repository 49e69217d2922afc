// A CudaExecutor on the caller's stream: Loom's work is queued there, the stream survives the
// executor, and caller-owned device memory can be viewed with a keep-alive.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv.hpp"
#include "support/executors.hpp"

#if LOOM_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace {

#if LOOM_HAS_CUDA
/// Holds back a stream until opened: a host function queued on it waits for `open` (at most
/// a few seconds, so that a failing test cannot hang).
struct StreamGate {
    std::atomic<bool> open{false};

    static void CUDART_CB wait(void* gate)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!static_cast<StreamGate*>(gate)->open.load() &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
};

/// The caller's stream, destroyed by the test itself.
cudaStream_t make_stream()
{
    cudaStream_t stream{};
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    return stream;
}

/// Device values read on a stream of their own, without waiting for any other stream.
std::vector<double> peek(const double* device, std::size_t count)
{
    std::vector<double> host(count);
    cudaStream_t probe = make_stream();
    EXPECT_EQ(cudaMemcpyAsync(host.data(), device, count * sizeof(double),
                              cudaMemcpyDeviceToHost, probe),
              cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(probe), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(probe), cudaSuccess);
    return host;
}
#endif

TEST(CudaExecutorStream, OwnsTheStreamItCreates)
{
    LOOM_CUDA_OR_SKIP(cuda);
    EXPECT_TRUE(cuda->owns_stream());
    EXPECT_NE(cuda->stream(), nullptr);
}

TEST(CudaExecutorStream, NotCompiledWithoutCuda)
{
#if LOOM_HAS_CUDA
    GTEST_SKIP() << "the CUDA backend is compiled";
#else
    EXPECT_THROW(loom::CudaExecutor::create_on_stream(0, nullptr), loom::NotCompiled);
#endif
}

TEST(CudaExecutorStream, BadDeviceIsOutOfRange)
{
    LOOM_CUDA_OR_SKIP(cuda);
    EXPECT_THROW(loom::CudaExecutor::create_on_stream(-1, cuda->stream()), loom::OutOfRange);
    EXPECT_THROW(loom::CudaExecutor::create_on_stream(loom::CudaExecutor::device_count(),
                                                      cuda->stream()),
                 loom::OutOfRange);
}

TEST(CudaExecutorStream, SpmvRunsOnTheCallersStream)
{
    LOOM_CUDA_OR_SKIP(cuda);
#if LOOM_HAS_CUDA
    using Csr = loom::matrix::Csr<double, loom::int32>;
    using Dense = loom::matrix::Dense<double>;
    constexpr loom::int32 n = 4096;
    cudaStream_t stream = make_stream();
    {
        const auto exec = loom::CudaExecutor::create_on_stream(0, stream);
        EXPECT_EQ(exec->stream(), static_cast<void*>(stream));
        EXPECT_FALSE(exec->owns_stream());
        // 2 I, applied once unhindered (so that any analysis is cached on the matrix).
        std::vector<loom::int32> row_ptrs(n + 1), col_idxs(n);
        for (loom::int32 i = 0; i <= n; ++i) row_ptrs[i] = i;
        for (loom::int32 i = 0; i < n; ++i) col_idxs[i] = i;
        const auto A = Csr::from_host(exec, {n, n}, row_ptrs, col_idxs, std::vector<double>(n, 2.0));
        const auto x = Dense::from_host(exec, {n, 1}, std::vector<double>(n, 1.0));
        Dense y(exec, {n, 1});
        loom::sparse::spmv(loom::sparse::Mode::none, 1.0, A, x, 0.0, y);
        EXPECT_EQ(y.to_host(), std::vector<double>(n, 2.0));

        // Held back behind the gate on the caller's stream, the next SpMV must not have run.
        StreamGate gate;
        ASSERT_EQ(cudaLaunchHostFunc(stream, StreamGate::wait, &gate), cudaSuccess);
        loom::sparse::spmv(loom::sparse::Mode::none, 3.0, A, x, 0.0, y);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
        EXPECT_EQ(peek(y.data(), n), std::vector<double>(n, 2.0));
        gate.open = true;
        exec->synchronize();
        EXPECT_EQ(y.to_host(), std::vector<double>(n, 6.0));
    }
    // The executor is gone, the caller's stream is still there and usable.
    EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess);
    void* scratch = nullptr;
    EXPECT_EQ(cudaMallocAsync(&scratch, 256, stream), cudaSuccess);
    EXPECT_EQ(cudaFreeAsync(scratch, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
#endif
}

TEST(CudaExecutorStream, ViewOfCallerMemoryKeepsItAlive)
{
    LOOM_CUDA_OR_SKIP(cuda);
#if LOOM_HAS_CUDA
    bool freed = false;
    double* memory = nullptr;
    ASSERT_EQ(cudaMalloc(&memory, 8 * sizeof(double)), cudaSuccess);
    std::shared_ptr<void> owner(memory, [&freed](void* p) {
        cudaFree(p);
        freed = true;
    });
    {
        auto view = loom::Array<double>::view(cuda, 8, memory, owner);
        owner.reset();
        view.fill(1.5);
        EXPECT_EQ(view.to_host(), std::vector<double>(8, 1.5));
        EXPECT_FALSE(freed);
    }
    EXPECT_TRUE(freed);
#endif
}

}  // namespace
