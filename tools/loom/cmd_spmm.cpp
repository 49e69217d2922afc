// loom spmm A.mtx B.mtx -o C.mtx: C = op(A) * B with a dense B on any backend, the operands
// stored in the value type or (--precision fp16|bf16) in 16 bits.
#include <CLI/CLI.hpp>

#include "bench/storage_precision.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/matrix/precision.hpp"
#include "loom/sparse/spmm.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct SpmmCliOptions {
    std::string matrix;
    std::string b;
    std::string output;
    std::string mode = "n";
    std::string algorithm = "auto";
    std::string precision = "native";
    ExecOptions run;
};

template <typename V>
int run(std::type_identity<V>, const SpmmCliOptions& options)
{
    const auto mode = sparse::parse_mode(options.mode);
    const auto exec = options.run.executor();
    const matrix::Csr<V, index_type> A(exec, read_matrix<V>(options.matrix));
    const matrix::Dense<V> B(exec, matrix::read_dense<V>(detail::host_executor(), options.b));
    const bool transposes = mode == sparse::Mode::transpose || mode == sparse::Mode::conj_transpose;
    matrix::Dense<V> C(exec, dim2{transposes ? A.cols() : A.rows(), B.cols()});
    sparse::SpmmOptions spmm_options;
    spmm_options.algorithm = sparse::parse_spmm_algorithm(options.algorithm);
    const auto precision = bench::parse_storage_precision(options.precision);
    if (precision == bench::StoragePrecision::native) {
        sparse::spmm(mode, V{1}, A, B, V{0}, C, spmm_options);
    } else if constexpr (is_complex_v<V>) {
        throw NotSupported("loom spmm", "16-bit storage takes --type double or float");
    } else {
        bench::with_storage_type(precision, [&]<typename S>(std::type_identity<S>) {
            matrix::Dense<S> C16(exec, C.size());
            sparse::spmm(mode, 1.0f, matrix::convert_precision<S>(A),
                         matrix::convert_precision<S>(B), 0.0f, C16, spmm_options);
            C = matrix::convert_precision<V>(C16);
        });
    }
    write_dense(options.output, C);
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<SpmmCliOptions>();
    sub.add_option("matrix", options->matrix, "Sparse matrix A (.mtx or .bin)")->required();
    sub.add_option("B", options->b, "Dense matrix B (Matrix Market array)")->required();
    add_output(sub, options->output, "Where to write C (Matrix Market array)", OutputKind::dense);
    add_choice<sparse::Mode>(sub, "--mode", options->mode,
                             "op(A): n = A, t = A^T, c = conj(A), h = A^H");
    add_choice<sparse::SpmmAlgorithm>(sub, "--algorithm", options->algorithm, "SpMM kernel");
    add_storage_precision(sub, options->precision);
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named});
    return runner_in_value_type(options);
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spmm, "C = op(A) * B, A sparse and B dense, on a chosen backend",
                      loom::cli::setup);
