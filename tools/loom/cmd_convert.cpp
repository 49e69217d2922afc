// loom convert A.mtx -o B.bin: between Matrix Market and Loom's binary CSR, by extension.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct ConvertOptions {
    std::string input;
    std::string output;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<ConvertOptions>();
    sub.add_option("input", options->input, "Matrix to read (.mtx or .bin)")->required();
    add_output(sub, options->output, "Matrix to write (.mtx or .bin)", OutputKind::sparse);
    sub.footer(
        "Values keep their kind (real or complex). Symmetric Matrix Market files are\n"
        "written out with all their entries.");
    return [options] {
        return with_stored_matrix(options->input, [&](const auto& A) {
            write_matrix(options->output, A);
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(convert, "Convert a matrix between Matrix Market (.mtx) and binary (.bin)",
                      loom::cli::setup);
