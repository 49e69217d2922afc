// Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html) in and out, and a
// binary CSR format for large matrices that reads at disk / page-cache speed.
//
// Reading: coordinate and array formats; real, integer, complex and pattern fields (integer
// and pattern become real values, a pattern entry is 1); general, symmetric, skew-symmetric
// and hermitian files are expanded to all their entries (the mirror of an off-diagonal entry
// is the same value, its negation or its conjugate). Malformed input raises BadInput naming
// the file (or "<stream>") and the line; a file that cannot be opened raises IoError.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>

#include "loom/base/executor.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

enum class MtxFormat { coordinate, array };
enum class MtxField { real, integer, complex, pattern };
enum class MtxSymmetry { general, symmetric, skew_symmetric, hermitian };

/// The words of the banner, matched regardless of case.
LOOM_NAME_TABLE(MtxFormat, mtx_format_names, "format",
    {MtxFormat::coordinate, "coordinate", "the nonzeros, one (row, column, value) per line"},
    {MtxFormat::array, "array", "every value, column by column"},
);

LOOM_NAME_TABLE(MtxField, mtx_field_names, "field",
    {MtxField::real, "real", "real values"},
    {MtxField::integer, "integer", "integer values (read as real)"},
    {MtxField::complex, "complex", "complex values: real and imaginary parts"},
    {MtxField::pattern, "pattern", "no values (each entry is 1)"},
);

LOOM_NAME_TABLE(MtxSymmetry, mtx_symmetry_names, "symmetry",
    {MtxSymmetry::general, "general", "every entry stored"},
    {MtxSymmetry::symmetric, "symmetric", "one triangle stored, a(j, i) = a(i, j)"},
    {MtxSymmetry::skew_symmetric, "skew-symmetric", "one triangle stored, a(j, i) = -a(i, j)"},
    {MtxSymmetry::hermitian, "hermitian", "one triangle stored, a(j, i) = conj(a(i, j))"},
);

/// What the banner and the size line of a Matrix Market file say.
struct MtxHeader {
    MtxFormat format = MtxFormat::coordinate;
    MtxField field = MtxField::real;
    MtxSymmetry symmetry = MtxSymmetry::general;
    size_type rows = 0;
    size_type cols = 0;
    /// Entries stored in the file: the size line's count for coordinate files, the values
    /// of the stored triangle (or of the whole matrix) for array files.
    size_type entries = 0;
};

/// Reads only the banner, the comments and the size line (the stream overload may read
/// ahead of the size line).
MtxHeader read_mtx_header(const std::string& path);
MtxHeader read_mtx_header(std::istream& in);

/// Every stored entry (symmetric files expanded, a mirrored entry right after its original),
/// in file order. Array files give their nonzero values in row-major order.
template <typename V, typename I = int32>
LOOM_EXPORT Coo<V, I> read_coo(std::shared_ptr<const Executor> exec, const std::string& path);
template <typename V, typename I = int32>
LOOM_EXPORT Coo<V, I> read_coo(std::shared_ptr<const Executor> exec, std::istream& in);

/// CSR with the columns of each row sorted; duplicate entries are kept (in file order).
/// Array files give their nonzero values. A matrix too large for I is NotSupported.
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> read_csr(std::shared_ptr<const Executor> exec, const std::string& path);
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> read_csr(std::shared_ptr<const Executor> exec, std::istream& in);

/// A dense matrix from an array file, or from a coordinate file (duplicates summed).
template <typename V>
LOOM_EXPORT Dense<V> read_dense(std::shared_ptr<const Executor> exec, const std::string& path);
template <typename V>
LOOM_EXPORT Dense<V> read_dense(std::shared_ptr<const Executor> exec, std::istream& in);

/// Writes a coordinate file (field real or complex after V). With a symmetry other than
/// general the matrix must have it (BadInput otherwise) and only its lower triangle is
/// written (without the diagonal for skew-symmetric). Values are printed in the shortest
/// form that reads back to the same number.
template <typename V, typename I>
LOOM_EXPORT void write_mtx(const std::string& path, const Csr<V, I>& matrix,
                           MtxSymmetry symmetry = MtxSymmetry::general);
template <typename V, typename I>
LOOM_EXPORT void write_mtx(std::ostream& out, const Csr<V, I>& matrix,
                           MtxSymmetry symmetry = MtxSymmetry::general);
template <typename V, typename I>
LOOM_EXPORT void write_mtx(const std::string& path, const Coo<V, I>& matrix,
                           MtxSymmetry symmetry = MtxSymmetry::general);
template <typename V, typename I>
LOOM_EXPORT void write_mtx(std::ostream& out, const Coo<V, I>& matrix,
                           MtxSymmetry symmetry = MtxSymmetry::general);
/// Writes an array file (column-major, as Matrix Market requires).
template <typename V>
LOOM_EXPORT void write_mtx(const std::string& path, const Dense<V>& matrix,
                           MtxSymmetry symmetry = MtxSymmetry::general);
template <typename V>
LOOM_EXPORT void write_mtx(std::ostream& out, const Dense<V>& matrix,
                           MtxSymmetry symmetry = MtxSymmetry::general);

/// Binary CSR: a 48-byte little-endian header (magic "LOOMCSR\0", version, value and index
/// type codes, rows, cols, nnz) followed by the raw row_ptrs, col_idxs and values arrays.
template <typename V, typename I>
LOOM_EXPORT void write_binary(const std::string& path, const Csr<V, I>& matrix);

/// Reads a binary CSR file written with any value and index type, converting to V and I.
/// Complex into real, a bad magic, a truncated file, a size mismatch or an invalid structure
/// is BadInput naming the file; a matrix too large for I is NotSupported.
template <typename V, typename I = int32>
LOOM_EXPORT Csr<V, I> read_binary_csr(std::shared_ptr<const Executor> exec,
                                      const std::string& path);

}  // namespace loom::matrix

LOOM_PUBLIC_END
