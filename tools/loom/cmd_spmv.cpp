// loom spmv A.mtx x.mtx -o y.mtx: y = alpha * op(A) * x + beta * y0 on any backend and format.
#include <CLI/CLI.hpp>

#include "bench/spmv_matrix.hpp"
#include "cli_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct SpmvOptions {
    std::string matrix;
    std::string x;
    std::string output;
    std::string y0;
    std::string mode = "n";
    std::string alpha = "1";
    std::string beta = "0";
    std::string format = "auto";
    std::string algorithm = "auto";
    ExecOptions run;
};

template <typename V>
int run(const SpmvOptions& options)
{
    const auto alpha = scalar_as<V>(parse_scalar(options.alpha, "--alpha"), "--alpha");
    const auto beta = scalar_as<V>(parse_scalar(options.beta, "--beta"), "--beta");
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
    sub.add_option("-o,--output", options->output, "Where to write y (Matrix Market array)")
        ->required()
        ->check(dense_output_check());
    add_choice<sparse::Mode>(sub, "--mode", options->mode,
                             "op(A): n = A, t = A^T, c = conj(A), h = A^H");
    sub.add_option("--alpha", options->alpha, "Scale of op(A) * x")
        ->check(scalar_validator())
        ->capture_default_str();
    sub.add_option("--beta", options->beta, "Scale of y0 (non-zero needs --y0)")
        ->check(scalar_validator())
        ->capture_default_str();
    sub.add_option("--y0", options->y0, "Initial y (Matrix Market), read when beta is not zero");
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named_by_input});
    add_choice<bench::SpmvFormat>(sub, "--format", options->format,
                                  "Storage format of A on the backend");
    add_choice<sparse::SpmvAlgorithm>(sub, "--algorithm", options->algorithm,
                                      "CSR kernel (csr format only)");
    sub.callback([options] {
        if (parse_scalar(options->beta, "--beta") != 0.0 && options->y0.empty()) {
            throw CLI::ValidationError("--beta", "a non-zero --beta needs --y0 (the y it scales)");
        }
    });
    return [options] {
        // x and y0 are Matrix Market files whatever their names.
        const auto complex_array = [](const std::string& path) {
            return !path.empty() &&
                   matrix::read_mtx_header(path).field == matrix::MtxField::complex;
        };
        const bool complex = holds_complex_values(options->matrix) ||
                             complex_array(options->x) || complex_array(options->y0);
        return with_value_type(options->run.value_type(complex),
                               [&]<typename V>(std::type_identity<V>) { return run<V>(*options); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spmv, "y = alpha * op(A) * x + beta * y0 on a chosen backend and format",
                      loom::cli::setup);
