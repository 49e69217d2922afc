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

inline constexpr Name<Op> op_names[] = {
    {Op::none, "none", "A", {"n"}},
    {Op::transpose, "transpose", "A^T", {"t"}},
    {Op::conj_transpose, "conj_transpose", "A^H", {"h", "c"}},
};
constexpr NameTable<Op> names_of(Op) { return {"operation", op_names}; }

inline constexpr Name<Side> side_names[] = {
    {Side::left, "left", "op(A) X", {"l"}},
    {Side::right, "right", "X op(A)", {"r"}},
};
constexpr NameTable<Side> names_of(Side) { return {"side", side_names}; }

inline constexpr Name<Uplo> uplo_names[] = {
    {Uplo::lower, "lower", "the lower triangle", {"l"}},
    {Uplo::upper, "upper", "the upper triangle", {"u"}},
};
constexpr NameTable<Uplo> names_of(Uplo) { return {"triangle", uplo_names}; }

inline constexpr Name<Diag> diag_names[] = {
    {Diag::non_unit, "non_unit", "the stored diagonal", {"n"}},
    {Diag::unit, "unit", "a diagonal of ones, never read", {"u"}},
};
constexpr NameTable<Diag> names_of(Diag) { return {"diagonal", diag_names}; }

inline constexpr Name<Backend> backend_names[] = {
    {Backend::automatic, "automatic", "vendor where it is known to win, else native", {"auto"}},
    {Backend::native, "native", "Loom's kernels"},
    {Backend::vendor, "vendor", "cuBLAS/cuSOLVER on CUDA, OpenBLAS/LAPACK on the host"},
};
constexpr NameTable<Backend> names_of(Backend) { return {"backend", backend_names}; }

/// "n", "t", "h" or a name of op_names; BadInput otherwise.
Op parse_op(const std::string& text);
const char* to_string(Op op);
/// "auto" or a name of backend_names; BadInput otherwise.
Backend parse_backend(const std::string& text);
const char* to_string(Backend backend);
const char* to_string(Side side);
const char* to_string(Uplo uplo);
const char* to_string(Diag diag);

}  // namespace loom::blas

LOOM_PUBLIC_END
