// Internal pieces shared by the Matrix Market reader and writer.
#pragma once

#include <memory>
#include <vector>

#include "loom/matrix/io.hpp"
#include "matrix/io/text.hpp"

namespace loom::matrix::io {

/// Entries on the host, in file (or storage) order.
template <typename V, typename I>
struct Triplets {
    dim2 size;
    std::vector<I> rows;
    std::vector<I> cols;
    std::vector<V> values;
};

/// Where a result is assembled: exec itself when it is a host executor, else the host,
/// from where the finished matrix is copied once.
inline std::shared_ptr<const Executor> staging_executor(
    const std::shared_ptr<const Executor>& exec)
{
    return exec->is_host() ? exec : detail::host_executor();
}

/// `host_matrix` (built on staging_executor(exec)) placed on exec.
template <typename Matrix>
Matrix place_on(const std::shared_ptr<const Executor>& exec, Matrix host_matrix)
{
    if (host_matrix.executor() == exec) return host_matrix;
    return Matrix(exec, host_matrix);
}

/// Reads the banner, the comments and the size line; `in` then stands on the first entry.
/// BadInput naming the line for anything malformed or inconsistent (a non-square symmetric
/// matrix, an array of patterns, more entries declared than the rest of the file can hold).
MtxHeader read_header(LineReader& in);

/// AllocationError naming the file when `bytes` (for `what`, e.g. "a dense 3 x 4 matrix")
/// exceed the memory of this machine: a header's sizes are checked before anything is
/// allocated for them, so that a few bytes of a corrupt file cannot claim gigabytes.
void check_fits_memory(const LineReader& in, double bytes, const std::string& what);

/// The banner Loom writes: "%%MatrixMarket matrix <format> <field> <symmetry>".
std::string banner(MtxFormat format, MtxField field, MtxSymmetry symmetry);

}  // namespace loom::matrix::io
