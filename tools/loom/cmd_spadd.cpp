// loom spadd A.mtx B.mtx --alpha a --beta b -o C.mtx: C = alpha * A + beta * B on any backend.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/spadd.hpp"

namespace loom::cli {
namespace {

struct SpaddCli {
    std::string a;
    std::string b;
    std::string output;
    std::string alpha = "1";
    std::string beta = "1";
    std::string algorithm = "auto";
    ExecOptions run;
};

template <typename V>
int run(const SpaddCli& options)
{
    const auto alpha = scalar_as<V>(parse_scalar(options.alpha, "--alpha"), "--alpha");
    const auto beta = scalar_as<V>(parse_scalar(options.beta, "--beta"), "--beta");
    const auto exec = options.run.executor();
    using Csr = matrix::Csr<V, index_type>;
    const Csr A(exec, read_matrix<V>(options.a));
    const Csr B(exec, read_matrix<V>(options.b));
    const auto C = sparse::spadd(alpha, A, beta, B,
                                 {sparse::parse_spadd_algorithm(options.algorithm)});
    write_matrix(options.output, Csr(detail::host_executor(), C));
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<SpaddCli>();
    sub.add_option("A", options->a, "Sparse matrix A (.mtx or .bin)")->required();
    sub.add_option("B", options->b, "Sparse matrix B of A's shape (.mtx or .bin)")->required();
    sub.add_option("-o,--output", options->output, "Where to write C (.mtx or .bin)")->required()
        ->check(matrix_file_check());
    sub.add_option("--alpha", options->alpha, "Scale of A (a number, or re,im)")
        ->check(scalar_validator())
        ->capture_default_str();
    sub.add_option("--beta", options->beta, "Scale of B (a number, or re,im)")
        ->check(scalar_validator())
        ->capture_default_str();
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named_or_auto});
    add_choice<sparse::SpaddAlgorithm>(
        sub, "--algorithm", options->algorithm,
        "native, or vendor (cuSPARSE csrgeam2: CUDA, sorted rows, 32-bit indices)");
    sub.footer(
        "C holds every (row, column) that A or B stores, once, columns sorted; duplicate\n"
        "entries of A or B are summed. With --type auto, values are complex when A, B or a\n"
        "scale is.");
    return [options] {
        file_format(options->output);  // a bad output name fails before the inputs are read
        const bool complex = holds_complex_values(options->a) || holds_complex_values(options->b) ||
                             parse_scalar(options->alpha, "--alpha").imag() != 0 ||
                             parse_scalar(options->beta, "--beta").imag() != 0;
        return with_value_type(options->run.value_type(complex),
                               [&]<typename V>(std::type_identity<V>) { return run<V>(*options); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spadd, "C = alpha * A + beta * B of two sparse matrices", loom::cli::setup);
