// loom trisolve T.mtx b.mtx -o x.mtx [--upper] [--unit] [--op OP] [--algorithm ...]:
// x = op(T)^-1 b for a triangular sparse T, on any backend.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct TrisolveOptions {
    std::string matrix;
    std::string rhs;
    std::string output;
    bool upper = false;
    bool unit = false;
    std::string op = "n";
    std::string algorithm = "automatic";
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<TrisolveOptions>();
    sub.add_option("matrix", options->matrix, "Triangular sparse matrix T (.mtx or .bin)")
        ->required();
    sub.add_option("b", options->rhs, "Right-hand side(s) b (Matrix Market array)")->required();
    add_output(sub, options->output, "Where to write x (Matrix Market array)", OutputKind::dense);
    sub.add_flag("--upper", options->upper, "T is upper triangular (default: lower)");
    sub.add_flag("--unit", options->unit, "T's diagonal is all ones (stored entries ignored)");
    add_choice<blas::Op>(sub, "--op", options->op, "op(T): n = T, t = T^T, h = T^H");
    add_choice<sparse::SptrsvAlgorithm>(sub, "--algorithm", options->algorithm,
                                        "The solve's algorithm (listed below)");
    add_exec_options(sub, options->run, {.exec = true});
    sub.footer(
        "T must hold no entry outside its triangle, and (without --unit) no zero or missing\n"
        "diagonal entry: both are errors naming the row.\n"
        "ALGORITHMS:\n" +
        names_of(sparse::SptrsvAlgorithm{}).help());
    return [options] {
        const sparse::SptrsvOptions solve{
            .algorithm = sparse::parse_sptrsv_algorithm(options->algorithm),
            .uplo = options->upper ? blas::Uplo::upper : blas::Uplo::lower,
            .diag = options->unit ? blas::Diag::unit : blas::Diag::non_unit,
            .op = blas::parse_op(options->op)};
        const auto exec = options->run.executor();
        return with_stored_matrix(options->matrix, [&](const auto& T_host) {
            using Matrix = std::decay_t<decltype(T_host)>;
            using V = typename Matrix::value_type;
            const auto host = detail::host_executor();
            const Matrix T(exec, T_host);
            const matrix::Dense<V> b(exec, matrix::read_dense<V>(host, options->rhs));
            matrix::Dense<V> x(exec, b.size());
            sparse::sptrsv(T, b, x, solve);
            write_dense(options->output, x);
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(trisolve, "Solve with a sparse triangular matrix: x = op(T)^-1 b",
                      loom::cli::setup);
