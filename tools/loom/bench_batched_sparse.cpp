// loom bench batched-spmv / batched-solve: batched sparse SpMV and Krylov solves over
// generated batches (shared-pattern 3D Poisson-like blocks of 64-1024 rows with varied
// coefficients; heterogeneous mixes of generated blocks of 32-1024 rows and real matrices),
// checked against a loop of the reference first, then timed: time, counted GB/s, the
// fraction of the copy bandwidth measured in the same run, and the ratio to the peer (a loop
// of single SpMVs - cuSPARSE on CUDA - or of Loom's single-system CG over the same systems,
// timed on --peer-count of them and scaled to the batch; for solves on CUDA also cuSOLVER's
// batched sparse QR, timed on --qr-count of them).
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "bench/bandwidth.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "bench_support.hpp"
#include "command.hpp"
#include "loom/batched/sparse/krylov.hpp"
#include "loom/batched/sparse/spmv.hpp"
#include "loom/base/names.hpp"
#include "loom/solver/config.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::cli {
namespace {

using I = index_type;

/// What a batched routine is compared with (--peer).
enum class LoopPeer { loop, none };

LOOM_NAME_TABLE(LoopPeer, loop_peer_names, "peer",
    {LoopPeer::loop, "loop", "a loop of single calls, timed on --peer-count and scaled"},
    {LoopPeer::none, "none", "no peer"},
);

struct BatchedSparseCli {
    size_type rows = 512;
    size_type batch = 65536;
    bool hetero = false;
    std::string formats = "csr,coo,ell";
    std::string kernel = "auto";
    std::vector<std::string> matrices;
    std::string solver = "cg";
    std::string precond = "jacobi";
    double tolerance = 1e-10;
    int max_iters = 1000;
    std::string peer = "loop";  ///< a loop_peer_names name
    size_type peer_count = 0;  ///< 0: the whole batch
    size_type qr_count = 4096;  ///< systems cuSOLVER's batched QR is timed on (0: none)
    size_type check = 256;
    BenchRun run{10};
};

bool has_peer(const BatchedSparseCli& cli)
{
    return names_of(LoopPeer{}).parse(cli.peer, "loom bench --peer") == LoopPeer::loop;
}

/// "a,b,c" as its items.
std::vector<std::string> split_list(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');) {
        if (!item.empty()) items.push_back(item);
    }
    return items;
}

/// An nx x ny x nz grid of about `rows` points, as cubic as it gets.
std::array<size_type, 3> grid_for(size_type rows)
{
    const auto side = std::max<size_type>(1, static_cast<size_type>(std::cbrt(double(rows))));
    const size_type nz = std::max<size_type>(1, (rows + side * side - 1) / (side * side));
    return {side, side, nz};
}

template <typename V>
matrix::BatchCsr<V, I> shared_batch(const std::shared_ptr<const Executor>& exec,
                                    const BatchedSparseCli& cli)
{
    const auto [nx, ny, nz] = grid_for(cli.rows);
    return matrix::poisson_batch<V, I>(exec, cli.batch, nx, ny, nz, 1);
}

/// The heterogeneous mix: the real matrices first, then generated blocks of 32-1024 rows.
template <typename V>
std::vector<matrix::Csr<V, I>> mixed_list(const BatchedSparseCli& cli)
{
    const auto host = detail::host_executor();
    std::vector<matrix::Csr<V, I>> list;
    for (const auto& path : cli.matrices) list.push_back(read_matrix<V>(path));
    for (size_type b = static_cast<size_type>(list.size()); b < cli.batch; ++b) {
        const size_type rows = 32 + (b * 2654435761u) % 993;
        const auto [nx, ny, nz] = grid_for(rows);
        list.push_back(matrix::poisson_batch<V, I>(host, 1, nx, ny, nz, b + 1).item(0));
    }
    return list;
}

/// Bytes an SpMV over the batch must move: each format's stored arrays once, x read, y written.
template <typename V>
double hetero_bytes(const matrix::HeteroBatch<V, I>& A)
{
    double bytes = 0;
    for (const auto& L : A.host_layouts()) {
        const double ell = double(L.ell_width) * L.rows * (sizeof(I) + sizeof(V));
        const double coo = double(L.coo_nnz) * (2 * sizeof(I) + sizeof(V));
        switch (L.format) {
        case matrix::BatchFormat::csr: bytes += (L.rows + 1.0) * sizeof(I) + double(L.nnz) * (sizeof(I) + sizeof(V)); break;
        case matrix::BatchFormat::coo: bytes += coo; break;
        case matrix::BatchFormat::ell: bytes += ell; break;
        case matrix::BatchFormat::hybrid: bytes += ell + coo; break;
        }
        bytes += double(L.cols + L.rows) * sizeof(V);
    }
    return bytes;
}

