// Executors say where data lives and where kernels run: the sequential reference
// backend (the oracle), OpenMP threads on the host, or one CUDA device with its own stream.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "loom/base/names.hpp"
#include "loom/base/types.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

enum class ExecKind { reference, omp, cuda };

LOOM_NAME_TABLE(ExecKind, exec_kind_names, "executor",
    {ExecKind::reference, "reference", "sequential host loops, the oracle", {"ref"}},
    {ExecKind::omp, "omp", "OpenMP threads on the host"},
    {ExecKind::cuda, "cuda", "a CUDA device (cuda:N for device N)"},
);

class ReferenceExecutor;
class OmpExecutor;
class CudaExecutor;

class Executor : public std::enable_shared_from_this<Executor> {
public:
    virtual ~Executor() = default;
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    virtual ExecKind kind() const noexcept = 0;
    /// "reference", "omp" or "cuda:0".
    virtual std::string name() const = 0;
    /// Whether its memory is plain host memory (reference and omp share it).
    bool is_host() const noexcept { return kind() != ExecKind::cuda; }

    /// Raw memory on this executor; AllocationError when there is none left.
    virtual void* alloc_bytes(std::size_t bytes) const = 0;
    virtual void free_bytes(void* ptr) const noexcept = 0;
    /// Copies bytes from memory owned by `src_exec` into memory owned by this executor.
    void copy_from(const Executor& src_exec, std::size_t bytes, const void* src,
                   void* dst) const;
    /// Waits until all work queued on this executor has finished.
    virtual void synchronize() const = 0;

    /// Double dispatch: calls `visitor` with the concrete executor type. The visitor must
    /// accept `const ReferenceExecutor&`, `const OmpExecutor&` and `const CudaExecutor&`.
    template <typename Visitor>
    decltype(auto) run(Visitor&& visitor) const;

    bool same_memory_as(const Executor& other) const noexcept;

protected:
    Executor() = default;
};

/// Sequential host execution: simple, obviously-correct kernels used as the test oracle.
class ReferenceExecutor final : public Executor {
public:
    static std::shared_ptr<const ReferenceExecutor> create();
    ExecKind kind() const noexcept override { return ExecKind::reference; }
    std::string name() const override { return "reference"; }
    void* alloc_bytes(std::size_t bytes) const override;
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override {}

private:
    ReferenceExecutor() = default;
};

/// Multicore host execution through OpenMP.
class OmpExecutor final : public Executor {
public:
    /// NotCompiled when Loom was built without OpenMP. num_threads 0 means the OpenMP default.
    static std::shared_ptr<const OmpExecutor> create(int num_threads = 0);
    static bool available() noexcept;
    ExecKind kind() const noexcept override { return ExecKind::omp; }
    std::string name() const override { return "omp"; }
    void* alloc_bytes(std::size_t bytes) const override;
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override {}
    int num_threads() const noexcept { return num_threads_; }

private:
    explicit OmpExecutor(int num_threads) : num_threads_(num_threads) {}
    int num_threads_;
};

/// One CUDA device and one stream, its own or the caller's; every kernel, copy, allocation and
/// library call (cuSPARSE, cuBLAS, cuSOLVER) on it is queued on that stream.
class CudaExecutor final : public Executor {
public:
    /// While alive, the calling thread's current CUDA device is `device` (the previous one is
    /// restored after). Executor::run opens one around every CUDA kernel call, so kernels and
    /// library handles always act on their executor's device.
    class [[nodiscard]] DeviceScope {
    public:
        explicit DeviceScope(int device);
        ~DeviceScope();
        DeviceScope(const DeviceScope&) = delete;
        DeviceScope& operator=(const DeviceScope&) = delete;

    private:
        int previous_ = 0;
        int device_ = 0;
    };

    /// NotCompiled without the CUDA backend, CudaError when the device does not exist.
    static std::shared_ptr<const CudaExecutor> create(int device_id = 0);
    /// An executor queuing its work on the caller's `stream` (a cudaStream_t of `device_id`;
    /// null is the legacy default stream), so that Loom's work is ordered with the caller's
    /// own. The stream stays the caller's: the executor never destroys it, and it must outlive
    /// the executor and every array allocated on it (their memory is freed in stream order).
    /// BadInput when the stream is not one of that device's (where CUDA can tell).
    static std::shared_ptr<const CudaExecutor> create_on_stream(int device_id, void* stream);
    /// Number of usable CUDA devices (0 when not compiled or no driver/device).
    static int device_count() noexcept;
    static bool available() noexcept { return device_count() > 0; }
    ~CudaExecutor() override;

    ExecKind kind() const noexcept override { return ExecKind::cuda; }
    std::string name() const override;
    void* alloc_bytes(std::size_t bytes) const override;
    void free_bytes(void* ptr) const noexcept override;
    void synchronize() const override;

    int device_id() const noexcept { return device_id_; }
    /// The cudaStream_t all work is queued on.
    void* stream() const noexcept { return stream_; }
    /// Whether the executor created its stream (and destroys it), or was given the caller's.
    bool owns_stream() const noexcept { return owns_stream_; }
    int multiprocessor_count() const noexcept { return sm_count_; }
    std::size_t l2_cache_bytes() const noexcept { return l2_bytes_; }
    /// Library handles bound to the stream, created on first use.
    void* cusparse_handle() const;
    void* cublas_handle() const;

private:
    /// With owns_stream, creates a stream of its own (`stream` is ignored).
    CudaExecutor(int device_id, void* stream, bool owns_stream);
    int device_id_;
    void* stream_ = nullptr;
    bool owns_stream_ = true;
    int sm_count_ = 0;
    std::size_t l2_bytes_ = 0;
    mutable void* cusparse_ = nullptr;
    mutable void* cublas_ = nullptr;
};

template <typename Visitor>
decltype(auto) Executor::run(Visitor&& visitor) const
{
    switch (kind()) {
    case ExecKind::reference:
        return visitor(static_cast<const ReferenceExecutor&>(*this));
    case ExecKind::omp:
        return visitor(static_cast<const OmpExecutor&>(*this));
    default: {
        const auto& cuda = static_cast<const CudaExecutor&>(*this);
        const CudaExecutor::DeviceScope scope(cuda.device_id());
        return visitor(cuda);
    }
    }
}

/// What an executor name says: "reference", "omp", "cuda" (device 0) or "cuda:N".
struct ExecutorName {
    ExecKind kind;
    int device = 0;
};
/// BadInput listing the accepted names for another text.
ExecutorName parse_executor_name(const std::string& name);

/// The executor parse_executor_name(name) describes (used by the command line).
std::shared_ptr<const Executor> make_executor(const std::string& name);

}  // namespace loom

LOOM_PUBLIC_END
