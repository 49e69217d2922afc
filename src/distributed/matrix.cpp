#include "loom/distributed/matrix.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <sstream>
#include <numeric>
#include <tuple>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "distributed/halo/kernels.hpp"
#include "distributed/halo/pinned.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/matrix/io.hpp"

namespace loom::distributed {
namespace {

constexpr const char* where_assemble = "loom::distributed::Matrix::assemble";
constexpr int halo_tag = 2001;

double now_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Entries of one block in local numbering: (row, column, value).
template <typename V>
using Entries = std::vector<std::tuple<size_type, size_type, V>>;

/// A rows x cols Csr on exec from entries in any order, duplicates summed, columns sorted.
template <typename V, typename I>
matrix::Csr<V, I> to_csr(const std::shared_ptr<const Executor>& exec, size_type rows,
                         size_type cols, Entries<V> entries)
{
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    std::vector<I> row_ptrs(static_cast<std::size_t>(rows + 1), 0);
    std::vector<I> col_idxs;
    std::vector<V> values;
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const auto& [row, col, value] = entries[k];
        if (k > 0 && std::get<0>(entries[k - 1]) == row && std::get<1>(entries[k - 1]) == col) {
            values.back() += value;
            continue;
        }
        ++row_ptrs[row + 1];
        col_idxs.push_back(static_cast<I>(col));
        values.push_back(value);
    }
    std::partial_sum(row_ptrs.begin(), row_ptrs.end(), row_ptrs.begin());
    return matrix::Csr<V, I>(exec, {rows, cols}, Array<I>(exec, row_ptrs),
                             Array<I>(exec, col_idxs), Array<V>(exec, values));
}

/// MPI_Alltoallv of `send` grouped by destination (send_counts[p] items for rank p); the
/// items received, grouped by source.
template <typename T>
std::vector<T> exchange(const Communicator& comm, const std::vector<T>& send,
                        const std::vector<int>& send_counts, const std::vector<int>& recv_counts)
{
    const auto p = static_cast<std::size_t>(comm.size());
    std::vector<int> send_offsets(p, 0), recv_offsets(p, 0);
    std::exclusive_scan(send_counts.begin(), send_counts.end(), send_offsets.begin(), 0);
    std::exclusive_scan(recv_counts.begin(), recv_counts.end(), recv_offsets.begin(), 0);
    std::vector<T> received(static_cast<std::size_t>(recv_offsets.back() + recv_counts.back()));
    MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), mpi_type<T>(),
                  received.data(), recv_counts.data(), recv_offsets.data(), mpi_type<T>(),
                  comm.get());
    return received;
}

/// How many items each rank receives, from how many each sends it.
std::vector<int> counts_received(const Communicator& comm, const std::vector<int>& send_counts)
{
    std::vector<int> recv_counts(send_counts.size());
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm.get());
    return recv_counts;
}

template <typename T>
void check_fits(size_type value, const char* what)
{
    if (value > static_cast<size_type>(std::numeric_limits<T>::max())) {
        throw NotSupported(where_assemble, std::string(what) + " " + std::to_string(value) +
                                               " does not fit the index type");
    }
}

/// Where line containing byte `pos` - 1 ends: `pos` moved to the start of a line (kept at
/// `first`, the first byte of the entries, and at the end of the file).
std::streamoff next_line_start(std::ifstream& in, std::streamoff pos, std::streamoff first,
                               std::streamoff size)
{
    if (pos <= first || pos >= size) return std::clamp(pos, first, size);
    in.clear();
    in.seekg(pos - 1);
    std::string rest;
    std::getline(in, rest);
    return in.eof() ? size : static_cast<std::streamoff>(in.tellg());
}

