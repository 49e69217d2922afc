#include "loom/distributed/vector_space.hpp"

#include <chrono>

#include "base/instantiate.hpp"
#include "distributed/halo/pinned.hpp"
#include "loom/base/error.hpp"

namespace loom::distributed {
namespace {

double now_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// The host copy of x (x itself where it is host memory).
template <typename V>
matrix::Dense<V> on_host(const matrix::Dense<V>& x)
{
    return matrix::Dense<V>(loom::detail::host_executor(), x);
}

}  // namespace

template <typename V>
VectorSpace<V>::VectorSpace(std::shared_ptr<const Executor> exec, Communicator comm,
                            Partition partition)
    : solver::VectorSpace<V>(std::move(exec),
                             partition.parts() == comm.size() ? partition.local_rows(comm.rank())
                                                              : 0),
      comm_(comm),
      partition_(std::move(partition)),
      scratch_(std::make_shared<detail::PinnedBuffer<V>>())
{
    comm_.agree_on("loom::distributed::VectorSpace",
                   partition_.parts() == comm_.size()
                       ? std::string()
                       : "a partition of " + std::to_string(partition_.parts()) +
                             " parts on " + std::to_string(comm_.size()) + " ranks");
    global_rows_ = partition_.rows_of(comm_.rank());
}

template <typename V>
void VectorSpace<V>::finish_reductions(Vector& partials) const
{
    const double start = now_seconds();
    const int count = static_cast<int>(partials.cols());
    if (partials.rows() != 1 || (count > 1 && partials.stride() < partials.cols())) {
        throw BadInput("loom::distributed::VectorSpace::finish_reductions",
                       "partials must be one row");
    }
    if (this->executor()->is_host()) {
        MPI_Allreduce(MPI_IN_PLACE, partials.data(), count, mpi_type<V>(), MPI_SUM, comm_.get());
    } else {
        // Through pinned host memory: one synchronizing copy out, the sums queued back.
        if (scratch_->size() != static_cast<std::size_t>(count)) {
            this->executor()->synchronize();  // a queued copy may still read the old buffer
            scratch_->resize(static_cast<std::size_t>(count));
        }
        loom::detail::host_executor()->copy_from(*this->executor(), sizeof(V) * count,
                                                 partials.data(), scratch_->data());
        MPI_Allreduce(MPI_IN_PLACE, scratch_->data(), count, mpi_type<V>(), MPI_SUM, comm_.get());
        detail::copy_to_executor_async(*this->executor(), scratch_->data(), partials.data(),
                                       sizeof(V) * count);
    }
    stats_->count += 1;
    stats_->seconds += now_seconds() - start;
}

template <typename V>
void VectorSpace<V>::fill_random(Vector& x, std::uint64_t seed) const
{
    // The one-process vector up to this rank's last row, of which it keeps its rows: the
    // same vector for any partition.
    const auto host = loom::detail::host_executor();
    const solver::VectorSpace<V> prefix(host, global_rows_.empty() ? 0 : global_rows_.back() + 1);
    auto all = prefix.create(x.cols());
    prefix.fill_random(all, seed);
    Vector mine(host, x.size());
    for (std::size_t i = 0; i < global_rows_.size(); ++i) {
        for (size_type j = 0; j < x.cols(); ++j) mine.at(i, j) = all.at(global_rows_[i], j);
    }
    this->copy(Vector(this->executor(), mine), x);
}

template <typename V>
auto VectorSpace<V>::local_part(const Vector& global) const -> Vector
{
    if (global.rows() != partition_.global_rows()) {
        throw DimensionMismatch("loom::distributed::VectorSpace::local_part",
                                "the global vector has " + std::to_string(global.rows()) +
                                    " rows; the partition " +
                                    std::to_string(partition_.global_rows()));
    }
    const auto host = on_host(global);
    std::vector<V> values;
    values.reserve(static_cast<std::size_t>(this->rows() * global.cols()));
    for (const auto row : global_rows_) {
        for (size_type j = 0; j < global.cols(); ++j) values.push_back(host.at(row, j));
    }
    return Vector::from_host(this->executor(), {this->rows(), global.cols()}, values);
}

template <typename V>
auto VectorSpace<V>::gather(const Vector& local, int root) const -> Vector
{
    const auto host_exec = loom::detail::host_executor();
    const auto cols = local.cols();
    const auto host = on_host(local);
    std::vector<V> packed;
    packed.reserve(static_cast<std::size_t>(host.rows() * cols));
    for (size_type i = 0; i < host.rows(); ++i) {
        for (size_type j = 0; j < cols; ++j) packed.push_back(host.at(i, j));
    }
    const bool is_root = comm_.rank() == root;
    std::vector<int> counts(comm_.size()), offsets(comm_.size() + 1, 0);
    for (int p = 0; p < comm_.size(); ++p) {
        counts[p] = static_cast<int>(partition_.local_rows(p) * cols);
        offsets[p + 1] = offsets[p] + counts[p];
    }
    std::vector<V> received(is_root ? static_cast<std::size_t>(offsets.back()) : 0);
    MPI_Gatherv(packed.data(), static_cast<int>(packed.size()), mpi_type<V>(), received.data(),
                counts.data(), offsets.data(), mpi_type<V>(), root, comm_.get());
    if (!is_root) return Vector(host_exec, {0, cols});
    // Received part by part, each in its local order: put every row at its global place.
    Vector global(host_exec, {partition_.global_rows(), cols});
    for (int p = 0; p < comm_.size(); ++p) {
        const auto rows = partition_.rows_of(p);
        for (std::size_t t = 0; t < rows.size(); ++t) {
            for (size_type j = 0; j < cols; ++j) {
                global.at(rows[t], j) = received[offsets[p] + t * cols + j];
            }
        }
    }
    return global;
}

#define LOOM_INSTANTIATE_DISTRIBUTED_SPACE(V) template class VectorSpace<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_DISTRIBUTED_SPACE)

}  // namespace loom::distributed
