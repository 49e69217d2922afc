// The options of a command that name what it writes (-o FILE of a kind, checked while the
// command line is parsed) and the scalars it scales by (--alpha, --beta), and the runner of a
// command whose value type follows its input. Declared once here so that every command
// checks them alike (before this, loom spmm, sddmm and fusedmm took any -o name and failed
// only after computing).
#pragma once

#include <complex>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cli_support.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace loom::cli {

/// What a command writes with -o, which decides the names -o accepts: a bad name is a usage
/// error found before any input is read.
enum class OutputKind {
    sparse,  ///< a sparse matrix, .mtx or .bin (write_matrix)
    dense,   ///< a dense result, a Matrix Market array: .mtx (write_dense)
    text,    ///< numbers one per line, any name (write_index_file)
};

/// Declares the required -o,--output FILE of a command; `help` says what is written where.
CLI::Option* add_output(CLI::App& sub, std::string& path, const std::string& help, OutputKind kind);
/// -o taking 1 to `most` files of the kind (loom factor: L, then U).
CLI::Option* add_output(CLI::App& sub, std::vector<std::string>& paths, const std::string& help,
                        OutputKind kind, int most);

/// A scalar option of a command (--alpha, --beta): its text as typed, checked while the
/// command line is parsed and read as a number or re,im (parse_scalar) when the command runs.
struct ScalarOption {
    std::string name;  ///< the option, "--alpha"
    std::string text;  ///< its default until parsed

    /// Declares the option on `sub`, its default shown in --help.
    void add_to(CLI::App& sub, const std::string& help);
    std::complex<double> value() const { return parse_scalar(text, name); }
    bool is_complex() const { return value().imag() != 0; }
    /// The value as V; BadInput when V is real and the value has an imaginary part.
    template <typename V>
    V as() const
    {
        return scalar_as<V>(value(), name);
    }
};

/// runner_in_value_type for a command whose --type may be auto (TypeOption::named_or_auto,
/// named_by_input): complex_input(*options), asked when the command runs, says whether its
/// input is complex (ExecOptions::value_type), and the runner calls
/// run(std::type_identity<V>{}, *options) in the type that follows.
template <typename Options, typename ComplexInput>
std::function<int()> runner_in_input_type(std::shared_ptr<Options> options,
                                          ComplexInput complex_input)
{
    return [options, complex_input] {
        const auto type = options->run.value_type(complex_input(*options));
        return with_value_type(type, [&]<typename V>(std::type_identity<V> value_type) {
            return run(value_type, *options);
        });
    };
}

}  // namespace loom::cli