/// This rank's share of a coordinate file's entries: bytes [begin, end) of the part after
/// the size line, moved to whole lines, read by Loom's Matrix Market reader as a file of
/// those lines alone (so every field and symmetry reads as without MPI). Line numbers in its
/// errors count from the share's first line.
template <typename V, typename I>
matrix::Coo<V, I> read_share(const std::string& path, const matrix::MtxHeader& header,
                             const Communicator& comm, size_type& entries)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("loom::distributed::Matrix::read_mtx", "cannot open '" + path + "'");
    std::string line;
    while (std::getline(in, line)) {
        const auto text = line.find_first_not_of(" \t\r");
        if (text == std::string::npos || line[text] == '%') continue;
        break;  // the size line
    }
    const std::streamoff first = in.eof() ? 0 : static_cast<std::streamoff>(in.tellg());
    in.clear();
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const std::streamoff share = (size - first) / comm.size();
    const auto begin = next_line_start(in, first + share * comm.rank(), first, size);
    const auto end = comm.rank() + 1 == comm.size()
                         ? size
                         : next_line_start(in, first + share * (comm.rank() + 1), first, size);
    std::string lines(static_cast<std::size_t>(std::max<std::streamoff>(end - begin, 0)), '\0');
    in.clear();
    in.seekg(begin);
    in.read(lines.data(), static_cast<std::streamsize>(lines.size()));
    entries = 0;
    std::istringstream scan(lines);
    while (std::getline(scan, line)) {
        const auto text = line.find_first_not_of(" \t\r");
        if (text != std::string::npos && line[text] != '%') ++entries;
    }
    std::stringstream file;
    file << "%%MatrixMarket matrix coordinate " << matrix::to_string(header.field) << ' '
         << matrix::to_string(header.symmetry) << '\n'
         << header.rows << ' ' << header.cols << ' ' << entries << '\n'
         << lines;
    return matrix::read_coo<V, I>(loom::detail::host_executor(), file);
}

/// `block` as the SpMV multiplies it in `format`: converted on its executor, or itself (csr).
template <typename V, typename I>
std::shared_ptr<const LinOp<V>> in_format(std::shared_ptr<const matrix::Csr<V, I>> block,
                                          BlockFormat format)
{
    switch (format) {
    case BlockFormat::coo: return std::make_shared<const matrix::Coo<V, I>>(matrix::to_coo(*block));
    case BlockFormat::ell: return std::make_shared<const matrix::Ell<V, I>>(matrix::to_ell(*block));
    case BlockFormat::sellp:
        return std::make_shared<const matrix::Sellp<V, I>>(matrix::to_sellp(*block));
    case BlockFormat::csr: break;
    }
    return block;
}

}  // namespace

/// The exchange pattern, computed once at assembly, and the buffers it reuses.
template <typename V, typename I>
struct Matrix<V, I>::Pattern {
    std::vector<int> send_ranks;
    std::vector<size_type> send_offsets;  ///< rows sent to send_ranks[q]: [q], [q + 1]
    Array<I> send_rows;                   ///< local rows gathered for sending, on the executor
    std::vector<int> recv_ranks;
    std::vector<size_type> recv_offsets;  ///< halo rows from recv_ranks[q]
    std::vector<size_type> halo_globals;  ///< global column of each halo position
    std::vector<size_type> global_rows;   ///< global row of each local row
    /// Via host buffers: device memory and MPI not CUDA-aware, or MatrixOptions::stage_halo.
    bool staged = false;

    // buffers, sized for the columns of the last apply
    matrix::Dense<V> send_buffer;
    matrix::Dense<V> halo;
    detail::PinnedBuffer<V> send_host;
    detail::PinnedBuffer<V> recv_host;
    std::vector<MPI_Request> requests;
};

