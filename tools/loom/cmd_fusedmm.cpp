// loom fusedmm A.mtx X.mtx Y.mtx W.mtx --op sigmoid -o Z.mtx:
// Z = edge(X Y^T o pattern(A)) W on any backend, the sampled values never stored.
#include <CLI/CLI.hpp>

#include "bench/storage_precision.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/matrix/precision.hpp"
#include "loom/sparse/fusedmm.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct FusedmmCliOptions {
    SampledOperandFiles operands;
    std::string w;
    std::string output;
    std::string op = "identity";
    std::string precision = "native";
    ExecOptions run;
};

template <typename V>
int run(std::type_identity<V>, const FusedmmCliOptions& options)
{
    if constexpr (is_complex_v<V>) {
        throw NotSupported("loom fusedmm",
                           "FusedMM takes real value types (--type double or float)");
    } else {
        const auto exec = options.run.executor();
        const auto host = detail::host_executor();
        // Named, not structured bindings: the lambda below captures them (clang 14, fuzz).
        const auto operands = read_sampled_operands<V>(exec, options.operands);
        const auto& A = operands.A;
        const auto &X = operands.X, &Y = operands.Y;
        const matrix::Dense<V> W(exec, matrix::read_dense<V>(host, options.w));
        matrix::Dense<V> Z(exec, dim2{A.rows(), W.cols()});
        const auto op = sparse::parse_edge_op(options.op);
        const auto precision = bench::parse_storage_precision(options.precision);
        if (precision == bench::StoragePrecision::native) {
            sparse::fusedmm(op, A, X, Y, W, Z);
        } else {
            bench::with_storage_type(precision, [&]<typename S>(std::type_identity<S>) {
                using matrix::convert_precision;
                matrix::Dense<S> Z16(exec, Z.size());
                sparse::fusedmm(op, convert_precision<S>(A), convert_precision<S>(X),
                                convert_precision<S>(Y), convert_precision<S>(W), Z16);
                Z = convert_precision<V>(Z16);
            });
        }
        write_dense(options.output, Z);
        return exit_ok;
    }
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<FusedmmCliOptions>();
    add_sampled_operands(sub, options->operands);
    sub.add_option("W", options->w, "Dense W, one row per column of A (Matrix Market array)")
        ->required();
    add_output(sub, options->output, "Where to write Z (Matrix Market array)", OutputKind::dense);
    add_choice<sparse::EdgeOp>(
        sub, "--op", options->op,
        "Edge operator on s = x_i . y_j: identity (s), scale (a_ij s), sigmoid");
    add_storage_precision(sub, options->precision);
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named});
    return runner_in_value_type(options);
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(fusedmm, "Z = edge(X Y^T o pattern(A)) W in one pass, on a chosen backend",
                      loom::cli::setup);
