// loom factor A.mtx --type KIND -o L.mtx [U.mtx]: an
// incomplete factorization of A on any backend; L (and U for the ILU kinds) written out.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "ilu_options.hpp"
#include "loom/sparse/ilu.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct FactorOptions {
    std::string input;
    std::vector<std::string> outputs;
    IluCli factorization;
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<FactorOptions>();
    sub.add_option("input", options->input, "Square matrix A (.mtx or .bin)")->required();
    add_output(sub, options->outputs, "Where to write L, then U (ILU kinds; .mtx or .bin)",
               OutputKind::sparse, 2);
    options->factorization.add_to(sub, "--type");
    add_exec_options(sub, options->run, {.exec = true});
    sub.footer(
        "ILU kinds write L (unit diagonal stored) and U; give both file names. IC kinds write\n"
        "L with A ~ L L^H. The diagonal shift used, if any, is printed.\n"
        "TYPES:\n" +
        names_of(sparse::IluKind{}).help());
    return [options] {
        const auto factorization = options->factorization.options("loom factor");
        const auto kind = factorization.kind;
        const bool cholesky = sparse::is_cholesky(kind);
        if (options->outputs.size() != (cholesky ? 1u : 2u)) {
            throw BadInput("loom factor", fmt::format("--type {} writes {}; give {} output file{}",
                                                      options->factorization.kind,
                                                      cholesky ? "L" : "L and U",
                                                      cholesky ? 1 : 2, cholesky ? "" : "s"));
        }
        const auto exec = options->run.executor();
        return with_stored_matrix(options->input, [&](const auto& A_host) {
            using Matrix = std::decay_t<decltype(A_host)>;
            using V = typename Matrix::value_type;
            using I = typename Matrix::index_type;
            const Matrix A(exec, A_host);
            sparse::IluHandle<V, I> handle(factorization);
            Matrix L, U;
            sparse::ilu_symbolic(handle, A, L, U);
            sparse::ilu_numeric(handle, A, L, U);
            write_matrix(options->outputs[0], Matrix(detail::host_executor(), L));
            if (!cholesky) write_matrix(options->outputs[1], Matrix(detail::host_executor(), U));
            fmt::print("{}: nnz(A) {}, nnz(L) {}{}, levels {}{}\n", sparse::to_string(kind),
                       A.nnz(), handle.l_nnz(),
                       cholesky ? "" : fmt::format(", nnz(U) {}", handle.u_nnz()),
                       handle.levels(),
                       handle.shift() > 0 ? fmt::format(", diagonal shift {:g}", handle.shift())
                                          : "");
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(factor, "Incomplete factorization (ILU, IC and variants) of a matrix",
                      loom::cli::setup);