template <typename V, typename I>
Matrix<V, I>::Matrix(std::shared_ptr<const Executor> exec, Communicator comm, Partition partition,
                     Blocks blocks, std::shared_ptr<Pattern> pattern,
                     const MatrixOptions& options)
    : matrix::Csr<V, I>(),
      comm_(comm),
      partition_(std::move(partition)),
      options_(options),
      nonlocal_(std::move(blocks.nonlocal)),
      local_view_(std::move(blocks.local)),
      local_spmv_(std::move(blocks.local_spmv)),
      nonlocal_spmv_(std::move(blocks.nonlocal_spmv)),
      pattern_(std::move(pattern)),
      space_(std::make_shared<const VectorSpace<V>>(exec, comm_, partition_))
{
    // The Csr this matrix is: views of the local block's arrays, which they keep alive.
    auto& block = const_cast<matrix::Csr<V, I>&>(*local_view_);
    const std::shared_ptr<const void> owner = local_view_;
    matrix::Csr<V, I>::operator=(matrix::Csr<V, I>(
        exec, local_view_->size(),
        Array<I>::view(exec, block.row_ptrs().size(), block.row_ptrs().data(), owner),
        Array<I>::view(exec, block.col_idxs().size(), block.col_idxs().data(), owner),
        Array<V>::view(exec, block.values().size(), block.values().data(), owner)));
}

