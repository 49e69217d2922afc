// The batched benchmark behind `loom bench batched`: for each matrix order n, checks the
// front-level call against the reference backend, then times it on the whole batch and
// reports time, GFLOP/s, GB/s, the fraction of the copy bandwidth measured in the same run and
// the ratio to a peer (cuBLAS's batched routines on CUDA, a loop of OpenBLAS calls on the
// host).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/base/executor.hpp"
#include "loom/base/names.hpp"
#include "loom/batched/front.hpp"

namespace loom::bench {

enum class BatchedRoutine { gemm, getrf, trsm, trmm, trtri, potrf, qr };

LOOM_NAME_TABLE(BatchedRoutine, batched_routine_names, "routine",
    {BatchedRoutine::gemm, "gemm", "C = A B + C"},
    {BatchedRoutine::getrf, "getrf", "P A = L U, partial pivoting"},
    {BatchedRoutine::trsm, "trsm", "solve L X = B"},
    {BatchedRoutine::trmm, "trmm", "B = L B"},
    {BatchedRoutine::trtri, "trtri", "L = L^-1"},
    {BatchedRoutine::potrf, "potrf", "Cholesky A = L L^H"},
    {BatchedRoutine::qr, "qr", "Householder A = Q R"},
);

BatchedRoutine parse_batched_routine(const std::string& text);

/// cublas: cuBLAS (gemmStridedBatched, getrfBatched, trsmBatched, geqrfBatched) and cuSOLVER
/// (potrfBatched); CUDA only; openblas: a loop of OpenBLAS calls on the executor's threads
/// (host, builds with LOOM_WITH_BLAS).
enum class BatchedPeer { none, cublas, openblas };

LOOM_NAME_TABLE(BatchedPeer, batched_peer_names, "peer",
    {BatchedPeer::none, "none", "no peer"},
    {BatchedPeer::cublas, "cublas", "cuBLAS and cuSOLVER (CUDA)"},
    {BatchedPeer::openblas, "openblas", "a loop of OpenBLAS calls (host)"},
);
BatchedPeer parse_batched_peer(const std::string& text);

/// Orders from "3..32" (every order in the range), "3,5,8" or "16"; BadInput otherwise.
std::vector<size_type> parse_orders(const std::string& text);

/// How bytes and flops of one matrix are counted, for help texts and reports.
inline constexpr const char* batched_counts_help =
    "  gemm   C = A*B + C (n x n):       bytes 4n^2|V|, flops 2n^3\n"
    "  getrf  P A = L U, partial pivots: bytes 2n^2|V| + 4n, flops 2n^3/3\n"
    "  trsm   L X = B, B n x n:          bytes (n(n+1)/2 + 2n^2)|V|, flops n^3\n"
    "  trmm   B = L B, B n x n:          bytes (n(n+1)/2 + 2n^2)|V|, flops n^3\n"
    "  trtri  L = L^-1:                  bytes n(n+1)|V|, flops n^3/3\n"
    "  potrf  A = L L^H:                 bytes n(n+1)|V|, flops n^3/3\n"
    "  qr     A = Q R (Householder):     bytes (2n^2 + n)|V|, flops 4n^3/3\n"
    "  (flops x4 for complex values)";

struct BatchedBenchOptions {
    std::shared_ptr<const Executor> exec;
    BatchedRoutine routine = BatchedRoutine::gemm;
    std::vector<size_type> orders{3, 5, 8, 16, 32};
    size_type batch = 163840;
    batched::Launch launch = batched::Launch::automatic;
    BatchedPeer peer = BatchedPeer::none;
    int samples = 20;
    /// Matrices checked against the reference backend (the first ones of the batch).
    size_type check_count = 512;
    std::uint64_t seed = 1;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU.
    std::size_t copy_bytes = 0;
};

/// Runs the benchmark, prints the report on stdout and returns it as JSON. NumericalError
/// when a result differs from the reference beyond rounding.
template <typename V>
nlohmann::ordered_json bench_batched(const BatchedBenchOptions& options);

}  // namespace loom::bench
