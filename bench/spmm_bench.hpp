// The benchmark behind `loom bench spmm|sddmm|fusedmm`: for each k, checks Loom's result
// against the reference backend (the OpenMP one for a GPU run), then times Loom's kernels and the peer's in the same run
// (cuSPARSE SpMM / SDDMM / SDDMM followed by SpMM on CUDA, Eigen's sparse x dense product on
// the host), and for SpMM also k single-column SpMVs (the path a multi-vector took before).
// A GPU SpMM also gets its bandwidth bound: A and C once, and the rows of B that an L2-sized
// LRU cache misses (a model of the gathers), at the measured copy bandwidth.
// With a 16-bit storage precision (fp16, bf16) A and the dense operands are rounded to it
// and every kernel, the cuSPARSE peer included, runs in it (sums in float); the check then
// compares a sample of rows with an fp64 product of the same 16-bit inputs (cheap at
// millions of rows).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/spmv_bench.hpp"
#include "bench/storage_precision.hpp"
#include "loom/base/names.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

enum class SpmmKernel { spmm, sddmm, fusedmm };

/// How bytes and flops are counted (|T| = sizeof(T)), for help texts and reports: A once,
/// every dense operand once (read or written).
inline constexpr const char* spmm_bytes_formula =
    "spmm: nnz*(|V|+|I|) + (rows+1)*|I| + (cols+rows)*k*|V|;  sddmm: nnz*(2|V|+|I|) + "
    "(rows+1)*|I| + (rows+cols)*k*|V|;  fusedmm: nnz*(|V|+|I|) + (rows+1)*|I| + "
    "(2*rows+2*cols)*k*|V|";
inline constexpr const char* spmm_flops_formula =
    "2*nnz*k (spmm, sddmm), 4*nnz*k (fusedmm: a dot product and an axpy per entry)";

struct SpmmBenchOptions {
    std::shared_ptr<const Executor> exec;
    SpmmKernel kernel = SpmmKernel::spmm;
    std::vector<size_type> ks{32, 64, 128, 256};
    Peer peer = Peer::none;
    StoragePrecision precision = StoragePrecision::native;
    int samples = 20;
    std::string matrix_name;
    /// SpMM on a GPU: the native algorithms timed besides automatic; empty: every one.
    std::vector<std::string> algorithms;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU.
    std::size_t copy_bytes = 0;
};

/// Runs the benchmark for A (on any executor), prints the report on stdout and returns it as
/// JSON. NumericalError when a result differs from the reference beyond rounding.
template <typename V, typename I>
nlohmann::ordered_json bench_spmm(const matrix::Csr<V, I>& A, const SpmmBenchOptions& options);

}  // namespace loom::bench
