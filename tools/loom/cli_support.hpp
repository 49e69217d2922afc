// What several subcommands share: executors and value types named on the command line,
// matrix files chosen by extension, generator specs and scalars.
#pragma once

#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"

namespace loom::cli {

/// The index type of matrices the command line reads and builds.
#if LOOM_HAS_INT32
using index_type = int32;
#else
using index_type = int64;
#endif

/// What --exec means when not given: omp when built with OpenMP, else reference.
inline std::string default_executor() { return OmpExecutor::available() ? "omp" : "reference"; }

/// The executor for --exec ("reference", "omp", "cuda", "cuda:N"); `threads` > 0 sets the
/// OpenMP thread count (BadInput with another executor).
std::shared_ptr<const Executor> make_executor(const std::string& name, int threads = 0);

/// The names --type accepts.
inline const std::vector<std::string> value_type_names{"double", "float", "complex-double",
                                                       "complex-float"};

/// Returns f(std::type_identity<V>{}) for the value type named (one of value_type_names).
/// NotCompiled when this build leaves that type out (LOOM_VALUE_TYPES).
template <typename F>
int with_value_type(const std::string& name, F&& f)
{
    const auto not_compiled = [&] {
        throw NotCompiled("loom", "the value type " + name + " (see LOOM_VALUE_TYPES)");
    };
    if (name == "double") {
        if constexpr (LOOM_HAS_DOUBLE) return f(std::type_identity<double>{});
        not_compiled();
    } else if (name == "float") {
        if constexpr (LOOM_HAS_FLOAT) return f(std::type_identity<float>{});
        not_compiled();
    } else if (name == "complex-double") {
        if constexpr (LOOM_HAS_COMPLEX_DOUBLE_)
            return f(std::type_identity<std::complex<double>>{});
        not_compiled();
    } else if (name == "complex-float") {
        if constexpr (LOOM_HAS_COMPLEX_FLOAT_) return f(std::type_identity<std::complex<float>>{});
        not_compiled();
    }
    throw BadInput("loom", "unknown value type '" + name +
                               "' (expected double, float, complex-double or complex-float)");
}

enum class FileFormat { matrix_market, binary };

/// By extension: .mtx is Matrix Market, .bin Loom's binary CSR; BadInput otherwise.
FileFormat file_format(const std::string& path);

/// A sparse matrix file (.mtx or .bin) read into host memory.
template <typename V>
matrix::Csr<V, index_type> read_matrix(const std::string& path);

/// Whether a matrix file holds complex values, from its header (Matrix Market's field, the
/// value type code of a binary file). False for a binary file whose header cannot be read:
/// reading it then reports why.
bool holds_complex_values(const std::string& path);

/// Reads a matrix file in the type its values have (complex<double> for complex values,
/// double otherwise) and returns f(matrix). Only that type need be compiled: NotCompiled names
/// the file and the type when this build leaves it out (LOOM_VALUE_TYPES).
template <typename F>
int with_stored_matrix(const std::string& path, F&& f)
{
    if (holds_complex_values(path)) {
        if constexpr (LOOM_HAS_COMPLEX_DOUBLE_) {
            return f(read_matrix<std::complex<double>>(path));
        } else {
            throw NotCompiled("loom", "the value type complex-double, which the values of '" +
                                          path + "' need (see LOOM_VALUE_TYPES)");
        }
    }
    if constexpr (LOOM_HAS_DOUBLE) {
        return f(read_matrix<double>(path));
    } else {
        throw NotCompiled("loom", "the value type double, which reading '" + path +
                                      "' (not complex) needs (see LOOM_VALUE_TYPES)");
    }
}

/// Writes A as .mtx or .bin, by the extension of path.
template <typename V, typename I>
void write_matrix(const std::string& path, const matrix::Csr<V, I>& A)
{
    if (file_format(path) == FileFormat::binary) {
        matrix::write_binary(path, A);
    } else {
        matrix::write_mtx(path, A);
    }
}

/// The generator specs of matrix::generate_csr, for help texts.
inline constexpr const char* generator_help =
    "  poisson3d:N[:7|27]         3D Poisson, N^3 grid, 7- or 27-point stencil (default 7)\n"
    "  poisson2d:N[:5|9]          2D Poisson, N^2 grid, 5- or 9-point stencil (default 5)\n"
    "  powerlaw:ROWS:AVG[:SEED]   square, power-law row lengths of mean AVG\n"
    "  random:ROWS:COLS:PER_ROW[:SEED]  PER_ROW uniformly drawn columns in every row";

/// The matrix a generator spec describes, in host memory. BadInput for a malformed spec.
template <typename V>
matrix::Csr<V, index_type> generate_matrix(const std::string& spec)
{
    return matrix::generate_csr<V, index_type>(detail::host_executor(), spec);
}

/// A scalar option: "2.5", or "re,im" for a complex value. BadInput names the option.
std::complex<double> parse_scalar(const std::string& text, const std::string& option);

/// The scalar as V; BadInput when V is real and the scalar has an imaginary part.
template <typename V>
V scalar_as(std::complex<double> value, const std::string& option)
{
    if constexpr (is_complex_v<V>) {
        using R = remove_complex_t<V>;
        return V(static_cast<R>(value.real()), static_cast<R>(value.imag()));
    } else {
        if (value.imag() != 0) {
            throw BadInput("loom", option +
                                       " has an imaginary part, but the value type is real "
                                       "(use --type complex-double)");
        }
        return static_cast<V>(value.real());
    }
}

}  // namespace loom::cli
