// loom transpose A.mtx -o At.mtx [--conjugate]: A^T (or A^H), rows sorted, on any backend.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct TransposeOptions {
    std::string input;
    std::string output;
    bool conjugate = false;
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<TransposeOptions>();
    sub.add_option("input", options->input, "Matrix A (.mtx or .bin)")->required();
    add_output(sub, options->output, "Where to write A^T (.mtx or .bin)", OutputKind::sparse);
    sub.add_flag("--conjugate", options->conjugate, "Write the conjugate transpose A^H");
    add_exec_options(sub, options->run, {.exec = true});
    sub.footer(
        "Duplicate entries of A stay separate entries of A^T. Values keep their kind (real or\n"
        "complex); --conjugate changes nothing for real values.");
    return [options] {
        const auto exec = options->run.executor();
        return with_stored_matrix_on(exec, options->input, [&](const auto& A) {
            const auto At = options->conjugate ? sparse::conj_transpose(A) : sparse::transpose(A);
            write_matrix(options->output, At);
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(transpose, "Transpose (or conjugate-transpose) a sparse matrix",
                      loom::cli::setup);
