// loom sddmm A.mtx X.mtx Y.mtx -o S.mtx: S = (X Y^T) o pattern(A) on any backend.
#include <CLI/CLI.hpp>

#include "bench/storage_precision.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/matrix/precision.hpp"
#include "loom/sparse/sddmm.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct SddmmCliOptions {
    SampledOperandFiles operands;
    std::string output;
    std::string algorithm = "auto";
    std::string precision = "native";
    ExecOptions run;
};

template <typename V>
int run(std::type_identity<V>, const SddmmCliOptions& options)
{
    const auto exec = options.run.executor();
    const auto host = detail::host_executor();
    // Named, not structured bindings: the lambda below captures them (clang 14, fuzz).
    auto operands = read_sampled_operands<V>(exec, options.operands);
    auto& S = operands.A;
    const auto &X = operands.X, &Y = operands.Y;
    sparse::SddmmOptions sddmm_options;
    sddmm_options.algorithm = sparse::parse_sddmm_algorithm(options.algorithm);
    const auto precision = bench::parse_storage_precision(options.precision);
    if (precision == bench::StoragePrecision::native) {
        sparse::sddmm(V{1}, X, Y, V{0}, S, sddmm_options);
    } else if constexpr (is_complex_v<V>) {
        throw NotSupported("loom sddmm", "16-bit storage takes --type double or float");
    } else {
        bench::with_storage_type(precision, [&]<typename T>(std::type_identity<T>) {
            auto S16 = matrix::convert_precision<T>(S);
            sparse::sddmm(1.0f, matrix::convert_precision<T>(X), matrix::convert_precision<T>(Y),
                          0.0f, S16, sddmm_options);
            S = matrix::convert_precision<V>(S16);
        });
    }
    write_matrix(options.output, matrix::Csr<V, index_type>(host, S));
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<SddmmCliOptions>();
    add_sampled_operands(sub, options->operands);
    add_output(sub, options->output, "Where to write S (.mtx or .bin)", OutputKind::sparse);
    add_choice<sparse::SddmmAlgorithm>(sub, "--algorithm", options->algorithm, "SDDMM kernel");
    add_storage_precision(sub, options->precision);
    add_exec_options(sub, options->run, {.exec = true, .type = TypeOption::named});
    return runner_in_value_type(options);
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(sddmm, "S = (X Y^T) o pattern(A), X and Y dense, on a chosen backend",
                      loom::cli::setup);
