// The vectors of a distributed system: each rank holds its rows of every vector as a Dense
// (rows in the partition's local order), updates are local, and a reduction's partial
// results are completed by ONE all-reduce (sum) per finish_reductions call. Handed to the
// solvers through distributed::Matrix (HasVectorSpace), so every Krylov solver runs unchanged.
#pragma once

#include <memory>

#include "loom/distributed/communicator.hpp"
#include "loom/distributed/partition.hpp"
#include "loom/solver/vector_space.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::distributed {

namespace detail {
template <typename T>
class PinnedBuffer;
}

/// Time spent in the all-reduces of a space, for benchmarks.
struct ReductionStats {
    size_type count = 0;
    double seconds = 0;
};

template <typename V>
class VectorSpace final : public solver::VectorSpace<V> {
public:
    using Vector = matrix::Dense<V>;

    /// This rank's rows of `partition` on exec. BadInput on every rank when the partition
    /// has not one part per rank of comm.
    VectorSpace(std::shared_ptr<const Executor> exec, Communicator comm, Partition partition);

    const Communicator& communicator() const noexcept { return comm_; }
    const Partition& partition() const noexcept { return partition_; }

    /// Sums partials over the ranks: one MPI_Allreduce (staged through the host on a device
    /// executor: a few scalars).
    void finish_reductions(Vector& partials) const override;
    size_type global_rows() const override { return partition_.global_rows(); }
    /// The same pseudo-random vector as on one process (a function of seed and the global
    /// row), whatever the partition: results do not depend on the number of ranks.
    void fill_random(Vector& x, std::uint64_t seed) const override;

    /// This rank's rows of `global` (global_rows x k, the same on every rank, any executor).
    Vector local_part(const Vector& global) const;
    /// The whole vector (global_rows x k, host memory) on `root`, an empty one elsewhere,
    /// from every rank's `local` rows. Collective.
    Vector gather(const Vector& local, int root = 0) const;

    ReductionStats reduction_stats() const noexcept { return *stats_; }
    void reset_reduction_stats() const noexcept { *stats_ = {}; }

private:
    Communicator comm_;
    Partition partition_;
    std::vector<size_type> global_rows_;  ///< this rank's rows, in local order
    std::shared_ptr<ReductionStats> stats_ = std::make_shared<ReductionStats>();
    /// Host memory of the partials on a device executor (pinned with CUDA).
    std::shared_ptr<detail::PinnedBuffer<V>> scratch_;
};

}  // namespace loom::distributed

LOOM_PUBLIC_END
