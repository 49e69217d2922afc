// Sparse matrix addition C = alpha * A + beta * B of two CSR matrices of one shape, split
// into a symbolic phase (C's pattern, and where every entry of A and of B lands in C) and a
// numeric phase that can be repeated for new values of A and B with the same patterns:
//
//     sparse::SpaddHandle<double> handle;
//     matrix::Csr<double> C;
//     sparse::spadd_symbolic(handle, A, B, C);
//     sparse::spadd_numeric(handle, 2.0, A, -1.0, B, C);
//     ...   // new values in A and B, same patterns
//     sparse::spadd_numeric(handle, 2.0, A, -1.0, B, C);
//
// Inputs may have unsorted rows and duplicate entries. C holds every column that A or B
// stores in a row, once, sorted (duplicates are summed into it); entries that add up to zero
// are kept, so that C's pattern depends on the patterns only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::sparse {

/// Which kernels add. `native` is Loom's own; `vendor` is cuSPARSE's csrgeam2 on CUDA (32-bit
/// indices and rows sorted without duplicates: NotSupported otherwise, and on the host
/// backends). `automatic` is native.
enum class SpaddAlgorithm { automatic, native, vendor };

inline constexpr Name<SpaddAlgorithm> spadd_algorithm_names[] = {
    {SpaddAlgorithm::automatic, "automatic", "Loom's kernels", {"auto"}},
    {SpaddAlgorithm::native, "native", "Loom's kernels"},
    {SpaddAlgorithm::vendor, "vendor", "cuSPARSE csrgeam2 (CUDA, sorted rows)", {"cusparse"}},
};
constexpr NameTable<SpaddAlgorithm> names_of(SpaddAlgorithm)
{
    return {"SpAdd algorithm", spadd_algorithm_names};
}

/// A name of spadd_algorithm_names; BadInput otherwise.
SpaddAlgorithm parse_spadd_algorithm(const std::string& text);
const char* to_string(SpaddAlgorithm algorithm);

struct SpaddOptions {
    SpaddAlgorithm algorithm = SpaddAlgorithm::automatic;
    /// The numeric phase makes sure that A, B and C still have the patterns the symbolic
    /// phase saw, by a fingerprint of each pattern that the matrix keeps in its plan cache
    /// (Csr::plans(), dropped whenever the pattern is handed out for writing). Set this to
    /// compute the fingerprints on every call, which also catches a pattern rewritten through
    /// a pointer kept from earlier (one extra pass over the column indices).
    bool verify_pattern = false;
};

namespace spadd_detail {
template <typename V, typename I>
struct SpaddState;
}

/// What the symbolic phase leaves for the numeric phase; bound to the executor and the
/// patterns it was computed for. Movable, not copyable.
template <typename V, typename I = int32>
class SpaddHandle {
public:
    explicit SpaddHandle(SpaddOptions options = {});
    ~SpaddHandle();
    SpaddHandle(SpaddHandle&&) noexcept;
    SpaddHandle& operator=(SpaddHandle&&) noexcept;
    SpaddHandle(const SpaddHandle&) = delete;
    SpaddHandle& operator=(const SpaddHandle&) = delete;

    const SpaddOptions& options() const noexcept { return options_; }
    /// Whether a symbolic phase has run, so that the numeric phase may follow.
    bool has_symbolic() const noexcept { return state_ != nullptr; }
    /// The algorithm that runs (`automatic` resolved); `automatic` before the symbolic phase.
    SpaddAlgorithm algorithm() const noexcept;

    /// For the implementation (src/sparse/spadd): the symbolic phase's results.
    spadd_detail::SpaddState<V, I>* state() const noexcept { return state_.get(); }
    void reset(std::unique_ptr<spadd_detail::SpaddState<V, I>> state) noexcept;

private:
    SpaddOptions options_;
    std::unique_ptr<spadd_detail::SpaddState<V, I>> state_;
};

/// C's pattern for alpha * A + beta * B: row pointers and sorted, distinct columns; C's values
/// are allocated but not set (spadd_numeric sets them). C is replaced by a matrix on A's
/// executor. DimensionMismatch when A and B differ in shape, BadInput when they live on
/// different executors, NotSupported when nnz(A) + nnz(B) does not fit I (C might not) or when
/// the handle asks for cuSPARSE where it cannot run. C and the handle are unchanged on failure.
template <typename V, typename I>
void spadd_symbolic(SpaddHandle<V, I>& handle, const matrix::Csr<V, I>& A,
                    const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// C's values = alpha * A + beta * B, with the patterns of the symbolic phase. BadInput when
/// no symbolic phase has run, or when A, B or C do not have the patterns it saw (see
/// SpaddOptions::verify_pattern); C is unchanged then.
template <typename V, typename I>
void spadd_numeric(const SpaddHandle<V, I>& handle, V alpha, const matrix::Csr<V, I>& A, V beta,
                   const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C);

/// Both phases at once: alpha * A + beta * B as a new matrix.
template <typename V, typename I>
matrix::Csr<V, I> spadd(V alpha, const matrix::Csr<V, I>& A, V beta, const matrix::Csr<V, I>& B,
                        const SpaddOptions& options = {});

}  // namespace loom::sparse
