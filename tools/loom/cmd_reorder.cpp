// loom reorder A.mtx --rcm|--amd -o B.mtx [--perm p.txt]: B = P A P^T with P the reverse
// Cuthill-McKee or the approximate minimum degree ordering of A's graph.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "index_file.hpp"
#include "loom/graph/amd.hpp"
#include "loom/graph/rcm.hpp"
#include "loom/matrix/permutation.hpp"
#include "operand_options.hpp"

namespace loom::cli {
namespace {

struct ReorderOptions {
    std::string input;
    std::string output;
    std::string perm;
    bool rcm = false;
    bool amd = false;
    ExecOptions run;
};

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<ReorderOptions>();
    sub.add_option("input", options->input, "Square matrix A (.mtx or .bin)")->required();
    add_output(sub, options->output, "Where to write B = P A P^T (.mtx or .bin)",
               OutputKind::sparse);
    // Two flags that exclude each other, not an option group: CLI11 2.1 took an empty
    // argument ("") for the name of the group (which has none) and looped for ever
    // (`loom reorder A.mtx "" --x`, a fuzz_cli finding).
    auto* rcm = sub.add_flag("--rcm", options->rcm, "Reverse Cuthill-McKee: a small bandwidth");
    sub.add_flag("--amd", options->amd,
                 "Approximate minimum degree (SuiteSparse AMD): little Cholesky/LU fill")
        ->excludes(rcm);
    sub.callback([options] {
        if (!options->rcm && !options->amd) throw CLI::RequiredError("--rcm or --amd");
    });
    sub.add_option("--perm", options->perm,
                   "Also write the permutation: line k holds the 0-based original index of the "
                   "row that becomes row k");
    add_exec_options(sub, options->run, {.exec = true});
    sub.footer(
        "The ordering itself is computed on the host (it is sequential); the permutation of\n"
        "the matrix runs on the backend. An asymmetric pattern is ordered by its symmetrized\n"
        "graph. Prints the bandwidth before and after.");
    return [options] {
        const auto exec = options->run.executor();
        return with_stored_matrix_on(exec, options->input, [&](const auto& A) {
            const matrix::Permutation<index_type> P(exec,
                                                    options->amd ? graph::amd(A) : graph::rcm(A));
            const auto B = P.permute(A);
            write_matrix(options->output, B);
            if (!options->perm.empty()) write_index_file(options->perm, P.indices());
            std::cout << "bandwidth " << graph::bandwidth(A) << " -> " << graph::bandwidth(B)
                      << ", profile " << graph::profile(A) << " -> " << graph::profile(B) << '\n';
            return exit_ok;
        });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(reorder,
                      "Reorder a sparse matrix (reverse Cuthill-McKee or approximate minimum "
                      "degree): B = P A P^T",
                      loom::cli::setup);
