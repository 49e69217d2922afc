// The options of dense BLAS/LAPACK calls, shared by the whole-matrix routines (loom::blas,
// loom::lapack) and the batched ones (loom::batched).
#pragma once

#include <string>

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::blas {

/// op(A): A, A^T or A^H.
enum class Op { none, transpose, conj_transpose };
/// Whether the triangular matrix multiplies from the left (op(A) X) or the right (X op(A)).
enum class Side { left, right };
/// Which triangle of A holds the triangular matrix; the other one is never read.
enum class Uplo { lower, upper };
/// unit: the diagonal is taken as all ones and never read.
enum class Diag { non_unit, unit };

/// Who computes a call. `automatic` picks per executor and shape (vendor where it is known to
/// win, native otherwise; the reference executor is always native). `native` forces Loom's
/// kernels. `vendor` forces cuBLAS/cuSOLVER (CUDA) or OpenBLAS/LAPACK (host); NotCompiled when
/// the build has no such library. Shapes and operations a vendor cannot express (a
/// conjugate without a transpose, sizes beyond its 32-bit integers) take the native path.
enum class Backend { automatic, native, vendor };

/// "n", "t", "h" (also "none", "transpose", "conj_transpose"); BadInput otherwise.
Op parse_op(const std::string& text);
const char* to_string(Op op);
/// "auto"/"automatic", "native", "vendor"; BadInput otherwise.
Backend parse_backend(const std::string& text);
const char* to_string(Backend backend);

}  // namespace loom::blas

LOOM_PUBLIC_END