template <typename V, typename I>
auto Matrix<V, I>::assemble(std::shared_ptr<const Executor> exec, Communicator comm,
                            Partition partition, size_type global_size,
                            const Triplets<V>& entries, const MatrixOptions& options)
    -> std::shared_ptr<Matrix>
{
    const auto P = comm.size();
    const auto me = comm.rank();
    comm.agree(where_assemble, [&] {
        if (!exec) throw BadInput(where_assemble, "the executor is null");
        if (partition.parts() != P) {
            throw BadInput(where_assemble, "a partition of " + std::to_string(partition.parts()) +
                                               " parts for " + std::to_string(P) + " ranks");
        }
        if (partition.global_rows() != global_size) {
            throw DimensionMismatch(where_assemble,
                                    "the partition has " +
                                        std::to_string(partition.global_rows()) +
                                        " rows, the matrix " + std::to_string(global_size));
        }
        if (entries.cols.size() != entries.rows.size() ||
            entries.values.size() != entries.rows.size()) {
            throw BadInput(where_assemble, "rows, cols and values differ in length");
        }
        for (std::size_t k = 0; k < entries.rows.size(); ++k) {
            const auto row = entries.rows[k];
            const auto col = entries.cols[k];
            if (row < 0 || row >= global_size || col < 0 || col >= global_size) {
                throw OutOfRange(where_assemble,
                                 "entry " + std::to_string(k) + " (" + std::to_string(row) +
                                     ", " + std::to_string(col) + "): index",
                                 row < 0 || row >= global_size ? row : col, global_size);
            }
        }
        check_fits<I>(partition.local_rows(me), "the local size");
    });
    const auto smallest = comm.min(global_size);
    const auto largest = comm.max(global_size);
    if (smallest != largest) {
        throw DimensionMismatch(where_assemble, "the global size differs across ranks: from " +
                                                    std::to_string(smallest) + " to " +
                                                    std::to_string(largest));
    }

    // Every entry to its row's owner.
    std::vector<int> send_counts(P, 0);
    std::vector<int> owners(entries.rows.size());
    for (std::size_t k = 0; k < entries.rows.size(); ++k) {
        owners[k] = partition.owner(entries.rows[k]);
        ++send_counts[owners[k]];
    }
    std::vector<std::size_t> order(entries.rows.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return owners[a] < owners[b]; });
    Triplets<V> outgoing;
    for (const auto k : order) {
        outgoing.rows.push_back(entries.rows[k]);
        outgoing.cols.push_back(entries.cols[k]);
        outgoing.values.push_back(entries.values[k]);
    }
    const auto recv_counts = counts_received(comm, send_counts);
    const auto rows = exchange(comm, outgoing.rows, send_counts, recv_counts);
    const auto cols = exchange(comm, outgoing.cols, send_counts, recv_counts);
    const auto values = exchange(comm, outgoing.values, send_counts, recv_counts);

    // Split by column owner: the local block, and the halo ordered by (owner, local index).
    const auto n_local = partition.local_rows(me);
    Entries<V> local;
    std::vector<std::tuple<int, size_type, size_type>> halo;  // owner, local index, global
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto owner = partition.owner(cols[k]);
        if (owner == me) {
            local.emplace_back(partition.local_index(rows[k]), partition.local_index(cols[k]),
                               values[k]);
        } else {
            halo.emplace_back(owner, partition.local_index(cols[k]), cols[k]);
        }
    }
    std::sort(halo.begin(), halo.end());
    halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
    auto pattern = std::make_shared<Pattern>();
    std::vector<std::pair<size_type, size_type>> halo_of_global;  // global column, position
    pattern->recv_offsets.push_back(0);
    for (std::size_t h = 0; h < halo.size(); ++h) {
        const auto [owner, index, global] = halo[h];
        if (h == 0 || std::get<0>(halo[h - 1]) != owner) {
            if (h > 0) pattern->recv_offsets.push_back(static_cast<size_type>(h));
            pattern->recv_ranks.push_back(owner);
        }
        pattern->halo_globals.push_back(global);
        halo_of_global.emplace_back(global, static_cast<size_type>(h));
    }
    pattern->recv_offsets.push_back(static_cast<size_type>(halo.size()));
    std::sort(halo_of_global.begin(), halo_of_global.end());
    Entries<V> nonlocal;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (partition.owner(cols[k]) == me) continue;
        const auto at = std::lower_bound(halo_of_global.begin(), halo_of_global.end(),
                                         std::pair<size_type, size_type>{cols[k], 0});
        nonlocal.emplace_back(partition.local_index(rows[k]), at->second, values[k]);
    }
    comm.agree(where_assemble, [&] { check_fits<I>(static_cast<size_type>(halo.size()),
                                                   "the halo size"); });

    // Tell every owner which of its rows this rank needs: they become its send lists.
    std::vector<int> request_counts(P, 0);
    std::vector<size_type> requests;
    for (const auto& [owner, index, global] : halo) {
        ++request_counts[owner];
        requests.push_back(index);
    }
    const auto asked_counts = counts_received(comm, request_counts);
    const auto asked = exchange(comm, requests, request_counts, asked_counts);
    std::vector<I> send_rows(asked.begin(), asked.end());
    pattern->send_offsets.push_back(0);
    for (int p = 0; p < P; ++p) {
        if (asked_counts[p] == 0) continue;
        pattern->send_ranks.push_back(p);
        pattern->send_offsets.push_back(pattern->send_offsets.back() + asked_counts[p]);
    }
    pattern->send_rows = Array<I>(exec, send_rows);
    pattern->global_rows = partition.rows_of(me);
    pattern->staged = options.stage_halo || (!exec->is_host() && !mpi_is_cuda_aware());

    // Agreed: a rank that cannot build its blocks (out of memory, an ELL too wide) must not
    // leave the others waiting in the collectives that follow.
    Blocks blocks;
    comm.agree(where_assemble, [&] {
        blocks.local = std::make_shared<const matrix::Csr<V, I>>(
            to_csr<V, I>(exec, n_local, n_local, std::move(local)));
        blocks.nonlocal = std::make_shared<const matrix::Csr<V, I>>(
            to_csr<V, I>(exec, n_local, static_cast<size_type>(halo.size()), std::move(nonlocal)));
        blocks.local_spmv = in_format(blocks.local, options.format);
        blocks.nonlocal_spmv = in_format(blocks.nonlocal, options.format);
    });
    return std::shared_ptr<Matrix>(new Matrix(exec, comm, std::move(partition), std::move(blocks),
                                              std::move(pattern), options));
}

