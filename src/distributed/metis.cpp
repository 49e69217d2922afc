// METIS k-way partitions of a distributed matrix's graph: METIS is serial, so the pattern is
// gathered on rank 0, partitioned there and the part of every row broadcast.
#include <algorithm>
#include <numeric>

#if LOOM_HAS_METIS
#include <metis.h>
#endif

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/distributed/matrix.hpp"

namespace loom::distributed {
namespace {

constexpr const char* where = "loom::distributed::metis_partition";

#if LOOM_HAS_METIS
/// The part of each of n rows from the edges (rows[k], cols[k]), made symmetric, self loops
/// dropped.
std::vector<int> metis_parts(size_type n, const std::vector<size_type>& rows,
                             const std::vector<size_type>& cols, int parts)
{
    std::vector<std::vector<idx_t>> adjacency(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < rows.size(); ++k) {
        if (rows[k] == cols[k]) continue;
        adjacency[rows[k]].push_back(static_cast<idx_t>(cols[k]));
        adjacency[cols[k]].push_back(static_cast<idx_t>(rows[k]));
    }
    std::vector<idx_t> xadj{0};
    std::vector<idx_t> adjncy;
    for (auto& neighbours : adjacency) {
        std::sort(neighbours.begin(), neighbours.end());
        neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
        adjncy.insert(adjncy.end(), neighbours.begin(), neighbours.end());
        xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    std::vector<int> out(static_cast<std::size_t>(n), 0);
    if (parts == 1 || n == 0) return out;
    idx_t vertices = static_cast<idx_t>(n);
    idx_t constraints = 1;
    idx_t nparts = parts;
    idx_t cut = 0;
    std::vector<idx_t> part(static_cast<std::size_t>(n));
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // the same partition on every run
    const int status = METIS_PartGraphKway(&vertices, &constraints, xadj.data(), adjncy.data(),
                                           nullptr, nullptr, nullptr, &nparts, nullptr, nullptr,
                                           options, &cut, part.data());
    if (status != METIS_OK) {
        throw BadInput(where, "METIS_PartGraphKway failed (status " + std::to_string(status) + ")");
    }
    std::copy(part.begin(), part.end(), out.begin());
    return out;
}
#endif

}  // namespace

template <typename V, typename I>
Partition metis_partition(const Matrix<V, I>& A)
{
#if LOOM_HAS_METIS
    const auto& comm = A.communicator();
    const auto n = A.global_size();
    const auto entries = A.local_entries();
    // The edges on rank 0, then the parts of every row from there.
    const int count = static_cast<int>(entries.rows.size());
    std::vector<int> counts(comm.size());
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.get());
    std::vector<int> offsets(comm.size(), 0);
    std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
    const auto total = comm.rank() == 0 ? static_cast<std::size_t>(offsets.back() + counts.back())
                                        : std::size_t{0};
    std::vector<size_type> rows(total), cols(total);
    MPI_Gatherv(entries.rows.data(), count, mpi_type<size_type>(), rows.data(), counts.data(),
                offsets.data(), mpi_type<size_type>(), 0, comm.get());
    MPI_Gatherv(entries.cols.data(), count, mpi_type<size_type>(), cols.data(), counts.data(),
                offsets.data(), mpi_type<size_type>(), 0, comm.get());
    std::vector<int> parts(static_cast<std::size_t>(n));
    comm.agree(where, [&] {
        if (comm.rank() == 0) parts = metis_parts(n, rows, cols, comm.size());
    });
    MPI_Bcast(parts.data(), static_cast<int>(n), MPI_INT, 0, comm.get());
    return Partition::from_parts(parts, comm.size());
#else
    (void)A;
    throw NotCompiled(where, "METIS (Debian libmetis-dev)");
#endif
}

#define LOOM_INSTANTIATE_METIS_PARTITION(V, I) template Partition metis_partition(const Matrix<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_METIS_PARTITION)

}  // namespace loom::distributed