/// Max relative difference of y_b from the reference SpMV of A_b x_b over the checked entries.
template <typename V, typename GetItem>
double check_spmv(size_type count, size_type checked, GetItem item, const std::vector<V>& xs,
                  const std::vector<V>& ys, const std::vector<size_type>& x_offsets,
                  const std::vector<size_type>& y_offsets)
{
    const auto ref = ReferenceExecutor::create();
    double worst = 0;
    for (size_type k = 0; k < std::min(count, checked); ++k) {
        const size_type b = k < checked / 2 ? k : count - 1 - (k - checked / 2);
        const matrix::Csr<V, I> A(ref, item(b));
        const auto x = matrix::Dense<V>::from_host(
            ref, {A.cols(), 1}, std::vector<V>(xs.begin() + x_offsets[b], xs.begin() + x_offsets[b] + A.cols()));
        matrix::Dense<V> y(ref, {A.rows(), 1});
        sparse::spmv(sparse::Mode::none, V(1), A, x, V(0), y);
        const auto want = y.to_host();
        for (size_type i = 0; i < A.rows(); ++i) {
            worst = std::max(worst, double(std::abs(ys[y_offsets[b] + i] - want[i])) /
                                        std::max(1.0, double(std::abs(want[i]))));
        }
    }
    return worst;
}

/// ||b_s - A_s x_s|| / ||b_s|| of system s, by the reference SpMV (xs, bs: every system's
/// vector, n entries each, on the host).
template <typename V>
double true_residual(const matrix::BatchCsr<V, I>& A, const std::vector<V>& xs,
                     const std::vector<V>& bs, size_type s)
{
    const auto ref = ReferenceExecutor::create();
    const size_type n = A.rows();
    const matrix::Csr<V, I> As(ref, A.item(s));
    const auto xv = matrix::Dense<V>::from_host(ref, {n, 1}, std::vector<V>(xs.begin() + s * n, xs.begin() + (s + 1) * n));
    auto r = matrix::Dense<V>::from_host(ref, {n, 1}, std::vector<V>(bs.begin() + s * n, bs.begin() + (s + 1) * n));
    double bn = 0, rn = 0;
    for (const auto& v : r.to_host()) bn += std::norm(std::complex<double>(v));
    sparse::spmv(sparse::Mode::none, V(-1), As, xv, V(1), r);
    for (const auto& v : r.to_host()) rn += std::norm(std::complex<double>(v));
    return std::sqrt(rn / bn);
}

void print_rows(const std::vector<std::vector<std::string>>& rows)
{
    bench::Table table({"kernel", "time", "GB/s", "of copy", "peer ratio"});
    for (const auto& row : rows) table.add_row(row);
    table.print();
}