template <typename V, typename I>
auto Matrix<V, I>::read_mtx(std::shared_ptr<const Executor> exec, Communicator comm,
                            const std::string& path, std::optional<Partition> partition,
                            const MatrixOptions& options) -> std::shared_ptr<Matrix>
{
    const auto where = "loom::distributed::Matrix::read_mtx";
    // Coordinate files: each rank parses its share of the lines, then the entries go to their
    // owners (assemble). Array files (dense) are read whole by every rank.
    matrix::MtxHeader header;
    matrix::Coo<V, I> coo;
    size_type lines = 0;
    comm.agree(where, [&] {
        header = matrix::read_mtx_header(path);
        if (header.rows != header.cols) {
            throw DimensionMismatch(where, "'" + path + "' is " + std::to_string(header.rows) +
                                               " x " + std::to_string(header.cols) +
                                               "; a distributed matrix is square");
        }
        coo = header.format == matrix::MtxFormat::coordinate
                  ? read_share<V, I>(path, header, comm, lines)
                  : matrix::read_coo<V, I>(loom::detail::host_executor(), path);
    });
    if (!partition) partition = Partition::contiguous(header.rows, comm.size());
    const bool whole = header.format != matrix::MtxFormat::coordinate;
    Triplets<V> mine;
    comm.agree(where, [&] {
        if (whole && partition->global_rows() != header.rows) return;  // assemble says so
        for (size_type k = 0; k < coo.nnz(); ++k) {
            if (whole && partition->owner(coo.row_idxs()[k]) != comm.rank()) continue;
            mine.rows.push_back(coo.row_idxs()[k]);
            mine.cols.push_back(coo.col_idxs()[k]);
            mine.values.push_back(coo.values()[k]);
        }
    });
    const auto entries = comm.sum(lines);
    comm.agree_on(where, whole || entries == header.entries
                             ? std::string()
                             : "'" + path + "' holds " + std::to_string(entries) +
                                   " entry lines, its size line says " +
                                   std::to_string(header.entries));
    return assemble(std::move(exec), comm, std::move(*partition), header.rows, mine, options);
}

template <typename V, typename I>
auto Matrix<V, I>::from_global(std::shared_ptr<const Executor> exec, Communicator comm,
                               Partition partition, const matrix::Csr<V, I>& global,
                               const MatrixOptions& options) -> std::shared_ptr<Matrix>
{
    const auto where = "loom::distributed::Matrix::from_global";
    const matrix::Csr<V, I> host(loom::detail::host_executor(), global);
    Triplets<V> mine;
    comm.agree(where, [&] {
        if (host.rows() != host.cols()) {
            throw DimensionMismatch(where, "the matrix is " + to_string(host.size()) +
                                               "; a distributed matrix is square");
        }
        if (partition.parts() != comm.size() || partition.global_rows() != host.rows()) {
            return;  // assemble says so
        }
        for (const auto row : partition.rows_of(comm.rank())) {
            for (auto k = host.row_ptrs()[row]; k < host.row_ptrs()[row + 1]; ++k) {
                mine.rows.push_back(row);
                mine.cols.push_back(host.col_idxs()[k]);
                mine.values.push_back(host.values()[k]);
            }
        }
    });
    return assemble(std::move(exec), comm, std::move(partition), host.rows(), mine, options);
}

template <typename V, typename I>
auto Matrix<V, I>::redistributed(Partition partition) const -> std::shared_ptr<Matrix>
{
    return assemble(this->executor(), comm_, std::move(partition), global_size(),
                    local_entries(), options_);
}

template <typename V, typename I>
auto Matrix<V, I>::with_options(const MatrixOptions& options) const -> std::shared_ptr<Matrix>
{
    return assemble(this->executor(), comm_, partition_, global_size(), local_entries(), options);
}

