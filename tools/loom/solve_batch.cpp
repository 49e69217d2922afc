// loom solve --batch FOLDER -o OUTDIR: reads every system NAME.mtx of FOLDER (with NAME_b.mtx
// as its right-hand side when present, else b = A * ones), solves them all in one batched call
// (loom/batched/sparse/krylov.hpp) and writes x to OUTDIR/NAME_x.mtx. The solver, the
// preconditioner and the stopping rule are the flags of a single solve.
#include <filesystem>

#include <fmt/core.h>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/batched/sparse/krylov.hpp"
#include "loom/batched/sparse/spmv.hpp"
#include "loom/matrix/io.hpp"
#include "solve_batch.hpp"

namespace loom::cli {
namespace {

/// The right-hand sides pooled as the batch's vectors: NAME_b.mtx, else A * ones.
template <typename V>
Array<V> right_hand_sides(const BatchSolveRequest& request,
                          const matrix::HeteroBatch<V, index_type>& A,
                          const std::vector<std::string>& names)
{
    const auto exec = A.executor();
    const auto host = detail::host_executor();
    std::vector<V> pooled(static_cast<std::size_t>(A.total_rows()));
    Array<V> ones(exec, std::vector<V>(static_cast<std::size_t>(A.total_cols()), V(1)));
    Array<V> products(exec, A.total_rows());
    batched::spmv(V(1), A, ones, V(0), products);
    const auto computed = products.to_host();
    for (size_type b = 0; b < A.batch_count(); ++b) {
        const auto& L = A.layout(b);
        const auto path = std::filesystem::path(request.folder) / (names[b] + "_b.mtx");
        if (!std::filesystem::exists(path)) {
            std::copy_n(computed.begin() + L.y_offset, L.rows, pooled.begin() + L.y_offset);
            continue;
        }
        const auto rhs = matrix::read_dense<V>(host, path.string());
        if (rhs.rows() != L.rows || rhs.cols() != 1) {
            throw DimensionMismatch("loom solve --batch",
                                    path.string() + " is " + std::to_string(rhs.rows()) + " x " +
                                        std::to_string(rhs.cols()) + ", system " + names[b] +
                                        " needs " + std::to_string(L.rows) + " x 1");
        }
        for (int32 i = 0; i < L.rows; ++i) pooled[L.y_offset + i] = rhs.at(i, 0);
    }
    return Array<V>(exec, pooled);
}

template <typename V>
int run(const BatchSolveRequest& request)
{
    const auto exec = request.run.executor();
    std::vector<std::string> names;
    const auto list = matrix::read_batch<V, index_type>(detail::host_executor(), request.folder, &names);
    const matrix::HeteroBatch<V, index_type> A(exec, list);
    const auto b = right_hand_sides(request, A, names);
    Array<V> x(exec, std::vector<V>(static_cast<std::size_t>(A.total_cols()), V(0)));
    batched::KrylovOptions options;
    options.method = names_of(batched::KrylovMethod{}).parse(request.solver, "loom solve --batch");
    options.precond = names_of(batched::BatchPrecond{}).parse(request.precond, "loom solve --batch");
    options.rtol = request.tolerance;
    options.max_iterations = static_cast<int>(request.max_iters);
    options.restart = static_cast<int>(request.restart);
    batched::KrylovHandle<V> handle(exec, options);
    const auto start = std::chrono::steady_clock::now();
    batched::solve(handle, A, b, x);
    exec->synchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const auto outcomes = handle.outcomes();
    if (!request.output.empty()) {
        std::filesystem::create_directories(request.output);
        const auto xs = x.to_host();
        for (size_type s = 0; s < A.batch_count(); ++s) {
            const auto& L = A.layout(s);
            const auto xi = matrix::Dense<V>::from_host(
                detail::host_executor(), {L.rows, 1},
                std::vector<V>(xs.begin() + L.x_offset, xs.begin() + L.x_offset + L.cols));
            write_dense((std::filesystem::path(request.output) / (names[s] + "_x.mtx")).string(), xi);
        }
    }
    int failed = 0;
    int32 most = 0;
    for (size_type s = 0; s < A.batch_count(); ++s) {
        most = std::max(most, outcomes[s].iterations);
        if (outcomes[s].status == batched::KrylovStatus::converged) continue;
        ++failed;
        fmt::print(stderr, "loom solve --batch: {} did not converge ({}, {} iterations, residual {:.3e})\n",
                   names[s], names_of(outcomes[s].status).to_string(outcomes[s].status),
                   outcomes[s].iterations, outcomes[s].residual);
    }
    if (!request.quiet) {
        fmt::print("{} systems from {} on {}: {} converged, at most {} iterations, {:.3g} s\n",
                   A.batch_count(), request.folder, exec->name(), A.batch_count() - failed, most,
                   seconds);
    }
    return failed == 0 ? exit_ok : 3;
}

}  // namespace

int solve_batch(const BatchSolveRequest& request)
{
    return with_value_type(request.run.value_type(false),
                           [&]<typename V>(std::type_identity<V>) { return run<V>(request); });
}

}  // namespace loom::cli
