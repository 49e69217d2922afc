// Incomplete sparse approximate inverse (ISAI; Anzt, Huckle, Schaefer, Dongarra 2018): M ~ A^-1
// on the pattern of A^k (of the lower or upper triangle of A for a triangular ISAI), each row i
// of M solving M(i, J) A(J, J) = e_i(J) on its pattern J, a small dense system. Applying M
// is an SpMV, so an ISAI replaces a triangular solve by parallel work of every row at once.
// For an SPD (Hermitian positive definite) A the inverse is kept factorized and so SPD itself,
// as CG needs: M = G^H G with G lower triangular on the pattern of tril(A)^k, row i of G the
// solution of the same row system scaled to G A G^H having a unit diagonal (the factorized
// sparse approximate inverse, FSAI, of Kolotilina and Yeremin).
//
//     const auto M = sparse::isai(L, {.kind = sparse::IsaiKind::lower});   // M ~ L^-1
//     const auto G = sparse::isai(A, {.kind = sparse::IsaiKind::spd});     // G^H G ~ A^-1
#pragma once

#include "loom/base/names.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/base/export.hpp"

LOOM_PUBLIC_BEGIN

namespace loom::sparse {

/// Which part of A is inverted.
enum class IsaiKind { general, lower, upper, spd };

LOOM_NAME_TABLE(IsaiKind, isai_kind_names, "ISAI kind",
    {IsaiKind::general, "general", "a general matrix"},
    {IsaiKind::lower, "lower", "a lower triangular matrix"},
    {IsaiKind::upper, "upper", "an upper triangular matrix"},
    {IsaiKind::spd, "spd", "an SPD matrix, as the factor G of M = G^H G"},
);

struct IsaiOptions {
    IsaiKind kind = IsaiKind::general;
    /// M gets the pattern of T^power (T: A, or its triangle), with the diagonal.
    int power = 1;
};

/// M on A's executor (computed on the host for CUDA executors); for IsaiKind::spd the lower
/// triangular factor G of M = G^H G. DimensionMismatch when A is not square, BadInput for
/// power < 1, NumericalError naming the row of a singular A(J, J) (spd: also a row whose
/// system shows A is not positive definite).
template <typename V, typename I>
LOOM_EXPORT matrix::Csr<V, I> isai(const matrix::Csr<V, I>& A, const IsaiOptions& options = {});

}  // namespace loom::sparse

LOOM_PUBLIC_END
