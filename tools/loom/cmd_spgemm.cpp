// loom spgemm A.mtx B.mtx -o C.mtx: C = A * B on any backend.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/spgemm.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct SpgemmCli {
    std::string a;
    std::string b;
    std::string output;
    std::string algorithm = "auto";
    bool unsorted = false;
    ExecOptions run;
};

template <typename V>
int run(std::type_identity<V>, const SpgemmCli& cli)
{
    const auto exec = cli.run.executor();
    const matrix::Csr<V, index_type> A(exec, read_matrix<V>(cli.a));
    const matrix::Csr<V, index_type> B(exec, read_matrix<V>(cli.b));
    const auto C = sparse::spgemm(
        A, B, {.algorithm = sparse::parse_spgemm_algorithm(cli.algorithm),
               .sort_output = !cli.unsorted});
    write_matrix(cli.output, matrix::Csr<V, index_type>(detail::host_executor(), C));
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SpgemmCli>();
    sub.add_option("A", cli->a, "Left factor (.mtx or .bin)")->required();
    sub.add_option("B", cli->b, "Right factor (.mtx or .bin)")->required();
    add_output(sub, cli->output, "Where to write C = A * B (.mtx or .bin)", OutputKind::sparse);
    add_exec_options(sub, cli->run, {.exec = true, .type = TypeOption::named_by_input});
    add_choice<sparse::SpgemmAlgorithm>(sub, "--algorithm", cli->algorithm,
                                        "native, or vendor = cuSPARSE (CUDA only)");
    sub.add_flag("--unsorted", cli->unsorted,
                 "Leave the columns of C's rows in the kernel's order (faster on CUDA)");
    return runner_in_input_type(cli, [](const SpgemmCli& options) {
        return holds_complex_values(options.a) || holds_complex_values(options.b);
    });
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spgemm, "C = A * B for sparse A and B on a chosen backend",
                      loom::cli::setup);
