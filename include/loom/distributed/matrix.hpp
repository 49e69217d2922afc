// distributed::Matrix<V, I>: a square sparse matrix whose rows are spread over the ranks of a
// communicator by a Partition. Each rank keeps its rows as
//   - the local block: the columns it owns, renumbered locally (n_local x n_local), and
//   - the non-local block: the other columns, compressed to the halo, the vector entries it
//     receives from their owners (n_local x n_halo, halo ordered by owner then local index).
//
//     auto A = distributed::Matrix<double>::read_mtx(exec, comm, "A.mtx");
//     auto b = A->vector_space()->create(1);                     // this rank's rows
//     auto cg = solver::Cg<double>::build().with_criteria(...).on(exec)->generate(A);
//     cg->apply(b, x);                                           // every rank, collectively
//
// As a LinOp it is the whole operator restricted to this rank's rows: size() is n_local x
// n_local, apply() exchanges the halo (Irecv/Isend posted first, the local block computed
// while messages travel, then the non-local block added); the exchange pattern is computed
// once at assembly. The blocks are multiplied in the format MatrixOptions names (csr, coo, ell,
// sellp). As a matrix::Csr it IS its local block (whatever that format), so that any Csr-based
// preconditioner factory (Jacobi, block Jacobi, ILU/IC, ISAI, Gauss-Seidel, AMG) generated on
// it builds on this rank's block: the block-Jacobi / non-overlapping additive Schwarz form of
// that preconditioner (scalar Jacobi is exactly the distributed Jacobi). The sparse:: kernels
// called on it directly see the local block only.
//
// Every function here is collective over the communicator; a check failing on one rank
// raises the same error on every rank (Communicator::agree), never a hang.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loom/base/linop_factory.hpp"
#include "loom/distributed/communicator.hpp"
#include "loom/distributed/matrix_options.hpp"
#include "loom/distributed/partition.hpp"
#include "loom/distributed/vector_space.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/solver/operators.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::distributed {

/// Global (row, column, value) entries, any order, duplicates summed.
template <typename V>
struct Triplets {
    std::vector<size_type> rows;
    std::vector<size_type> cols;
    std::vector<V> values;
};

/// Where the SpMV time goes, accumulated over applies (bench solve reports it).
struct HaloStats {
    size_type applies = 0;
    double seconds = 0;       ///< whole applies
    double wait_seconds = 0;  ///< waiting for halo messages after the local block: exposed
};

