// The options of dense BLAS/LAPACK calls, shared by the whole-matrix routines (loom::blas,
// loom::lapack) and the batched ones (loom::batched).
#pragma once

#include <string>

#include "loom/base/export.hpp"
#include "loom/base/names.hpp"
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

LOOM_NAME_TABLE(Op, op_names, "operation",
    {Op::none, "none", "A", {"n"}},
    {Op::transpose, "transpose", "A^T", {"t"}},
    {Op::conj_transpose, "conj_transpose", "A^H", {"h", "c"}},
);

LOOM_NAME_TABLE(Side, side_names, "side",
    {Side::left, "left", "op(A) X", {"l"}},
    {Side::right, "right", "X op(A)", {"r"}},
);

LOOM_NAME_TABLE(Uplo, uplo_names, "triangle",
    {Uplo::lower, "lower", "the lower triangle", {"l"}},
    {Uplo::upper, "upper", "the upper triangle", {"u"}},
);

LOOM_NAME_TABLE(Diag, diag_names, "diagonal",
    {Diag::non_unit, "non_unit", "the stored diagonal", {"n"}},
    {Diag::unit, "unit", "a diagonal of ones, never read", {"u"}},
);

LOOM_NAME_TABLE(Backend, backend_names, "backend",
    {Backend::automatic, "automatic", "vendor where it is known to win, else native", {"auto"}},
    {Backend::native, "native", "Loom's kernels"},
    {Backend::vendor, "vendor", "cuBLAS/cuSOLVER on CUDA, OpenBLAS/LAPACK on the host"},
);

/// "n", "t", "h" or a name of op_names; BadInput otherwise.
Op parse_op(const std::string& text);
/// "auto" or a name of backend_names; BadInput otherwise.
Backend parse_backend(const std::string& text);

}  // namespace loom::blas

LOOM_PUBLIC_END
