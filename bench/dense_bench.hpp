// The dense BLAS/LAPACK benchmark behind `loom bench gemm`: for each shape, checks Loom's
// native kernel and the vendor library (cuBLAS/cuSOLVER, or OpenBLAS/LAPACK when built with
// LOOM_WITH_BLAS) against the reference backend (against the vendor for calls too large for
// the reference loops), then times native, vendor and the automatic choice, reporting
// GFLOP/s, the fraction of a given peak and the vendor/native ratio.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/base/executor.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"

namespace loom::bench {

enum class DenseRoutine { gemm, gemv, gemm_dot, trsm, trmm, getrf, trtri };

LOOM_NAME_TABLE(DenseRoutine, dense_routine_names, "routine",
    {DenseRoutine::gemm, "gemm", "C = A B + C"},
    {DenseRoutine::gemv, "gemv", "y = A x + y"},
    {DenseRoutine::gemm_dot, "gemm_dot", "C = A^T B"},
    {DenseRoutine::trsm, "trsm", "solve L X = B"},
    {DenseRoutine::trmm, "trmm", "B = L B"},
    {DenseRoutine::getrf, "getrf", "P A = L U"},
    {DenseRoutine::trtri, "trtri", "L = L^-1"},
);

/// A name of dense_routine_names; BadInput otherwise.
DenseRoutine parse_dense_routine(const std::string& text);

/// m x n x k of one call. gemm: C m x n, inner k; gemv: A m x n; gemm_dot: A k x m, B k x n
/// (C m x n); trsm/trmm: A m x m, B m x n (left side); getrf/trtri: A m x m.
struct DenseShape {
    size_type m = 0;
    size_type n = 0;
    size_type k = 0;
};
/// "N" (N x N x N) or "MxNxK"; BadInput otherwise.
DenseShape parse_dense_shape(const std::string& text);

struct DenseBenchOptions {
    std::shared_ptr<const Executor> exec;
    DenseRoutine routine = DenseRoutine::gemm;
    std::vector<DenseShape> shapes;
    int samples = 20;
    /// GFLOP/s the fractions are taken of; 0 leaves that column out.
    double peak_gflops = 0;
};

/// Prints the report on stdout and returns it as JSON. NumericalError when a result differs
/// from the reference beyond rounding.
template <typename V>
nlohmann::ordered_json bench_dense(const DenseBenchOptions& options);

}  // namespace loom::bench
