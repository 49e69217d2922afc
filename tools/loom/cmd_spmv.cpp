// loom spmv A.mtx x.mtx -o y.mtx: y = alpha * op(A) * x + beta * y0 on any backend and format.
#include <CLI/CLI.hpp>

#include "bench/spmv_matrix.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct SpmvOptions {
    std::string matrix;
    std::string x;
    std::string output;
    std::string y0;
    std::string mode = "n";
    ScalarOption alpha{"--alpha", "1"};
    ScalarOption beta{"--beta", "0"};
    std::string format = "auto";
    std::string algorithm = "auto";
    ExecOptions run;
};

template <typename V>
int run(std::type_identity<V>, const SpmvOptions& options)
{
    const auto alpha = options.alpha.as<V>();
    const auto beta = options.beta.as<V>();
    const auto mode = sparse::parse_mode(options.mode);
    const auto exec = options.run.executor();
    const auto host = detail::host_executor();

    const bench::SpmvMatrix<V, index_type> A(read_matrix<V>(options.matrix), exec,
                                             bench::parse_spmv_format(options.format),
                                             sparse::parse_spmv_algorithm(options.algorithm));
    const matrix::Dense<V> x(exec, matrix::read_dense<V>(host, options.x));
    const bool transposes = mode == sparse::Mode::transpose || mode == sparse::Mode::conj_transpose;
    const auto y_rows = transposes ? A.size().cols : A.size().rows;
    matrix::Dense<V> y = options.y0.empty()
                             ? matrix::Dense<V>(exec, dim2{y_rows, x.cols()})
                             : matrix::Dense<V>(exec, matrix::read_dense<V>(host, options.y0));
    A.apply(mode, alpha, x, beta, y);
    write_dense(options.output, y);
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<SpmvOptions>();
    sub.add_option("matrix", options->matrix, "Sparse matrix A (.mtx or .bin)")->required();
    sub.add_option("x", options->x, "Vector or multi-vector x (Matrix Market)")->required();
    add_output(sub, options->output, "Where to write y (Matrix Market array)", OutputKind::dense);
    add_choice<sparse::Mode>(sub, "--mode", options->mode,
                             "op(A): n = A, t = A^T, c = conj(A), h = A^H");
    options->alpha.add_to(sub, "Scale of op(A) * x");
    options->beta.add_to(sub, "Scale of y0 (non-zero needs --y0)");
    sub.add_option("--y0", options->y0, "Initial y (Matrix Market), read when beta is not zero");
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named_by_input});
    add_choice<bench::SpmvFormat>(sub, "--format", options->format,
                                  "Storage format of A on the backend");
    add_choice<sparse::SpmvAlgorithm>(sub, "--algorithm", options->algorithm,
                                      "CSR kernel (csr format only)");
    sub.callback([options] {
        if (options->beta.value() != 0.0 && options->y0.empty()) {
            throw CLI::ValidationError("--beta", "a non-zero --beta needs --y0 (the y it scales)");
        }
    });
    return runner_in_input_type(options, [](const SpmvOptions& cli) {
        // x and y0 are Matrix Market files whatever their names.
        const auto complex_array = [](const std::string& path) {
            return !path.empty() &&
                   matrix::read_mtx_header(path).field == matrix::MtxField::complex;
        };
        return holds_complex_values(cli.matrix) || complex_array(cli.x) ||
               complex_array(cli.y0);
    });
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spmv, "y = alpha * op(A) * x + beta * y0 on a chosen backend and format",
                      loom::cli::setup);
