// What several subcommands share: the execution options (--exec, --threads, --type, --json),
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
#include "loom/base/names.hpp"
#include "loom/config.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"

namespace CLI {
class App;
}

namespace loom::cli {

/// The index type of matrices the command line reads and builds.
#if LOOM_HAS_INT32
using index_type = int32;
#else
using index_type = int64;
#endif

/// What --exec means when not given: omp when built with OpenMP, else reference.
inline std::string default_executor() { return OmpExecutor::available() ? "omp" : "reference"; }

/// The executor for --exec (a name of exec_kind_names, or "cuda:N"); `threads` > 0 sets the
/// OpenMP thread count (BadInput with another executor).
std::shared_ptr<const Executor> make_executor(const std::string& name, int threads = 0);

/// The value types --type names.
enum class ValueType { real_double, real_float, complex_double, complex_float };

inline constexpr Name<ValueType> value_type_names[] = {
    {ValueType::real_double, "double", "IEEE double"},
    {ValueType::real_float, "float", "IEEE single"},
    {ValueType::complex_double, "complex-double", "std::complex<double>"},
    {ValueType::complex_float, "complex-float", "std::complex<float>"},
};
constexpr NameTable<ValueType> names_of(ValueType) { return {"value type", value_type_names}; }

/// Returns f(std::type_identity<V>{}) for the value type named (BadInput for an unknown name).
/// NotCompiled when this build leaves that type out (LOOM_VALUE_TYPES).
template <typename F>
int with_value_type(const std::string& name, F&& f)
{
    switch (names_of(ValueType{}).parse(name, "loom")) {
    case ValueType::real_double:
        if constexpr (LOOM_HAS_DOUBLE) return f(std::type_identity<double>{});
        break;
    case ValueType::real_float:
        if constexpr (LOOM_HAS_FLOAT) return f(std::type_identity<float>{});
        break;
    case ValueType::complex_double:
        if constexpr (LOOM_HAS_COMPLEX_DOUBLE_) {
            return f(std::type_identity<std::complex<double>>{});
        }
        break;
    case ValueType::complex_float:
        if constexpr (LOOM_HAS_COMPLEX_FLOAT_) return f(std::type_identity<std::complex<float>>{});
        break;
    }
    throw NotCompiled("loom", "the value type " + name + " (see LOOM_VALUE_TYPES)");
}

/// The options that say where a command computes (--exec, --threads), in which value type
/// (--type) and where its JSON report goes (--json FILE). Declared by add_exec_options, with
/// the same help and checks in every command.
struct ExecOptions {
    std::string exec = default_executor();
    int threads = 0;
    /// A name of value_type_names, or "auto" where the command allows it.
    std::string type = "double";
    std::string json;

    std::shared_ptr<const Executor> executor() const { return make_executor(exec, threads); }
    /// --type, with auto resolved: complex-double for complex input, else double.
    std::string value_type(bool complex_input) const
    {
        if (type != "auto") return type;
        return complex_input ? "complex-double" : "double";
    }
};

/// Whether a command takes --type, and whether `auto` (the type of the input) is one choice.
enum class TypeOption { none, named, named_or_auto };

/// The shared options a command declares.
struct ExecOptionSet {
    bool exec = false;  ///< --exec and --threads
    TypeOption type = TypeOption::none;
    bool json = false;  ///< --json FILE
};

/// Declares the options of `which` on `sub`, bound to `options`. With TypeOption::named_or_auto
/// the default type becomes auto.
void add_exec_options(CLI::App& sub, ExecOptions& options, ExecOptionSet which);

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