template <typename V>
int run_spmv(const BatchedSparseCli& cli)
{
    const auto exec = cli.run.executor();
    const auto copy = bench::measure_copy_bandwidth(
        exec, cli.run.copy_bytes() > 0 ? cli.run.copy_bytes() : (exec->is_host() ? size_t{512} << 20 : size_t{1} << 30));
    nlohmann::ordered_json report{{"benchmark", "batched-spmv"}, {"executor", exec->name()},
                                  {"batch", cli.batch}, {"copy_bandwidth", copy.bytes_per_second}};
    double seconds = 0;
    double bytes = 0;
    double error = 0;
    std::vector<size_type> x_offsets, y_offsets;
    std::function<matrix::Csr<V, I>(size_type)> item;
    std::unique_ptr<matrix::BatchCsr<V, I>> shared;
    std::unique_ptr<matrix::HeteroBatch<V, I>> hetero;
    std::vector<matrix::Csr<V, I>> list;
    if (!cli.hetero) {
        shared = std::make_unique<matrix::BatchCsr<V, I>>(shared_batch<V>(exec, cli));
        const auto& A = *shared;
        auto x = matrix::BatchDense<V>::from_host(exec, A.batch_count(), {A.cols(), 1},
                                                  std::vector<V>(A.batch_count() * A.cols(), V(1)));
        matrix::BatchDense<V> y(exec, A.batch_count(), {A.rows(), 1});
        batched::spmv(V(1), A, x, V(0), y);
        for (size_type b = 0; b < A.batch_count(); ++b) {
            x_offsets.push_back(b * A.cols());
            y_offsets.push_back(b * A.rows());
        }
        item = [&](size_type b) { return A.item(b); };
        error = check_spmv<V>(A.batch_count(), cli.check, item, x.to_host(), y.to_host(), x_offsets, y_offsets);
        seconds = bench::time_kernel(*exec, [&] { batched::spmv(V(1), A, x, V(0), y); },
                                     {.samples = cli.run.reps}).median;
        bytes = double(A.rows() + 1 + A.nnz()) * sizeof(I) +
                double(A.batch_count()) * (double(A.nnz()) + A.rows() + A.cols()) * sizeof(V);
        report["rows"] = A.rows();
        report["nnz_per_matrix"] = A.nnz();
    } else {
        list = mixed_list<V>(cli);
        std::vector<matrix::BatchFormat> formats;
        for (const auto& name : split_list(cli.formats)) formats.push_back(names_of(matrix::BatchFormat{}).parse(name, "loom bench batched-spmv"));
        std::vector<matrix::BatchFormat> per_matrix;
        for (std::size_t b = 0; b < list.size(); ++b) per_matrix.push_back(formats[b % formats.size()]);
        hetero = std::make_unique<matrix::HeteroBatch<V, I>>(exec, list, per_matrix);
        const auto& A = *hetero;
        const Array<V> x(exec, std::vector<V>(A.total_cols(), V(1)));
        Array<V> y(exec, A.total_rows());
        batched::BatchSpmvHandle handle({names_of(batched::SpmvKernel{}).parse(cli.kernel, "loom bench batched-spmv")});
        batched::spmv(handle, V(1), A, x, V(0), y);
        for (const auto& L : A.host_layouts()) {
            x_offsets.push_back(L.x_offset);
            y_offsets.push_back(L.y_offset);
        }
        item = [&](size_type b) { return list[b]; };
        error = check_spmv<V>(A.batch_count(), cli.check, item, x.to_host(), y.to_host(), x_offsets, y_offsets);
        seconds = bench::time_kernel(*exec, [&] { batched::spmv(handle, V(1), A, x, V(0), y); },
                                     {.samples = cli.run.reps}).median;
        bytes = hetero_bytes(A);
        report["total_nnz"] = A.total_nnz();
    }
    if (error > 1e-10) {
        fmt::print(stderr, "loom bench batched-spmv: result differs from the reference loop by {:.3e}\n", error);
        return exit_error;
    }
    // The peer: a loop of single SpMVs (cuSPARSE on CUDA) over peer_count matrices, scaled.
    double peer_seconds = 0;
    // Over the whole batch by default: a subset might sit in cache where the batch does not.
    const size_type peers = cli.peer_count > 0 ? std::min(cli.peer_count, cli.batch) : cli.batch;
    if (has_peer(cli) && peers > 0) {
        std::vector<matrix::Csr<V, I>> items;
        std::vector<matrix::Dense<V>> xs, ys;
        for (size_type b = 0; b < peers; ++b) {
            items.emplace_back(exec, item(b));
            xs.emplace_back(exec, dim2{items.back().cols(), 1});
            xs.back().fill(V(1));
            ys.emplace_back(exec, dim2{items.back().rows(), 1});
        }
        const sparse::SpmvOptions options{exec->is_host() ? sparse::SpmvAlgorithm::automatic : sparse::SpmvAlgorithm::vendor};
        peer_seconds = bench::time_kernel(*exec, [&] {
                           for (size_type b = 0; b < peers; ++b) {
                               sparse::spmv(sparse::Mode::none, V(1), items[b], xs[b], V(0), ys[b], options);
                           }
                       }, {.samples = cli.run.reps}).median * double(cli.batch) / double(peers);
    }
    const double gbs = bytes / seconds / 1e9;
    if (peer_seconds > 0) {
        fmt::print("peer: a loop of {} single calls of loom::sparse::spmv ({}) on {}, one per "
                   "matrix{}\n",
                   peers, exec->is_host() ? "its automatic algorithm" : "the cuSPARSE algorithm",
                   exec->name(),
                   peers < cli.batch ? fmt::format(", scaled to the batch of {}", cli.batch) : "");
    }
    print_rows({{cli.hetero ? "heterogeneous " + cli.formats : "shared pattern", fmt::format("{:.4g} ms", seconds * 1e3),
                 fmt::format("{:.1f}", gbs), fmt::format("{:.0f}%", 100 * bytes / seconds / copy.bytes_per_second),
                 peer_seconds > 0 ? fmt::format("{:.1f}x", peer_seconds / seconds) : "-"}});
    report["seconds"] = seconds;
    report["bytes"] = bytes;
    report["gb_per_s"] = gbs;
    report["fraction_of_copy_bandwidth"] = bytes / seconds / copy.bytes_per_second;
    report["peer"] = exec->is_host() ? "loop of loom::sparse::spmv" : "loop of cuSPARSE SpMV";
    report["peer_seconds_scaled"] = peer_seconds;
    report["peer_ratio"] = peer_seconds > 0 ? peer_seconds / seconds : 0.0;
    report["max_error_vs_reference"] = error;
    write_json(cli.run.json, report);
    return exit_ok;
}