template <typename V, typename I = int32>
class Matrix final : public matrix::Csr<V, I>,
                     public solver::HasVectorSpace<V>,
                     public ConjTransposable<V> {
public:
    /// Assembles from global triplets given on any rank (each entry is sent to its row's
    /// owner, MPI_Alltoallv). Every rank passes the same global_size, equal to the partition's
    /// rows, and the partition has one part per rank; an entry outside the matrix raises.
    static std::shared_ptr<Matrix> assemble(std::shared_ptr<const Executor> exec,
                                            Communicator comm, Partition partition,
                                            size_type global_size, const Triplets<V>& entries,
                                            const MatrixOptions& options = {});
    /// Reads one Matrix Market file on every rank, each keeping its rows (contiguous blocks
    /// unless a partition is given).
    static std::shared_ptr<Matrix> read_mtx(std::shared_ptr<const Executor> exec,
                                            Communicator comm, const std::string& path,
                                            std::optional<Partition> partition = std::nullopt,
                                            const MatrixOptions& options = {});
    /// From one matrix held whole on every rank (tests, small problems): each keeps its rows.
    static std::shared_ptr<Matrix> from_global(std::shared_ptr<const Executor> exec,
                                               Communicator comm, Partition partition,
                                               const matrix::Csr<V, I>& global,
                                               const MatrixOptions& options = {});

    Matrix(const Matrix&) = delete;
    Matrix& operator=(const Matrix&) = delete;

    /// The same matrix with its rows moved to their owners under `partition` (same options).
    std::shared_ptr<Matrix> redistributed(Partition partition) const;
    /// The same rows with other options (another block format; collective: the exchange
    /// pattern is computed anew).
    std::shared_ptr<Matrix> with_options(const MatrixOptions& options) const;

    const Communicator& communicator() const noexcept { return comm_; }
    const Partition& partition() const noexcept { return partition_; }
    size_type global_size() const noexcept { return partition_.global_rows(); }
    const MatrixOptions& options() const noexcept { return options_; }
    /// The local block as a plain Csr (sharing this matrix's arrays).
    std::shared_ptr<const matrix::Csr<V, I>> local_block() const { return local_view_; }
    const matrix::Csr<V, I>& nonlocal_block() const noexcept { return *nonlocal_; }
    /// The blocks as the SpMV multiplies them: a matrix::Csr, Coo, Ell or Sellp<V, I> after
    /// options().format (the blocks above themselves for csr).
    std::shared_ptr<const LinOp<V>> local_spmv_block() const { return local_spmv_; }
    std::shared_ptr<const LinOp<V>> nonlocal_spmv_block() const { return nonlocal_spmv_; }
    /// Vector entries received per apply (per column) / ranks exchanged with.
    size_type halo_size() const noexcept { return nonlocal_->cols(); }
    int neighbours() const noexcept;
    /// Stored entries over all ranks.
    size_type global_nnz() const;
    /// This rank's entries as global triplets.
    Triplets<V> local_entries() const;

    std::shared_ptr<const solver::VectorSpace<V>> vector_space() const override { return space_; }
    /// A^H, distributed like A (assembled from the transposed entries: BiCG asks for it once).
    std::shared_ptr<const LinOp<V>> conj_transpose() const override;
    const VectorSpace<V>& space() const noexcept { return *space_; }

    /// How the halo travels: in host memory, device buffers handed to CUDA-aware MPI, or
    /// staged through host buffers (device memory without CUDA-aware MPI, or asked for).
    std::string transport() const;
    HaloStats halo_stats() const noexcept { return stats_; }
    void reset_halo_stats() const noexcept { stats_ = {}; }
    /// Seconds of one halo exchange of `columns` vectors alone (posted and waited, nothing
    /// computed meanwhile): the median of `repetitions`. Collective.
    double time_exchange(size_type columns, int repetitions) const;

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override;
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                    matrix::Dense<V>& x) const override;

private:
    struct Pattern;
    /// This rank's blocks as Csr and as the SpMV multiplies them (the same objects for csr).
    struct Blocks {
        std::shared_ptr<const matrix::Csr<V, I>> local;
        std::shared_ptr<const matrix::Csr<V, I>> nonlocal;
        std::shared_ptr<const LinOp<V>> local_spmv;
        std::shared_ptr<const LinOp<V>> nonlocal_spmv;
    };
    Matrix(std::shared_ptr<const Executor> exec, Communicator comm, Partition partition,
           Blocks blocks, std::shared_ptr<Pattern> pattern, const MatrixOptions& options);

    /// Starts the exchange of x's halo rows (gathered into the send buffer).
    void post_exchange(const matrix::Dense<V>& x) const;
    /// Waits for it; the halo rows are then in halo_.
    void finish_exchange() const;

    Communicator comm_;
    Partition partition_;
    MatrixOptions options_;
    std::shared_ptr<const matrix::Csr<V, I>> nonlocal_;
    std::shared_ptr<const matrix::Csr<V, I>> local_view_;
    std::shared_ptr<const LinOp<V>> local_spmv_;
    std::shared_ptr<const LinOp<V>> nonlocal_spmv_;
    std::shared_ptr<Pattern> pattern_;
    std::shared_ptr<const VectorSpace<V>> space_;
    mutable HaloStats stats_;
};

/// Block Jacobi with any local operator: generates `local` (a preconditioner or solver
/// factory) on each rank's local block of a distributed::Matrix; nothing is communicated when
/// it is applied. BadInput for a system that is not a distributed::Matrix<V, I>.
template <typename V, typename I = int32>
LOOM_EXPORT std::shared_ptr<const LinOpFactory<V>> block_jacobi(
    std::shared_ptr<const LinOpFactory<V>> local);

/// A METIS k-way partition of A's graph (its pattern made symmetric), one part per rank;
/// gathered on rank 0, partitioned there, broadcast. NotCompiled when Loom was built without
/// METIS. Collective.
template <typename V, typename I = int32>
LOOM_EXPORT Partition metis_partition(const Matrix<V, I>& A);

}  // namespace loom::distributed

LOOM_PUBLIC_END
