// Communicator: the MPI communicator a distributed object lives on, and the one rule that keeps
// a failure on one rank from hanging the others: checks that precede a collective step are
// agreed on (agree), so that every rank raises the same clear error or none does.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <string>

#include <mpi.h>

#include "loom/base/types.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::distributed {

/// A non-owning handle of an MPI communicator (MPI must be initialized by the caller).
class Communicator {
public:
    explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);

    MPI_Comm get() const noexcept { return comm_; }
    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }

    /// Runs `check` on this rank, then agrees with every rank: when it raised a loom::Error
    /// (or any std::exception) on some rank, every rank raises BadInput naming `where`, the
    /// lowest failing rank and its message. Collective.
    void agree(const std::string& where, const std::function<void()>& check) const;
    /// The same with this rank's verdict given: `local_error` empty when it is fine.
    void agree_on(const std::string& where, const std::string& local_error) const;

    /// The sum / max over the ranks (collective).
    std::int64_t sum(std::int64_t value) const;
    std::int64_t max(std::int64_t value) const;
    std::int64_t min(std::int64_t value) const;

private:
    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
};

/// The MPI datatype of T (the value and index types Loom instantiates).
template <typename T>
MPI_Datatype mpi_type() noexcept
{
    if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
    if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
    if constexpr (std::is_same_v<T, std::complex<float>>) return MPI_C_FLOAT_COMPLEX;
    if constexpr (std::is_same_v<T, std::complex<double>>) return MPI_C_DOUBLE_COMPLEX;
    if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
    if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
    if constexpr (std::is_same_v<T, int>) return MPI_INT;
}

/// Whether the MPI library takes CUDA device pointers (asked at run time where OpenMPI says;
/// false when it cannot tell).
bool mpi_is_cuda_aware() noexcept;

}  // namespace loom::distributed

LOOM_PUBLIC_END