/// cuSOLVER's batched sparse QR on the first qr_count systems (generated alike), checked by
/// the reference SpMV, then timed and scaled to the batch; or why it did not run.
struct QrPeer {
    double seconds = 0;  ///< scaled to the batch; 0 when it did not run
    size_type systems = 0;
    double residual = 0;
    std::string note;
};

template <typename V>
QrPeer time_vendor_qr(const std::shared_ptr<const Executor>& exec, const BatchedSparseCli& cli)
{
    QrPeer peer;
    if (!has_peer(cli) || cli.qr_count == 0) return peer;
    if (exec->kind() != ExecKind::cuda) {
        peer.note = "runs on CUDA executors only";
        return peer;
    }
    BatchedSparseCli sub = cli;
    sub.batch = std::min(cli.qr_count, cli.batch);
    const auto A = shared_batch<V>(exec, sub);
    const size_type n = A.rows();
    const auto ones = matrix::BatchDense<V>::from_host(exec, A.batch_count(), {n, 1},
                                                       std::vector<V>(A.batch_count() * n, V(1)));
    matrix::BatchDense<V> b(exec, A.batch_count(), {n, 1});
    batched::spmv(V(1), A, ones, V(0), b);
    matrix::BatchDense<V> x(exec, A.batch_count(), {n, 1});
    try {
        batched::solve_vendor_qr(A, b, x);
    } catch (const NotSupported& error) {
        peer.note = error.what();
        return peer;
    }
    // Checked first: x solves every system (x = 1), by the reference SpMV on a few of them.
    const auto xs = x.to_host();
    const auto bs = b.to_host();
    for (const size_type s : {size_type{0}, A.batch_count() - 1}) {
        peer.residual = std::max(peer.residual, true_residual(A, xs, bs, s));
    }
    const double seconds = bench::time_kernel(*exec, [&] { batched::solve_vendor_qr(A, b, x); },
                                              {.samples = std::min(cli.run.reps, 3), .max_batch = 1}).median;
    peer.systems = A.batch_count();
    peer.seconds = seconds * double(cli.batch) / double(peer.systems);
    return peer;
}

