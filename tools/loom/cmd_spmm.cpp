// loom spmm A.mtx B.mtx -o C.mtx: C = op(A) * B with a dense B on any backend.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/spmm.hpp"

namespace loom::cli {
namespace {

struct SpmmCliOptions {
    std::string matrix;
    std::string b;
    std::string output;
    std::string mode = "n";
    std::string algorithm = "auto";
    ExecOptions run;
};

template <typename V>
int run(const SpmmCliOptions& options)
{
    const auto mode = sparse::parse_mode(options.mode);
    const auto exec = options.run.executor();
    const matrix::Csr<V, index_type> A(exec, read_matrix<V>(options.matrix));
    const matrix::Dense<V> B(exec, matrix::read_dense<V>(detail::host_executor(), options.b));
    const bool transposes = mode == sparse::Mode::transpose || mode == sparse::Mode::conj_transpose;
    matrix::Dense<V> C(exec, dim2{transposes ? A.cols() : A.rows(), B.cols()});
    sparse::SpmmOptions spmm_options;
    spmm_options.algorithm = sparse::parse_spmm_algorithm(options.algorithm);
    sparse::spmm(mode, V{1}, A, B, V{0}, C, spmm_options);
    write_dense(options.output, C);
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<SpmmCliOptions>();
    sub.add_option("matrix", options->matrix, "Sparse matrix A (.mtx or .bin)")->required();
    sub.add_option("B", options->b, "Dense matrix B (Matrix Market array)")->required();
    sub.add_option("-o,--output", options->output, "Where to write C (Matrix Market array)")
        ->required();
    sub.add_option("--mode", options->mode, "op(A): n = A, t = A^T, c = conj(A), h = A^H")
        ->check(CLI::IsMember(names_of(sparse::Mode{}).spellings()))
        ->capture_default_str();
    sub.add_option("--algorithm", options->algorithm, "SpMM kernel")
        ->check(CLI::IsMember(names_of(sparse::SpmmAlgorithm{}).spellings()))
        ->capture_default_str();
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named});
    return [options] {
        return with_value_type(options->run.type,
                               [&]<typename V>(std::type_identity<V>) { return run<V>(*options); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(spmm, "C = op(A) * B, A sparse and B dense, on a chosen backend",
                      loom::cli::setup);
