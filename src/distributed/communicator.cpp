#include "loom/distributed/communicator.hpp"

#include <exception>
#include <vector>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "loom/base/error.hpp"

namespace loom::distributed {

Communicator::Communicator(MPI_Comm comm) : comm_(comm)
{
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
}

void Communicator::agree(const std::string& where, const std::function<void()>& check) const
{
    std::string error;
    try {
        check();
    } catch (const std::exception& e) {
        error = e.what();
        if (error.empty()) error = "failed";
    }
    agree_on(where, error);
}

void Communicator::agree_on(const std::string& where, const std::string& local_error) const
{
    // The lowest failing rank speaks for all: its message is broadcast, so every rank raises
    // the same error.
    const int mine = local_error.empty() ? size_ : rank_;
    int first = size_;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_);
    if (first == size_) return;
    long long length = static_cast<long long>(local_error.size());
    MPI_Bcast(&length, 1, MPI_LONG_LONG, first, comm_);
    std::string message = rank_ == first ? local_error : std::string(length, ' ');
    MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, comm_);
    throw BadInput(where, "on rank " + std::to_string(first) + ": " + message);
}

std::int64_t Communicator::sum(std::int64_t value) const
{
    std::int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_SUM, comm_);
    return out;
}

std::int64_t Communicator::max(std::int64_t value) const
{
    std::int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, comm_);
    return out;
}

std::int64_t Communicator::min(std::int64_t value) const
{
    std::int64_t out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MIN, comm_);
    return out;
}

bool mpi_is_cuda_aware() noexcept
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    // Built against an MPI that cannot say (or says no at compile time): stage.
    return false;
#endif
}

}  // namespace loom::distributed
