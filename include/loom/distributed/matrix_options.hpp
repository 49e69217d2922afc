// MatrixOptions: how a distributed::Matrix stores its blocks and moves its halo, chosen when it
// is assembled. Free of MPI, so that the command line names the formats in any build.
#pragma once

#include "loom/base/names.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::distributed {

/// The storage of a rank's blocks for the SpMV: any single-node format Loom multiplies with.
enum class BlockFormat { csr, coo, ell, sellp };

LOOM_NAME_TABLE(BlockFormat, block_format_names, "block format",
    {BlockFormat::csr, "csr", "compressed sparse rows"},
    {BlockFormat::coo, "coo", "coordinates"},
    {BlockFormat::ell, "ell", "ELLPACK: every row as wide as the longest"},
    {BlockFormat::sellp, "sellp", "sliced ELLPACK: slices of 32 rows, each as wide as its longest"},
);

struct MatrixOptions {
    /// The local and non-local blocks' storage for the SpMV. With a format other than csr the
    /// local block is also kept as Csr (the matrix IS that Csr, for the preconditioners built
    /// on it): its entries are stored twice.
    BlockFormat format = BlockFormat::csr;
    /// Moves the halo through separate host buffers (copied out, sent, copied back) even where
    /// MPI could take the vectors' memory directly: the path of device memory without
    /// CUDA-aware MPI, which is taken anyway there. Set to run that path on a host executor.
    bool stage_halo = false;
};

}  // namespace loom::distributed

LOOM_PUBLIC_END
