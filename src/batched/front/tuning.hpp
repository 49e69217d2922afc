// What Launch::automatic runs, in one place: a typed table (routine x operands x order ->
// launch) for CUDA, with the measurements behind each row, and the host rule. front.cpp asks
// it for every call whose launch is automatic; nothing else chooses a launch.
// Host-only (host_gemm.hpp): nvcc never sees it.
#pragma once

#include <limits>
#include <string_view>

#include "batched/front/host_gemm.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/types.hpp"
#include "loom/batched/front.hpp"

namespace loom::batched::tuning {

/// The calls whose automatic launch was measured apart from the others (`other`).
enum class Routine { gemm, trmm, trtri, getrf, other };

/// The Routine a front-level call's name ("gemm", "trmm", ...) stands for; `other` for the rest.
constexpr Routine routine_named(std::string_view name)
{
    if (name == "gemm") return Routine::gemm;
    if (name == "trmm") return Routine::trmm;
    if (name == "trtri") return Routine::trtri;
    if (name == "getrf") return Routine::getrf;
    return Routine::other;
}

/// Which operands a row of the table applies to.
enum class Operands {
    real_square,  ///< real values, square matrices: where the lane-per-row kernels run
    any,
};

struct Row {
    Routine routine;
    Operands operands;
    size_type max_order;  ///< the row applies up to this order (the largest extent)
    Launch launch;
};

constexpr size_type any_order = std::numeric_limits<size_type>::max();

/// CUDA, in order: the first row of the routine (then of `other`) whose operands and order fit.
/// Measured on an H100 (batch 163840, double, `loom bench batched R --n ... --mode M`,
/// microseconds) for real square operands:
///   gemm   n = 3..11 team_vector (lane-per-row kernels): 14 / 54 / 140 / 304 us, 70-110% of
///          copy; team vs team_vector: n = 13 475 / 450, 14 593 / 541, 16 560 / 808 (team 81%
///          of copy), 20 1283 / 1327, 24 1608 / 1744, 28 2729 / 2443, 32 3589 / 3248 us
///          (those team_vector figures are the lane-per-row kernel's; n = 17..32 now runs a
///          warp per matrix: H200 950 / 1414 us at 24 / 32 with the SIMT warp gemm, against
///          team 537 us at 16; since session 8 double runs it on the FP64 tensor cores,
///          cuda_dmma_gemm.cuh: H200 522 / 705 us at 17 / 24, 1.83x / 1.40x cuBLAS);
///   getrf  team_vector at every order: since session 9 a thread per matrix up to n = 8
///          (cuda_thread.cuh; H200: n = 2..8 10.3 / 10.5 / 16.6 / 22.7 / 35.6 / 49.0 / 61.5 us
///          vs serial 10.8 / 14.2 / 23.5 / 36.7 / 55.4, rows kernel 66.4 / 79.0 at 7 / 8),
///          since session 10 up to n = 10 (79.4 / 95.1 us at 9 / 10 vs 214.9 / 231.7);
///          H100 before: n = 8, 16, 32 team_vector 80 / 614 / 4473 vs serial 131 / 1283 /
///          163147;
///   trtri  n <= 2 serial (H200: 10.5 vs 11.5 us at n = 2); team_vector above: a thread per
///          matrix up to 5 (10.9 / 13.2 / 19.4 us at 3 / 4 / 5 vs serial 12.0 / 17.3, rows
///          25.3 at 5), lane groups from 6 on;
///   trmm   team_vector at every order (17 us vs serial 21 us at n = 3).
/// Complex or rectangular operands, measured on an H200 (batch 163840, `loom bench batched
/// gemm`): gemm n = 3 serial 36 us, team_vector 125 us; n = 5 194 vs 172 us; n = 8 1092 vs
/// 224 us (hence gemm_cuda_serial_max). Other calls switch at 8 (getrf n = 5: serial 56 us,
/// team_vector 249 us; trsm n = 5: 123 vs 287 us).
inline constexpr Row cuda_table[] = {
    {Routine::gemm, Operands::real_square, 14, Launch::team_vector},
    {Routine::gemm, Operands::real_square, 16, Launch::team},
    {Routine::gemm, Operands::real_square, any_order, Launch::team_vector},
    {Routine::gemm, Operands::any, gemm_cuda_serial_max, Launch::serial},
    {Routine::gemm, Operands::any, any_order, Launch::team_vector},
    {Routine::getrf, Operands::real_square, any_order, Launch::team_vector},
    {Routine::trtri, Operands::real_square, 2, Launch::serial},
    {Routine::trtri, Operands::real_square, any_order, Launch::team_vector},
    {Routine::trmm, Operands::real_square, any_order, Launch::team_vector},
    {Routine::other, Operands::any, 8, Launch::serial},
    {Routine::other, Operands::any, any_order, Launch::team_vector},
};

constexpr Launch cuda_launch(Routine routine, bool real_square, size_type n)
{
    for (const auto pass : {routine, Routine::other}) {
        for (const auto& row : cuda_table) {
            if (row.routine == pass && n <= row.max_order &&
                (row.operands == Operands::any || real_square)) {
                return row.launch;
            }
        }
    }
    return Launch::team_vector;
}

/// The launch `automatic` takes for a call of `routine` with values V on exec, n the largest
/// extent of its operands. On the host: serial, or for real gemm on OpenMP the vectorized
/// kernel (simd), which beats Serial at every order where the CPU has AVX2 and FMA.
template <typename V>
Launch automatic_launch(Routine routine, const Executor& exec, size_type n, bool square)
{
    if (exec.kind() == ExecKind::cuda) return cuda_launch(routine, square && !is_complex_v<V>, n);
    if constexpr (!is_complex_v<V>) {
        if (routine == Routine::gemm && exec.kind() == ExecKind::omp &&
            host_kernels::vector_gemm_kernel<V>() != nullptr) {
            return Launch::simd;
        }
    }
    return Launch::serial;
}

}  // namespace loom::batched::tuning
