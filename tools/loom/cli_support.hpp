// What several subcommands share: the execution options (--exec, --threads, --type, --json),
// matrix files chosen by extension, generator specs and scalars.
#pragma once

#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/names.hpp"
#include "loom/config.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "output_file.hpp"

namespace CLI {
class App;
class Option;
class Validator;
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

LOOM_NAME_TABLE(ValueType, value_type_names, "value type",
    {ValueType::real_double, "double", "IEEE double"},
    {ValueType::real_float, "float", "IEEE single"},
    {ValueType::complex_double, "complex-double", "std::complex<double>"},
    {ValueType::complex_float, "complex-float", "std::complex<float>"},
);

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

/// The runner of a command that works in the value type --type names (options->run.type):
/// it calls run(std::type_identity<V>{}, *options), the command's own function template,
/// found beside its Options struct (argument-dependent lookup).
template <typename Options>
std::function<int()> runner_in_value_type(std::shared_ptr<Options> options)
{
    return [options] {
        return with_value_type(options->run.type, [&]<typename V>(std::type_identity<V> type) {
            return run(type, *options);
        });
    };
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
/// named_by_input: the named types are the choices, and without --type the input's type is
/// taken (as auto would), so that a complex file needs no --type.
enum class TypeOption { none, named, named_or_auto, named_by_input };

/// The shared options a command declares.
struct ExecOptionSet {
    bool exec = false;  ///< --exec and --threads
    TypeOption type = TypeOption::none;
    bool json = false;  ///< --json FILE
};

/// Checks of numeric options, with messages that show numbers readably (CLI11's own print
/// the largest double with all its 309 digits) and refuse what is not finite ("1e400").
CLI::Validator positive_number();
CLI::Validator non_negative_number();

/// A long piece of user input, cut for a message ("aaaa...").
std::string bounded(std::string_view text, std::size_t limit = 80);

/// A number for a message: "1.79769e+308", "nan", "inf", "(1, -2)" for complex values.
std::string readable(double value);
template <typename V>
std::string readable(const V& value)
{
    if constexpr (is_complex_v<V>) {
        return "(" + readable(double(value.real())) + ", " + readable(double(value.imag())) + ")";
    } else {
        return readable(double(value));
    }
}

/// Whether a value (both parts of a complex one) is neither NaN nor infinite.
template <typename V>
bool is_finite(const V& value)
{
    if constexpr (is_complex_v<V>) {
        return std::isfinite(value.real()) && std::isfinite(value.imag());
    } else {
        return std::isfinite(value);
    }
}

/// Declares an option (or a list, with ->delimiter(',')) whose values are `choices`, checked
/// by the parser, its default shown in --help.
CLI::Option* add_choice(CLI::App& sub, const std::string& name, std::string& value,
                        const std::string& help, std::vector<std::string> choices);
CLI::Option* add_choice(CLI::App& sub, const std::string& name, std::vector<std::string>& values,
                        const std::string& help, std::vector<std::string> choices);
/// add_choice with the spellings of enum E's name table (loom/base/names.hpp) as the choices.
template <typename E, typename Value>
CLI::Option* add_choice(CLI::App& sub, const std::string& name, Value& value,
                        const std::string& help)
{
    return add_choice(sub, name, value, help, names_of(E{}).spellings());
}

/// Declares --precision: the storage of a kernel's sparse values and dense operands, native
/// (--type) or 16 bits (bench/storage_precision.hpp).
CLI::Option* add_storage_precision(CLI::App& sub, std::string& precision);

/// Declares --exec (checked against the executor names) and --threads (checked to lie in
/// [1, max_omp_threads] (loom/base/resources.hpp)) on `sub`.
void add_exec_and_threads(CLI::App& sub, std::string& exec, int& threads);

/// Declares the options of `which` on `sub`, bound to `options`. With TypeOption::named_or_auto
/// and named_by_input the default type becomes auto.
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

/// with_stored_matrix with the matrix copied to `exec` first: f(A) computes on the executor.
template <typename F>
int with_stored_matrix_on(const std::shared_ptr<const Executor>& exec, const std::string& path,
                          F&& f)
{
    return with_stored_matrix(path, [&](const auto& A_host) {
        using Matrix = std::decay_t<decltype(A_host)>;
        return f(Matrix(exec, A_host));
    });
}

/// Writes A as .mtx or .bin, by the extension of path, through write_output (never over
/// the previous file unless the write succeeded).
template <typename V, typename I>
void write_matrix(const std::string& path, const matrix::Csr<V, I>& A)
{
    const auto format = file_format(path);
    write_output(path, [&](const std::string& file) {
        if (format == FileFormat::binary) {
            matrix::write_binary(file, A);
        } else {
            matrix::write_mtx(file, A);
        }
    });
}

/// BadInput unless path names a Matrix Market file: dense results (x, y) are written as
/// Matrix Market arrays, which the binary CSR format cannot hold. Checked before any work.
void check_dense_output(const std::string& path);

/// -o checks, so that a bad output name is a command-line error found before any work:
/// .mtx or .bin for a sparse matrix, .mtx for a dense result.
CLI::Validator matrix_file_check();
CLI::Validator dense_output_check();

/// Where a solve writes x for `-o output`: output itself when it converged (or overwriting
/// was asked), else OUTPUT-STEM.not-converged.mtx beside it, so that an iterate that did not
/// converge never replaces the user's file and still reads as Matrix Market.
std::string solution_path(const std::string& output, bool converged, bool overwrite_unconverged);

/// Writes a dense result as a Matrix Market array through write_output.
template <typename V>
void write_dense(const std::string& path, const matrix::Dense<V>& x)
{
    check_dense_output(path);
    write_output(path, [&](const std::string& file) { matrix::write_mtx(file, x); });
}

/// The operands of the sampled products (loom sddmm, loom fusedmm), the first three
/// arguments: the matrix whose pattern is sampled, dense X (a row per row of A) and dense Y (a
/// row per column of A).
struct SampledOperandFiles {
    std::string matrix;
    std::string x;
    std::string y;
};
void add_sampled_operands(CLI::App& sub, SampledOperandFiles& files);

template <typename V>
struct SampledOperands {
    matrix::Csr<V, index_type> A;
    matrix::Dense<V> X;
    matrix::Dense<V> Y;
};

/// The three files read onto exec.
template <typename V>
SampledOperands<V> read_sampled_operands(std::shared_ptr<const Executor> exec,
                                         const SampledOperandFiles& files)
{
    const auto host = detail::host_executor();
    return {matrix::Csr<V, index_type>(exec, read_matrix<V>(files.matrix)),
            matrix::Dense<V>(exec, matrix::read_dense<V>(host, files.x)),
            matrix::Dense<V>(exec, matrix::read_dense<V>(host, files.y))};
}

/// The generator specs of matrix::generate_csr, for help texts.
inline constexpr const char* generator_help =
    "  poisson3d:N[:7|27]         3D Poisson, N^3 grid, 7- or 27-point stencil (default 7)\n"
    "  poisson2d:N[:5|9]          2D Poisson, N^2 grid, 5- or 9-point stencil (default 5)\n"
    "  elasticity3d:N             3D linear elasticity, N^3 hexahedra, clamped at x = 0\n"
    "  powerlaw:ROWS:AVG[:SEED]   square, power-law row lengths of mean AVG\n"
    "  random:ROWS:COLS:PER_ROW[:SEED]  PER_ROW uniformly drawn columns in every row\n"
    "  rmat:SCALE:EDGE_FACTOR[:SEED]  R-MAT graph (a,b,c,d = .57,.19,.19,.05), 2^SCALE vertices,\n"
    "                             EDGE_FACTOR * 2^SCALE directed edges (repeats merged,\n"
    "                             self-loops kept), hubs at small ids\n"
    "  graph500:SCALE:EDGE_FACTOR[:SEED]  the same undirected (symmetric), vertices randomly\n"
    "                             renumbered (Graph500's graph)";

/// The matrix a generator spec describes, in host memory. BadInput for a malformed spec.
template <typename V>
matrix::Csr<V, index_type> generate_matrix(const std::string& spec)
{
    return matrix::generate_csr<V, index_type>(detail::host_executor(), spec);
}

/// A scalar option: "2.5", or "re,im" for a complex value. BadInput names the option.
std::complex<double> parse_scalar(const std::string& text, const std::string& option);

/// Accepts what parse_scalar accepts, so that a bad scalar is a command-line error (exit 1)
/// in every command.
CLI::Validator scalar_validator();

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