template <typename V, typename I>
Triplets<V> Matrix<V, I>::local_entries() const
{
    const auto host = loom::detail::host_executor();
    const matrix::Csr<V, I> local(host, *local_view_);
    const matrix::Csr<V, I> nonlocal(host, *nonlocal_);
    Triplets<V> out;
    const auto& rows = pattern_->global_rows;
    for (size_type i = 0; i < local.rows(); ++i) {
        for (auto k = local.row_ptrs()[i]; k < local.row_ptrs()[i + 1]; ++k) {
            out.rows.push_back(rows[i]);
            out.cols.push_back(rows[local.col_idxs()[k]]);
            out.values.push_back(local.values()[k]);
        }
        for (auto k = nonlocal.row_ptrs()[i]; k < nonlocal.row_ptrs()[i + 1]; ++k) {
            out.rows.push_back(rows[i]);
            out.cols.push_back(pattern_->halo_globals[nonlocal.col_idxs()[k]]);
            out.values.push_back(nonlocal.values()[k]);
        }
    }
    return out;
}

template <typename V, typename I>
std::shared_ptr<const LinOp<V>> Matrix<V, I>::conj_transpose() const
{
    auto entries = local_entries();
    std::swap(entries.rows, entries.cols);
    for (auto& value : entries.values) value = loom::conj(value);
    return assemble(this->executor(), comm_, partition_, global_size(), entries, options_);
}

template <typename V, typename I>
int Matrix<V, I>::neighbours() const noexcept
{
    auto ranks = pattern_->recv_ranks;
    ranks.insert(ranks.end(), pattern_->send_ranks.begin(), pattern_->send_ranks.end());
    std::sort(ranks.begin(), ranks.end());
    return static_cast<int>(std::unique(ranks.begin(), ranks.end()) - ranks.begin());
}

template <typename V, typename I>
size_type Matrix<V, I>::global_nnz() const
{
    return comm_.sum(local_view_->nnz() + nonlocal_->nnz());
}

template <typename V, typename I>
std::string Matrix<V, I>::transport() const
{
    const bool host = this->executor()->is_host();
    if (pattern_->staged) {
        return host ? "host buffers staged through separate host memory"
                    : "device buffers staged through host memory";
    }
    return host ? "host memory" : "device buffers handed to CUDA-aware MPI";
}

template <typename V, typename I>
void Matrix<V, I>::post_exchange(const matrix::Dense<V>& x) const
{
    auto& p = *pattern_;
    const auto& exec = this->executor();
    const auto k = x.cols();
    const auto sent = p.send_rows.size();
    const auto received = halo_size();
    if (p.send_buffer.rows() != sent || p.send_buffer.cols() != k) {
        exec->synchronize();  // a queued copy may still read the old buffers
        p.send_buffer = matrix::Dense<V>(exec, {sent, k});
        p.halo = matrix::Dense<V>(exec, {received, k});
        if (p.staged) {
            p.send_host.resize(static_cast<std::size_t>(sent * k));
            p.recv_host.resize(static_cast<std::size_t>(received * k));
        }
    }
    if (sent > 0) {
        LOOM_RUN_KERNEL("loom::distributed::Matrix::apply", *exec, gather_rows, x, p.send_rows,
                        p.send_buffer);
    }
    V* send_data = p.send_buffer.data();
    V* recv_data = p.halo.data();
    if (p.staged && sent > 0) {
        // Waits for the stream: also for the last apply's copy out of recv_host.
        loom::detail::host_executor()->copy_from(*exec, sizeof(V) * sent * k, send_data,
                                                 p.send_host.data());
    } else {
        exec->synchronize();  // the gathered rows are complete before MPI reads them
    }
    if (p.staged) {
        send_data = p.send_host.data();
        recv_data = p.recv_host.data();
    }
    p.requests.assign(p.recv_ranks.size() + p.send_ranks.size(), MPI_REQUEST_NULL);
    const auto type = mpi_type<V>();
    for (std::size_t q = 0; q < p.recv_ranks.size(); ++q) {
        const auto first = p.recv_offsets[q] * k;
        const auto count = static_cast<int>((p.recv_offsets[q + 1] - p.recv_offsets[q]) * k);
        MPI_Irecv(recv_data + first, count, type, p.recv_ranks[q], halo_tag, comm_.get(),
                  &p.requests[q]);
    }
    for (std::size_t q = 0; q < p.send_ranks.size(); ++q) {
        const auto first = p.send_offsets[q] * k;
        const auto count = static_cast<int>((p.send_offsets[q + 1] - p.send_offsets[q]) * k);
        MPI_Isend(send_data + first, count, type, p.send_ranks[q], halo_tag, comm_.get(),
                  &p.requests[p.recv_ranks.size() + q]);
    }
}

