// The solver benchmark behind `loom bench solve`: the time of one iteration of an
// unpreconditioned Krylov solver on A, the bytes it must move (CG and FCG) as GB/s and as a
// fraction of the copy bandwidth measured in the same run, and the fixed cost of an iteration
// (everything but the arithmetic) measured on a 1 x 1 system.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/run_options.hpp"
#include "loom/base/executor.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::bench {

/// How the bytes of one unpreconditioned CG iteration are counted (|T| = sizeof(T), one
/// right-hand side): q = A p reads the matrix and p and writes q (SpMV bytes with y written
/// only), p^H q reads 2 vectors, x += alpha p and r -= alpha q read 2 and write 1 each,
/// r^H r reads 1, p = r + beta p reads 2 and writes 1: 14 vectors. FCG adds q^H r (2).
inline constexpr const char* cg_bytes_formula = "nnz*(|V|+|I|) + (rows+1)*|I| + 14*rows*|V|";
inline constexpr const char* cg_bytes_terms =
    "q = A p (matrix, p read, q written: 2 vectors), p^H q (2), x += alpha p (3),\n"
    "          r -= alpha q (3), r^H r (1), p = r + beta p (3); FCG adds q^H r (2)";

/// The bytes CG's fused iteration moves (solver/cg.cpp): q = A p and p^H q as above, then
/// r -= alpha q with r^H r in one pass (r read and written, q read) and x += alpha p with
/// p = r + beta p in another (x and p read and written, r read): 12 vectors. FCG adds q^H r.
inline constexpr const char* cg_fused_bytes_formula = "nnz*(|V|+|I|) + (rows+1)*|I| + 12*rows*|V|";
inline constexpr const char* cg_fused_bytes_terms =
    "q = A p (matrix, 2 vectors), p^H q (2), r -= alpha q with r^H r (3),\n"
    "          x += alpha p with p = r + beta p (5); FCG adds q^H r (2)";

struct SolveBenchOptions : RunOptions {
    /// cg, fcg, bicg, bicgstab, cgs, gmres (restart 30) or ir (Richardson).
    std::string solver = "cg";
    /// Iterations per timed solve (the criterion is this count only).
    size_type iterations = 100;
    /// Size of the copy that measures the bandwidth; 0 picks 512 MiB on the host, 1 GiB on
    /// a GPU.
    std::size_t copy_bytes = 0;
    /// Also measure the per-iteration overhead on a 1 x 1 system.
    bool overhead = true;
};

/// Per-iteration time: (time of a solve doing `iterations` iterations - time of one doing
/// none) / iterations, each the median of `samples` solves from x0 = 0 with b = A * 1, so
/// that the setup of a solve (initial residual, norms) is not counted. Prints the report on
/// stdout and returns it as JSON. BadInput for a bad option; NumericalError when the solver
/// stops before doing every iteration (breakdown, or an exact solution).
template <typename V, typename I>
nlohmann::ordered_json bench_solve(const matrix::Csr<V, I>& A, const SolveBenchOptions& options);

}  // namespace loom::bench
