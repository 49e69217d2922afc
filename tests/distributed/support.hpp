// What the distributed tests share: the world communicator, partitions of awkward shapes
// (uneven, a rank with no rows, scattered rows) and the single-process answers to compare with.
#pragma once

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/distributed/matrix.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace loom::test {

using V = double;
using I = int32;
using DMatrix = distributed::Matrix<V, I>;

inline distributed::Communicator world() { return distributed::Communicator(MPI_COMM_WORLD); }

/// Named partitions of n rows over the world's ranks; the same on every rank.
inline std::vector<std::pair<std::string, distributed::Partition>> awkward_partitions(size_type n)
{
    const int P = world().size();
    std::vector<std::pair<std::string, distributed::Partition>> out;
    out.emplace_back("contiguous", distributed::Partition::contiguous(n, P));
    // Uneven blocks, rank 0 without rows: sizes 0, then growing.
    std::vector<size_type> sizes(P, 0);
    size_type weight = 0;
    for (int p = 1; p < P; ++p) weight += p;
    size_type given = 0;
    for (int p = 1; p < P; ++p) {
        sizes[p] = p + 1 == P ? n - given : n * p / std::max<size_type>(weight, 1);
        given += sizes[p];
    }
    if (P == 1) sizes[0] = n;
    out.emplace_back("uneven, rank 0 empty", distributed::Partition::from_sizes(sizes));
    // Every row to a random rank (the last one gets none when P > 1).
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> part(0, std::max(P - 2, 0));
    std::vector<int> parts(static_cast<std::size_t>(n));
    for (auto& p : parts) p = part(rng);
    out.emplace_back("scattered rows", distributed::Partition::from_parts(parts, P));
    return out;
}

/// Every block format but the default csr, and the staged halo path (host buffers between the
/// SpMV and MPI, what device memory takes without CUDA-aware MPI), named: a distributed product
/// must not depend on them.
inline std::vector<std::pair<std::string, distributed::MatrixOptions>> matrix_options()
{
    std::vector<std::pair<std::string, distributed::MatrixOptions>> out;
    for (const auto& format : distributed::block_format_names) {
        if (format.value == distributed::BlockFormat::csr) continue;
        out.emplace_back(format.name, distributed::MatrixOptions{.format = format.value});
    }
    out.emplace_back("csr, staged halo", distributed::MatrixOptions{.stage_halo = true});
    return out;
}

/// y = A x on one process (the reference backend).
inline matrix::Dense<V> single_process_apply(const matrix::Csr<V, I>& A, const matrix::Dense<V>& x)
{
    const auto ref = reference();
    const matrix::Csr<V, I> Ar(ref, A);
    const matrix::Dense<V> xr(ref, x);
    matrix::Dense<V> y(ref, {A.rows(), x.cols()});
    Ar.apply(xr, y);
    return y;
}

}  // namespace loom::test