template <typename V, typename I>
void Matrix<V, I>::finish_exchange() const
{
    auto& p = *pattern_;
    MPI_Waitall(static_cast<int>(p.requests.size()), p.requests.data(), MPI_STATUSES_IGNORE);
    if (p.staged) {
        // Queued only: the non-local SpMV follows on the same stream.
        detail::copy_to_executor_async(*this->executor(), p.recv_host.data(), p.halo.data(),
                                       sizeof(V) * p.recv_host.size());
    }
}

template <typename V, typename I>
void Matrix<V, I>::apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    apply_impl(V{1}, b, V{0}, x);
}

template <typename V, typename I>
void Matrix<V, I>::apply_impl(V alpha, const matrix::Dense<V>& b, V beta,
                              matrix::Dense<V>& x) const
{
    const double start = now_seconds();
    post_exchange(b);
    local_spmv_->apply(alpha, b, beta, x);  // while the halo travels
    const double wait_start = now_seconds();
    finish_exchange();
    const double waited = now_seconds() - wait_start;
    if (halo_size() > 0) nonlocal_spmv_->apply(alpha, pattern_->halo, V{1}, x);
    stats_.applies += 1;
    stats_.wait_seconds += waited;
    stats_.seconds += now_seconds() - start;
}

template <typename V, typename I>
double Matrix<V, I>::time_exchange(size_type columns, int repetitions) const
{
    auto x = space_->create(columns);
    space_->fill(x, V{0});
    std::vector<double> times;
    for (int r = 0; r < std::max(repetitions, 1); ++r) {
        MPI_Barrier(comm_.get());
        const double start = now_seconds();
        post_exchange(x);
        finish_exchange();
        times.push_back(now_seconds() - start);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
}

namespace {

/// Generates a local operator on the local block of a distributed matrix.
template <typename V, typename I>
class BlockJacobiFactory final : public LinOpFactory<V> {
public:
    explicit BlockJacobiFactory(std::shared_ptr<const LinOpFactory<V>> local)
        : LinOpFactory<V>(local ? local->executor() : nullptr), local_(std::move(local))
    {}

protected:
    std::shared_ptr<LinOp<V>> generate_impl(std::shared_ptr<const LinOp<V>> system) const override
    {
        const auto A = std::dynamic_pointer_cast<const Matrix<V, I>>(system);
        if (!A) {
            throw BadInput("loom::distributed::block_jacobi",
                           "the system matrix is not a distributed::Matrix");
        }
        return local_->generate(A->local_block());
    }

private:
    std::shared_ptr<const LinOpFactory<V>> local_;
};

}  // namespace

template <typename V, typename I>
std::shared_ptr<const LinOpFactory<V>> block_jacobi(std::shared_ptr<const LinOpFactory<V>> local)
{
    if (!local) throw BadInput("loom::distributed::block_jacobi", "the local factory is null");
    return std::make_shared<const BlockJacobiFactory<V, I>>(std::move(local));
}

#define LOOM_INSTANTIATE_DISTRIBUTED_MATRIX(V, I) \
    template class Matrix<V, I>;                  \
    template std::shared_ptr<const LinOpFactory<V>> block_jacobi<V, I>(  \
        std::shared_ptr<const LinOpFactory<V>>);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_DISTRIBUTED_MATRIX)

}  // namespace loom::distributed
