// The SpAdd benchmark behind `loom bench spadd`: checks Loom's C = alpha A + beta B against
// the reference backend, then times its symbolic and numeric phases and the peer's (cuSPARSE
// csrgeam2 on CUDA, Eigen's sparse sum on the host), in the same run.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/spmv_bench.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

/// How the bytes of one numeric phase are counted, for help texts and reports: A's and B's
/// values and positions read, C's values written, the three row-pointer arrays.
inline constexpr const char* spadd_bytes_formula =
    "(nnz(A)+nnz(B))*(|V|+|I|) + nnz(C)*|V| + 3*(rows+1)*|I|";

struct SpaddBenchOptions {
    std::shared_ptr<const Executor> exec;
    /// cusparse (CUDA, 32-bit indices, rows sorted without duplicates) or eigen (host).
    Peer peer = Peer::none;
    int samples = 20;
    std::string a_name;
    std::string b_name;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU.
    std::size_t copy_bytes = 0;
};

/// Runs the benchmark for A and B (on any executor), prints the report on stdout and returns
/// it as JSON. NumericalError when a result differs from the reference beyond rounding.
template <typename V, typename I>
nlohmann::ordered_json bench_spadd(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B,
                                   const SpaddBenchOptions& options);

}  // namespace loom::bench
