// loom generate SPEC -o A.mtx: Poisson stencils and random patterns, as .mtx or .bin.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct GenerateOptions {
    std::string spec;
    std::string output;
    std::string coordinates;
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<GenerateOptions>();
    sub.add_option("spec", options->spec, "What to generate (see below)")->required();
    add_output(sub, options->output, "Matrix to write (.mtx or .bin)", OutputKind::sparse);
    sub.add_option("--coordinates", options->coordinates,
                   "Also write the nodal coordinates (dense .mtx; elasticity3d only), for "
                   "loom solve --precond amg --coordinates");
    add_exec_options(sub, options->run, {.type = TypeOption::named});
    sub.footer(std::string("Specs:\n") + generator_help);
    return [options] {
        return with_value_type(options->run.type, [&]<typename V>(std::type_identity<V>) {
            if (options->coordinates.empty()) {
                write_matrix(options->output, generate_matrix<V>(options->spec));
                return exit_ok;
            }
            const auto problem = matrix::generate_problem<V, index_type>(
                ReferenceExecutor::create(), options->spec);
            if (problem.coordinates.rows() == 0) {
                throw BadInput("loom generate", "'" + options->spec + "' has no coordinates");
            }
            write_matrix(options->output, problem.A);
            write_dense(options->coordinates, problem.coordinates);
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(generate, "Generate a Poisson or random matrix into a .mtx or .bin file",
                      loom::cli::setup);
