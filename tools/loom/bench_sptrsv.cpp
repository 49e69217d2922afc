// loom bench sptrsv: the command-line side of bench/sptrsv_bench.
#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bench/sptrsv_bench.hpp"
#include "bench_support.hpp"
#include "command.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/cholmod.hpp"
#include "loom/matrix/permutation.hpp"
#include "loom/sparse/ilu.hpp"
#include "loom/sparse/triangle.hpp"

namespace loom::cli {
namespace {

constexpr const char* default_spec = "poisson3d:160";

struct SptrsvBenchCli {
    MatrixSource source;
    bool upper = false;
    bool unit = false;
    std::string op = "n";
    bool cholesky = false;
    bool detect_supernodes = false;
    bool ilu0 = false;
    bool nd_cholesky = false;
    std::vector<std::string> algorithms;
    BenchRun run{20};
};

/// A nested-dissection order of the cells of an n^3 grid (row (z * n + y) * n + x): the box
/// is cut by the middle plane of its longest side, both halves are ordered first (each in
/// turn the same way), the plane last. A plane separates 7- and 27-point neighbours alike.
std::vector<int32> grid_nested_dissection(size_type n)
{
    std::vector<int32> order;
    order.reserve(static_cast<std::size_t>(n * n * n));
    const auto cells = [&](const std::array<size_type, 3>& lo, const std::array<size_type, 3>& hi) {
        for (auto z = lo[2]; z < hi[2]; ++z) {
            for (auto y = lo[1]; y < hi[1]; ++y) {
                for (auto x = lo[0]; x < hi[0]; ++x) order.push_back(static_cast<int32>((z * n + y) * n + x));
            }
        }
    };
    const auto dissect = [&](auto&& self, std::array<size_type, 3> lo, std::array<size_type, 3> hi) -> void {
        int d = 0;
        for (int i = 1; i < 3; ++i) {
            if (hi[i] - lo[i] > hi[d] - lo[d]) d = i;
        }
        if (hi[d] - lo[d] <= 2) return cells(lo, hi);
        const auto middle = (lo[d] + hi[d]) / 2;
        auto left_hi = hi;
        left_hi[d] = middle;
        auto right_lo = lo;
        right_lo[d] = middle + 1;
        self(self, lo, left_hi);
        self(self, right_lo, hi);
        auto plane_lo = lo;
        auto plane_hi = hi;
        plane_lo[d] = middle;
        plane_hi[d] = middle + 1;
        cells(plane_lo, plane_hi);
    };
    dissect(dissect, {0, 0, 0}, {n, n, n});
    return order;
}

/// The side n of a "poisson3d:N[:P]" spec; BadInput otherwise.
size_type grid_side(const std::string& spec)
{
    const std::string prefix = "poisson3d:";
    if (spec.rfind(prefix, 0) != 0) {
        throw BadInput("loom bench sptrsv", "--nd-cholesky needs --generate poisson3d:N[:7|27]");
    }
    return std::stoll(spec.substr(prefix.size()));
}

/// The pattern of the complete Cholesky factor of the symmetric pattern (ptrs, cols): row i
/// of L holds the nodes its entries left of i reach in the elimination tree on their way
/// up to i (the row subtree), found in O(nnz(L)) without any numeric work. Rows sorted,
/// diagonal last.
void cholesky_pattern(const std::vector<index_type>& ptrs, const std::vector<index_type>& cols,
                      std::vector<index_type>& l_ptrs, std::vector<index_type>& l_cols)
{
    const auto n = static_cast<index_type>(ptrs.size()) - 1;
    std::vector<index_type> parent(n, -1), ancestor(n, -1), mark(n, -1);
    l_ptrs.assign(1, 0);
    l_cols.clear();
    for (index_type i = 0; i < n; ++i) {
        const auto row_begin = l_cols.size();
        mark[i] = i;
        for (auto k = ptrs[i]; k < ptrs[i + 1]; ++k) {
            // The elimination tree (with path compression through `ancestor`).
            for (auto r = cols[k]; r < i && r != -1;) {
                const auto next = ancestor[r];
                ancestor[r] = i;
                if (next == -1) parent[r] = i;
                r = next;
            }
            for (auto j = cols[k]; j < i && mark[j] != i; j = parent[j]) {
                l_cols.push_back(j);
                mark[j] = i;
            }
        }
        std::sort(l_cols.begin() + static_cast<std::ptrdiff_t>(row_begin), l_cols.end());
        l_cols.push_back(i);
        l_ptrs.push_back(static_cast<index_type>(l_cols.size()));
    }
}

/// A stand-in for the supernodal Cholesky factor of the spec's 3D Poisson matrix, without
/// CHOLMOD (and without the numeric factorization, too slow for 64^3 outside a supernodal
/// code): the complete factor's pattern on a nested-dissection order of the grid, with
/// values that keep the solve well conditioned (diagonal 1, each row's other entries
/// summing to -1/2: |x| <= 2 max |b|). The solve's cost depends on the pattern alone.
template <typename V>
matrix::Csr<V, index_type> nested_dissection_cholesky(const MatrixSource& source,
                                                      const std::shared_ptr<const Executor>& exec)
{
    const auto A = source.build<V>();
    const auto n = grid_side(source.spec);
    const matrix::Permutation<index_type> P(A.executor(),
                                            Array<index_type>(A.executor(), grid_nested_dissection(n)));
    const auto B = P.permute(A);
    std::vector<index_type> ptrs, cols;
    cholesky_pattern(B.row_ptrs().to_host(), B.col_idxs().to_host(), ptrs, cols);
    std::vector<V> values(cols.size());
    for (std::size_t r = 0; r + 1 < ptrs.size(); ++r) {
        const auto others = ptrs[r + 1] - ptrs[r] - 1;
        for (auto k = ptrs[r]; k + 1 < ptrs[r + 1]; ++k) values[k] = V(-0.5 / others);
        values[ptrs[r + 1] - 1] = V(1);
    }
    const auto rows = static_cast<size_type>(ptrs.size()) - 1;
    return matrix::Csr<V, index_type>::from_host(exec, {rows, rows}, ptrs, cols, values);
}

int run_sptrsv(const SptrsvBenchCli& cli)
{
    bench::SptrsvBenchOptions options;
    options.exec = cli.run.executor();
    options.samples = cli.run.reps;
    options.copy_bytes = cli.run.copy_bytes();
    options.solve.uplo = cli.upper ? blas::Uplo::upper : blas::Uplo::lower;
    options.solve.diag = cli.unit ? blas::Diag::unit : blas::Diag::non_unit;
    options.solve.op = blas::parse_op(cli.op);
    for (const auto& name : cli.algorithms) {
        options.algorithms.push_back(sparse::parse_sptrsv_algorithm(name));
    }
    auto source = cli.source;
    if (source.path.empty() && source.spec.empty()) source.spec = default_spec;
    options.matrix_name = fmt::format("{} of {}", cli.upper ? "triu" : "tril", source.name());
    if (cli.cholesky) {
        if (cli.upper)
            throw BadInput("loom bench sptrsv", "--cholesky solves with L (--op t: L^T)");
        options.matrix_name = fmt::format("CHOLMOD's L of {}", source.name());
    }
    if (cli.nd_cholesky) {
        if (cli.upper || cli.cholesky || cli.ilu0) {
            throw BadInput("loom bench sptrsv",
                           "--nd-cholesky solves with L (--op t: L^T), alone");
        }
        options.matrix_name = fmt::format("Cholesky L of {} on a nested-dissection order", source.name());
    }
    if (cli.ilu0) {
        if (cli.cholesky) throw BadInput("loom bench sptrsv", "--ilu0 and --cholesky exclude each other");
        options.matrix_name = fmt::format("ILU(0)'s {} of {}", cli.upper ? "U" : "L", source.name());
    }
    return with_value_type(cli.run.type, [&]<typename V>(std::type_identity<V>) {
        if (cli.nd_cholesky) {
            write_json(cli.run.json, bench::bench_sptrsv(nested_dissection_cholesky<V>(source, options.exec), options));
            return exit_ok;
        }
        if (cli.ilu0) {
            const auto A = source.build<V>();
            matrix::Csr<V, index_type> L, U;
            sparse::IluHandle<V, index_type> handle;
            sparse::ilu_symbolic(handle, A, L, U);
            sparse::ilu_numeric(handle, A, L, U);
            write_json(cli.run.json, bench::bench_sptrsv(cli.upper ? U : L, options));
            return exit_ok;
        }
        if (!cli.cholesky) {
            const auto T = sparse::triangle(source.build<V>(), options.solve.uplo);
            write_json(cli.run.json, bench::bench_sptrsv(T, options));
            return exit_ok;
        }
        auto factor = sparse::cholmod_cholesky(source.build<V>());
        if (!cli.detect_supernodes) options.solve.supernodes = factor.supernodes;
        write_json(cli.run.json, bench::bench_sptrsv(factor.L, options));
        return exit_ok;
    });
}

Runner setup(CLI::App& sub)
{
    auto cli = std::make_shared<SptrsvBenchCli>();
    cli->source.add_to(sub, "Matrix file (.mtx or .bin); its triangle is solved with");
    cli->run.add_to(sub);
    sub.add_flag("--upper", cli->upper, "Solve with the upper triangle (default: lower)");
    sub.add_flag("--unit", cli->unit, "Take the diagonal as all ones");
    add_choice<blas::Op>(sub, "--op", cli->op, "op(T): n = T, t = T^T, h = T^H");
    sub.add_flag("--cholesky", cli->cholesky,
                 "Solve with the Cholesky factor L of the (SPD) matrix by CHOLMOD's supernodal "
                 "factorization (builds with CHOLMOD only), supernodal with CHOLMOD's supernodes");
    sub.add_flag("--ilu0", cli->ilu0,
                 "Solve with the matrix's ILU(0) factor L (U with --upper) instead of its "
                 "triangle (the factors an ILU(0) preconditioner solves with)");
    sub.add_flag("--nd-cholesky", cli->nd_cholesky,
                 "With --generate poisson3d:N[:P]: solve with the pattern of the complete Cholesky "
                 "factor L on a nested-dissection order of the grid (well-conditioned values; "
                 "supernodal finds the supernodes): a stand-in for CHOLMOD's factor");
    add_choice<sparse::SptrsvAlgorithm>(
        sub, "--algorithms", cli->algorithms,
        "Time only these algorithms (default: every one that runs on the executor)");
    sub.add_flag("--detect-supernodes", cli->detect_supernodes,
                 "With --cholesky: supernodal finds its supernodes itself");
    sub.footer(fmt::format(
        "Default matrix: the lower triangle of {}; e.g. --cholesky poisson3d:64 or\n"
        "--cholesky poisson3d:40:27 for supernodal's target factors. Every algorithm that runs\n"
        "on the executor is timed (level_set, supernodal; on CUDA also sync_free and vendor =\n"
        "cuSPARSE SpSV), each first checked against the reference backend; a wrong result aborts "
        "the run.\n"
        "  analysis    sptrsv_symbolic (cuSPARSE: bufferSize + SpSV_analysis)\n"
        "  numeric     sptrsv_numeric, new values (cuSPARSE: SpSV_updateMatrix)\n"
        "  solve       one right-hand side\n"
        "  GB/s        solve: bytes / time, bytes = {}\n"
        "  of copy     GB/s over the copy bandwidth measured in this run\n"
        "  vs cusparse cuSPARSE's time / this time for the same phase (> 1: faster)\n"
        "SPEC:\n{}",
        default_spec, bench::sptrsv_bytes_formula, generator_help));
    return [cli] { return run_sptrsv(*cli); };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_BENCH(sptrsv, "sptrsv",
                    "Check, then time SpTRSV analysis, value update and solve per algorithm",
                    loom::cli::setup);
