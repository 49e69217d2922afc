// The SpMV benchmark behind `loom bench spmv`: checks every kernel against the reference
// backend, then times y = A * x + y and reports time, GB/s, GFLOP/s, the fraction of the
// copy bandwidth measured in the same run and the ratio to a peer library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "bench/spmv_matrix.hpp"

namespace loom::bench {

/// The library Loom is compared with: cuSPARSE (Loom's SpmvAlgorithm::vendor path, CUDA
/// only) or Eigen (host only, when built with it).
enum class Peer { none, cusparse, eigen };

LOOM_NAME_TABLE(Peer, peer_names, "peer",
    {Peer::none, "none", "no peer"},
    {Peer::cusparse, "cusparse", "cuSPARSE (CUDA)"},
    {Peer::eigen, "eigen", "Eigen (host, builds with Eigen)"},
);
Peer parse_peer(const std::string& text);

/// BadInput or NotSupported (from `where`) unless a benchmark can run: an executor, at least
/// one sample, and a peer that runs where exec does (cusparse on CUDA; eigen on the host, in
/// a build with Eigen).
void check_run(const char* where, const std::shared_ptr<const Executor>& exec, int samples,
               Peer peer);
/// The OpenMP threads of exec (1 for the other executors).
int host_threads(const Executor& exec);
/// exec's name, with its threads for OpenMP.
std::string executor_description(const Executor& exec);

/// How the bytes of one SpMV are counted (|T| = sizeof(T)), for help texts and reports:
/// values and column indices, row pointers, x read, y read and written.
inline constexpr const char* spmv_bytes_formula =
    "nnz*(|V|+|I|) + (rows+1)*|I| + cols*|V| + 2*rows*|V|";

struct SpmvBenchOptions : RunOptions {
    std::vector<SpmvFormat> formats{SpmvFormat::automatic};
    sparse::SpmvAlgorithm algorithm = sparse::SpmvAlgorithm::automatic;
    /// Also a row per native CSR algorithm.
    bool variants = false;
    /// Also a row per reordering: `algorithm` on spmv_reorder's matrix, x and y permuted
    /// once outside the timing (square matrices).
    std::vector<sparse::ReorderKind> reorderings;
    Peer peer = Peer::none;
    std::uint64_t seed = 1;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU (far beyond the last-level cache of either).
    std::size_t copy_bytes = 0;
};

/// Runs the benchmark for A (on any executor), prints the report on stdout and returns it as
/// JSON. NumericalError when a kernel's result differs from the reference beyond rounding.
template <typename V, typename I>
nlohmann::ordered_json bench_spmv(const matrix::Csr<V, I>& A, const SpmvBenchOptions& options);

}  // namespace loom::bench
