// loom spadd A.mtx B.mtx --alpha a --beta b -o C.mtx: C = alpha * A + beta * B on any backend.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/spadd.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct SpaddCli {
    std::string a;
    std::string b;
    std::string output;
    ScalarOption alpha{"--alpha", "1"};
    ScalarOption beta{"--beta", "1"};
    std::string algorithm = "auto";
    ExecOptions run;
};

template <typename V>
int run(std::type_identity<V>, const SpaddCli& options)
{
    const auto alpha = options.alpha.as<V>();
    const auto beta = options.beta.as<V>();
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
    add_output(sub, options->output, "Where to write C (.mtx or .bin)", OutputKind::sparse);
    options->alpha.add_to(sub, "Scale of A (a number, or re,im)");
    options->beta.add_to(sub, "Scale of B (a number, or re,im)");
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named_or_auto});
    add_choice<sparse::SpaddAlgorithm>(
        sub, "--algorithm", options->algorithm,
        "native, or vendor (cuSPARSE csrgeam2: CUDA, sorted rows, 32-bit indices)");
    sub.footer(
        "C holds every (row, column) that A or B stores, once, columns sorted; duplicate\n"
        "entries of A or B are summed. With --type auto, values are complex when A, B or a\n"
        "scale is.");
    return runner_in_input_type(options, [](const SpaddCli& cli) {
        return holds_complex_values(cli.a) || holds_complex_values(cli.b) ||
               cli.alpha.is_complex() || cli.beta.is_complex();
    });
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spadd, "C = alpha * A + beta * B of two sparse matrices", loom::cli::setup);