template <typename V>
int run_solve(const BatchedSparseCli& cli)
{
    const auto exec = cli.run.executor();
    const auto copy = bench::measure_copy_bandwidth(
        exec, cli.run.copy_bytes() > 0 ? cli.run.copy_bytes() : (exec->is_host() ? size_t{512} << 20 : size_t{1} << 30));
    const auto A = shared_batch<V>(exec, cli);
    const size_type n = A.rows();
    batched::KrylovOptions options;
    options.method = names_of(batched::KrylovMethod{}).parse(cli.solver, "loom bench batched-solve");
    options.precond = names_of(batched::BatchPrecond{}).parse(cli.precond, "loom bench batched-solve");
    options.rtol = cli.tolerance;
    options.max_iterations = cli.max_iters;
    batched::KrylovHandle<V> handle(exec, options);
    // b = A * ones, x0 = 0.
    auto ones = matrix::BatchDense<V>::from_host(exec, A.batch_count(), {n, 1}, std::vector<V>(A.batch_count() * n, V(1)));
    matrix::BatchDense<V> b(exec, A.batch_count(), {n, 1});
    batched::spmv(V(1), A, ones, V(0), b);
    matrix::BatchDense<V> x(exec, A.batch_count(), {n, 1});
    const auto solve = [&] {
        x.fill(V(0));
        batched::solve(handle, A, b, x);
    };
    solve();
    // Checked first: every system converged, and its true residual by the reference SpMV.
    const auto outcomes = handle.outcomes();
    const auto xs = x.to_host();
    const auto bs = b.to_host();
    double worst = 0;
    size_type iterations = 0;
    for (const auto& outcome : outcomes) {
        if (outcome.status != batched::KrylovStatus::converged) {
            fmt::print(stderr, "loom bench batched-solve: a system did not converge ({})\n",
                       names_of(outcome.status).to_string(outcome.status));
            return exit_error;
        }
        iterations += outcome.iterations;
    }
    for (size_type k = 0; k < std::min(cli.check, A.batch_count()); ++k) {
        const size_type s = k * (A.batch_count() / std::min(cli.check, A.batch_count()));
        worst = std::max(worst, true_residual(A, xs, bs, s));
    }
    if (!(worst <= 10 * cli.tolerance + 1e-14)) {
        fmt::print(stderr, "loom bench batched-solve: relative residual {:.3e} above the tolerance\n", worst);
        return exit_error;
    }
    const double seconds = bench::time_kernel(*exec, solve, {.samples = cli.run.reps, .max_batch = 1}).median;
    // Bytes an iteration must move from memory, counted per system: its matrix values (65536
    // systems' values do not fit in any cache) and one vector in and one out of the SpMV. The
    // other vector passes of an iteration stay in the team's cache; the shared pattern is
    // read once per launch (counted once).
    const double per_iteration = double(A.nnz()) * sizeof(V) + 2.0 * double(n) * sizeof(V);
    const double bytes = per_iteration * double(iterations) + double(n + 1 + A.nnz()) * sizeof(I);
    double peer_seconds = 0;
    const size_type peers = std::min(cli.peer_count, cli.batch);
    if (has_peer(cli) && peers > 0) {
        const nlohmann::json config{{"solver", cli.solver},
                                    {"preconditioner", cli.precond},
                                    {"criteria", {{"max_iters", cli.max_iters}, {"relative_residual", cli.tolerance}}}};
        const auto factory = solver::from_config<V, I>(config, exec);
        std::vector<std::shared_ptr<LinOp<V>>> solvers;
        std::vector<matrix::Dense<V>> rhs, sol;
        for (size_type s = 0; s < peers; ++s) {
            solvers.push_back(factory->generate(std::make_shared<matrix::Csr<V, I>>(exec, A.item(s))));
            rhs.push_back(matrix::Dense<V>::from_host(exec, {n, 1}, std::vector<V>(bs.begin() + s * n, bs.begin() + (s + 1) * n)));
            sol.emplace_back(exec, dim2{n, 1});
        }
        peer_seconds = bench::time_kernel(*exec, [&] {
                           for (size_type s = 0; s < peers; ++s) {
                               sol[s].fill(V(0));
                               solvers[s]->apply(rhs[s], sol[s]);
                           }
                       }, {.samples = std::min(cli.run.reps, 3), .max_batch = 1}).median * double(cli.batch) / double(peers);
    }
    const auto qr = time_vendor_qr<V>(exec, cli);
    const double gbs = bytes / seconds / 1e9;
    print_rows({{fmt::format("{} + {}, {} systems of {}", cli.solver, cli.precond, A.batch_count(), n),
                 fmt::format("{:.4g} ms", seconds * 1e3), fmt::format("{:.1f}", gbs),
                 fmt::format("{:.0f}%", 100 * bytes / seconds / copy.bytes_per_second),
                 peer_seconds > 0 ? fmt::format("{:.1f}x", peer_seconds / seconds) : "-"}});
    fmt::print("iterations: {:.1f} on average, max relative residual checked {:.3e}\n",
               double(iterations) / double(std::max<size_type>(1, A.batch_count())), worst);
    fmt::print("bytes counted: per system and iteration its values and one vector in and out of "
               "the SpMV\n");
    if (qr.seconds > 0) {
        fmt::print("cuSOLVER csrqrsvBatched (batched sparse QR, deprecated but present in CUDA 13) on "
                   "{} of the systems, scaled to {}: {:.4g} ms, {:.1f}x slower than the batched "
                   "solve (max relative residual {:.3e})\n",
                   qr.systems, A.batch_count(), qr.seconds * 1e3, qr.seconds / seconds, qr.residual);
    } else if (!qr.note.empty()) {
        fmt::print("cuSOLVER csrqrsvBatched peer: {}\n", qr.note);
    }
    if (peer_seconds > 0) {
        fmt::print("peer: a loop of Loom's single-system {} + {} (loom::solver::from_config) on {}, "
                   "timed on {} of the systems and scaled to {}\n",
                   cli.solver, cli.precond, exec->name(), peers, A.batch_count());
    }
    write_json(cli.run.json, nlohmann::ordered_json{
        {"benchmark", "batched-solve"}, {"executor", exec->name()}, {"batch", A.batch_count()},
        {"rows", n}, {"solver", cli.solver}, {"precond", cli.precond}, {"tolerance", cli.tolerance},
        {"seconds", seconds}, {"total_iterations", iterations}, {"bytes_counted", bytes},
        {"gb_per_s", gbs}, {"copy_bandwidth", copy.bytes_per_second},
        {"fraction_of_copy_bandwidth", bytes / seconds / copy.bytes_per_second},
        {"peer", "loop of Loom's single-system solver"}, {"peer_seconds_scaled", peer_seconds},
        {"peer_ratio", peer_seconds > 0 ? peer_seconds / seconds : 0.0}, {"max_relative_residual", worst},
        {"vendor_qr_seconds_scaled", qr.seconds}, {"vendor_qr_ratio", qr.seconds > 0 ? qr.seconds / seconds : 0.0},
        {"vendor_qr_note", qr.note}});
    return exit_ok;
}

