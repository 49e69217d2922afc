// Compile-time options of the batched routines: the execution mode, and the BLAS/LAPACK
// flags (transposition, side, triangle, unit diagonal, pivoting), one empty type each.
#pragma once

#include <type_traits>

namespace loom::batched {

/// Who runs a routine. Serial: the calling thread alone (invoke takes no member). Team: every
/// thread of the calling team, each as one worker (on CUDA: all team_size × vector_length
/// threads). TeamVector: the team's threads split the outer loops and their vector lanes the
/// inner ones. Team and TeamVector invoke take the team member first, must be called by every
/// thread of the team, and return with their results visible to the whole team.
namespace Mode {
struct Serial {};
struct Team {};
struct TeamVector {};
}  // namespace Mode

/// op(A) = A, Aᵀ or Aᴴ (the two coincide for real types).
namespace Trans {
struct NoTranspose {};
struct Transpose {};
struct ConjTranspose {};
}  // namespace Trans

/// Whether the triangular (or orthogonal) factor multiplies from the left or the right.
namespace Side {
struct Left {};
struct Right {};
}  // namespace Side

/// Which triangle of a matrix a routine reads or writes.
namespace Uplo {
struct Lower {};
struct Upper {};
}  // namespace Uplo

/// Whether a triangular matrix has an implicit unit diagonal (its stored diagonal is not read).
namespace Diag {
struct Unit {};
struct NonUnit {};
}  // namespace Diag

/// LU with partial (row) pivoting, or without pivoting (SIMD-friendly, no pivot array).
namespace Pivot {
struct Partial {};
struct None {};
}  // namespace Pivot

template <typename M>
inline constexpr bool is_mode_v = std::is_same_v<M, Mode::Serial> ||
                                  std::is_same_v<M, Mode::Team> ||
                                  std::is_same_v<M, Mode::TeamVector>;
template <typename M>
inline constexpr bool is_team_mode_v =
    std::is_same_v<M, Mode::Team> || std::is_same_v<M, Mode::TeamVector>;

template <typename T>
inline constexpr bool is_trans_v = std::is_same_v<T, Trans::NoTranspose> ||
                                   std::is_same_v<T, Trans::Transpose> ||
                                   std::is_same_v<T, Trans::ConjTranspose>;
/// Whether op(A) reads A transposed, and whether it conjugates it.
template <typename T>
inline constexpr bool transposes_v = !std::is_same_v<T, Trans::NoTranspose>;
template <typename T>
inline constexpr bool conjugates_v = std::is_same_v<T, Trans::ConjTranspose>;

template <typename S>
inline constexpr bool is_side_v = std::is_same_v<S, Side::Left> || std::is_same_v<S, Side::Right>;
template <typename U>
inline constexpr bool is_uplo_v = std::is_same_v<U, Uplo::Lower> || std::is_same_v<U, Uplo::Upper>;
template <typename D>
inline constexpr bool is_diag_v = std::is_same_v<D, Diag::Unit> || std::is_same_v<D, Diag::NonUnit>;
template <typename P>
inline constexpr bool is_pivot_v =
    std::is_same_v<P, Pivot::Partial> || std::is_same_v<P, Pivot::None>;

}  // namespace loom::batched
