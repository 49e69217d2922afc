// loom convert A.mtx -o B.bin: between Matrix Market and Loom's binary CSR, by extension.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"

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
    sub.add_option("-o,--output", options->output, "Matrix to write (.mtx or .bin)")->required()
        ->check(matrix_file_check());
    sub.footer(
        "Values keep their kind (real or complex). Symmetric Matrix Market files are\n"
        "written out with all their entries.");
    return [options] {
        file_format(options->output);  // a bad output name fails before the input is read
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