void add_common(CLI::App& sub, BatchedSparseCli& cli)
{
    cli.run.add_to(sub);
    sub.add_option("--rows", cli.rows, "Rows of each generated shared-pattern block (64-1024)")
        ->check(CLI::Range(64, 1024))
        ->capture_default_str();
    sub.add_option("--batch", cli.batch, "Matrices in the batch")->check(CLI::PositiveNumber)->capture_default_str();
    add_choice<LoopPeer>(sub, "--peer", cli.peer,
                         "loop (a loop of single calls, scaled from --peer-count) or none");
    sub.add_option("--peer-count", cli.peer_count,
                   "Matrices the peer loop is timed on, scaled to the batch (0: all)")
        ->capture_default_str();
    sub.add_option("--check", cli.check, "Matrices checked against the reference first")->capture_default_str();
}

Runner setup_spmv(CLI::App& sub)
{
    auto cli = std::make_shared<BatchedSparseCli>();
    add_common(sub, *cli);
    sub.add_flag("--hetero", cli->hetero,
                 "A heterogeneous batch (32-1024 rows, formats cycling through --formats, the "
                 "--matrix files first) instead of shared-pattern blocks");
    sub.add_option("--formats", cli->formats, "Formats of the heterogeneous batch: csr,coo,ell,hybrid")->capture_default_str();
    sub.add_option("--kernel", cli->kernel, "CSR kernel of the heterogeneous batch")
        ->check(CLI::IsMember(names_of(batched::SpmvKernel{}).spellings()))
        ->capture_default_str();
    sub.add_option("--matrix", cli->matrices, "Real matrices (.mtx) mixed into the heterogeneous batch");
    return [cli] {
        return with_value_type(cli->run.type, [&]<typename V>(std::type_identity<V>) { return run_spmv<V>(*cli); });
    };
}

Runner setup_solve(CLI::App& sub)
{
    auto cli = std::make_shared<BatchedSparseCli>();
    cli->run.reps = 3;
    cli->peer_count = 256;
    add_common(sub, *cli);
    sub.add_option("--solver", cli->solver, "cg, bicgstab, gmres, ir")
        ->check(CLI::IsMember(names_of(batched::KrylovMethod{}).spellings()))
        ->capture_default_str();
    sub.add_option("--precond", cli->precond, "none, jacobi, block-jacobi")
        ->check(CLI::IsMember(names_of(batched::BatchPrecond{}).spellings()))
        ->capture_default_str();
    sub.add_option("--tol", cli->tolerance, "Relative residual tolerance")->capture_default_str();
    sub.add_option("--max-iters", cli->max_iters, "Iteration limit")->capture_default_str();
    sub.add_option("--qr-count", cli->qr_count,
                   "Systems cuSOLVER's batched sparse QR (the vendor peer, CUDA) is timed on, "
                   "scaled to the batch (0: none)")
        ->capture_default_str();
    return [cli] {
        return with_value_type(cli->run.type, [&]<typename V>(std::type_identity<V>) { return run_solve<V>(*cli); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(batched_spmv, "batched-spmv",
                    "Batched SpMV: shared-pattern or heterogeneous batches vs a loop of single SpMVs",
                    loom::cli::setup_spmv);
LOOM_REGISTER_BENCH(batched_solve, "batched-solve",
                    "Batched Krylov solves of Poisson-like blocks vs a loop of single solves",
                    loom::cli::setup_solve);
