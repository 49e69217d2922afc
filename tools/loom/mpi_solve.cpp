// loom solve / loom bench solve under mpirun (mpi_solve.hpp).
#include "mpi_solve.hpp"

#include <cstdlib>

#if LOOM_CLI_WITH_MPI

#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <regex>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench_support.hpp"
#include "cli_support.hpp"
#include "command.hpp"
#include "loom/distributed/matrix.hpp"
#include "loom/log/loggers.hpp"
#include "loom/matrix/io.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solver.hpp"
#include "solve_history.hpp"

namespace loom::cli::mpi {
namespace {

using distributed::Communicator;
using distributed::Partition;
template <typename V>
using DMatrix = distributed::Matrix<V, index_type>;

/// MPI for the life of one command: initialized unless the caller did, finalized after, also
/// when the command raises (every rank raises the same agreed error).
class Session {
public:
    Session()
    {
        int initialized = 0;
        MPI_Initialized(&initialized);
        if (!initialized) {
            MPI_Init(nullptr, nullptr);
            owned_ = true;
        }
    }
    ~Session()
    {
        if (owned_) MPI_Finalize();
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

private:
    bool owned_ = false;
};

/// --exec cuda puts rank r on device r % devices (ranks share devices when fewer); any other
/// executor is the one named.
std::shared_ptr<const Executor> rank_executor(const ExecOptions& run, const Communicator& comm)
{
    if (run.exec == "cuda" && CudaExecutor::device_count() > 0) {
        return CudaExecutor::create(comm.rank() % CudaExecutor::device_count());
    }
    return run.executor();
}

std::string describe(const Executor& exec)
{
    if (exec.kind() == ExecKind::omp) {
        return fmt::format("omp ({} threads)", static_cast<const OmpExecutor&>(exec).num_threads());
    }
    return exec.name();
}

distributed::MatrixOptions matrix_options(const Layout& layout)
{
    return {.format = names_of(distributed::BlockFormat{}).parse(layout.format, "--format")};
}

/// The part of each row from a text file: one rank per line (0-based), blank lines skipped.
std::vector<int> read_parts(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw IoError("--partition", "cannot open '" + path + "'");
    std::vector<int> parts;
    std::string line;
    for (size_type number = 1; std::getline(in, line); ++number) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos) continue;
        const auto last = line.find_last_not_of(" \t\r") + 1;
        int part = 0;
        const auto [end, error] = std::from_chars(line.data() + first, line.data() + last, part);
        if (error != std::errc() || end != line.data() + last) {
            throw BadInput("--partition", fmt::format("line {} of '{}': '{}' is not a rank", number,
                                                      path, line.substr(first, last - first)));
        }
        parts.push_back(part);
    }
    return parts;
}

/// A with its rows moved to the partition `how` names (contiguous: A itself); errors from
/// `where` (the command).
template <typename V>
std::shared_ptr<DMatrix<V>> repartitioned(std::shared_ptr<DMatrix<V>> A, const std::string& how,
                                          const std::string& where)
{
    const auto kind = names_of(PartitionKind{}).find(how);
    if (kind == PartitionKind::contiguous) return A;
    if (kind == PartitionKind::metis) return A->redistributed(distributed::metis_partition(*A));
    Partition partition;
    A->communicator().agree(where, [&] {
        const auto parts = read_parts(how);
        if (static_cast<size_type>(parts.size()) != A->global_size()) {
            throw DimensionMismatch("--partition",
                                    fmt::format("'{}' gives a rank to {} rows, A has {}", how,
                                                parts.size(), A->global_size()));
        }
        partition = Partition::from_parts(parts, A->communicator().size());
    });
    return A->redistributed(std::move(partition));
}

/// `global` (the same on every rank) laid out over comm's ranks as `layout` says.
template <typename V>
std::shared_ptr<DMatrix<V>> distribute(std::shared_ptr<const Executor> exec,
                                       const Communicator& comm,
                                       const matrix::Csr<V, index_type>& global,
                                       const Layout& layout, const std::string& where)
{
    return repartitioned(
        DMatrix<V>::from_global(std::move(exec), comm,
                                Partition::contiguous(global.rows(), comm.size()), global,
                                matrix_options(layout)),
        layout.partition, where);
}

/// The system: read by every rank from a Matrix Market file (each keeping its rows), or held
/// whole (a binary file, a generated matrix) and cut into contiguous blocks; then moved to the
/// layout's partition.
template <typename V>
std::shared_ptr<DMatrix<V>> load(std::shared_ptr<const Executor> exec, const Communicator& comm,
                                 const std::string& path, const std::string& spec,
                                 const Layout& layout)
{
    if (spec.empty() && file_format(path) == FileFormat::matrix_market) {
        return repartitioned(
            DMatrix<V>::read_mtx(std::move(exec), comm, path, std::nullopt, matrix_options(layout)),
            layout.partition, "loom solve");
    }
    matrix::Csr<V, index_type> global;
    comm.agree("loom solve", [&] {
        global = spec.empty() ? read_matrix<V>(path) : generate_matrix<V>(spec);
    });
    return distribute(std::move(exec), comm, global, layout, "loom solve");
}

/// ||x_j|| over all ranks, per column.
template <typename V>
std::vector<double> norms(const solver::VectorSpace<V>& space, const matrix::Dense<V>& x)
{
    auto squares = space.create_scalars(x.cols());
    space.conj_dot(x, x, squares);
    space.finish_reductions(squares);
    std::vector<double> out;
    for (const auto& s : squares.to_host()) out.push_back(std::sqrt(double(std::real(s))));
    return out;
}

double max_over_ranks(const Communicator& comm, double value)
{
    double out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, comm.get());
    return out;
}

double min_over_ranks(const Communicator& comm, double value)
{
    double out = 0;
    MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MIN, comm.get());
    return out;
}

template <typename V>
int run_solve(const SolveRequest& request)
{
    const Communicator comm;
    const bool root = comm.rank() == 0;
    const auto exec = rank_executor(request.run, comm);
    const auto factory = solver::from_config<V, index_type>(request.config_json, exec);

    double start = MPI_Wtime();
    const auto A = load<V>(exec, comm, request.matrix, request.spec, request.layout);
    const double load_seconds = MPI_Wtime() - start;
    const auto& space = A->space();

    matrix::Dense<V> b;
    if (request.rhs.empty()) {
        auto ones = space.create(1);
        space.fill(ones, V{1});
        b = space.create(1);
        A->apply(ones, b);
    } else {
        matrix::Dense<V> global;
        comm.agree("loom solve", [&] {
            global = matrix::read_dense<V>(loom::detail::host_executor(), request.rhs);
            if (global.rows() != A->global_size()) {
                throw DimensionMismatch("loom solve", "b has " + std::to_string(global.rows()) +
                                                          " rows, A " +
                                                          std::to_string(A->global_size()));
            }
        });
        b = space.local_part(global);
    }
    auto x = space.create(b.cols());
    space.fill(x, V{0});

    start = MPI_Wtime();
    const auto op = factory->generate(A);
    const double setup_seconds = MPI_Wtime() - start;
    const auto* solver = dynamic_cast<const solver::IterativeSolver<V>*>(op.get());
    if (solver == nullptr) {
        throw BadInput("loom solve", "the configuration does not describe an iterative solver");
    }
    const auto convergence = std::make_shared<log::ConvergenceLogger>();
    if (!request.history.empty()) op->add_logger(convergence);
    A->reset_halo_stats();
    space.reset_reduction_stats();
    op->apply(b, x);
    const auto& result = solver->result();
    const auto halo = A->halo_stats();
    const auto reductions = space.reduction_stats();

    auto r = space.create(b.cols());
    space.copy(b, r);
    A->apply(V{-1}, x, V{1}, r);
    const auto r_norms = norms(space, r);
    const auto b_norms = norms(space, b);
    double worst = 0;
    for (std::size_t j = 0; j < r_norms.size(); ++j) {
        worst = std::max(worst, b_norms[j] > 0 ? r_norms[j] / b_norms[j] : r_norms[j]);
    }
    const auto global_nnz = A->global_nnz();
    const auto largest_halo = comm.max(A->halo_size());
    const double wait = max_over_ranks(comm, halo.wait_seconds);
    const double reduce = max_over_ranks(comm, reductions.seconds);
    const auto x_global = space.gather(x);

    if (root) {
        const auto per_iteration = [&](double seconds) {
            return result.iterations > 0 ? seconds / double(result.iterations) : 0.0;
        };
        fmt::print("system    {}: {} x {}, {} nonzeros, {} right-hand side{}{}\n",
                   request.spec.empty() ? request.matrix : request.spec, A->global_size(),
                   A->global_size(), global_nnz, b.cols(), b.cols() == 1 ? "" : "s",
                   request.rhs.empty() ? " (b = A * 1)" : "");
        fmt::print("solver    {}, stopping at {}\n", request.description,
                   solver->criteria()->description());
        fmt::print("run       {} MPI ranks, {} each, {} values, x0 = 0; rows by {}, blocks in {}; "
                   "halo {}, at most {} entries per rank\n",
                   comm.size(), describe(*exec), type_name<V>(), request.layout.partition,
                   request.layout.format, A->transport(), largest_halo);
        fmt::print("outcome   {}\n", result.message());
        fmt::print("residual  {:.3e} = ||b - A x|| / ||b||, recomputed{}\n", worst,
                   b.cols() > 1 ? " (worst column)" : "");
        fmt::print("time      {:.4g} s solve ({:.4g} ms per iteration: halo wait {:.4g} ms, "
                   "all-reduce {:.4g} ms), {:.4g} s setup, {:.4g} s to {} A\n",
                   result.seconds, per_iteration(result.seconds) * 1e3,
                   per_iteration(wait) * 1e3, per_iteration(reduce) * 1e3, setup_seconds,
                   load_seconds, request.spec.empty() ? "read" : "generate");
    }
    const auto target =
        solution_path(request.output, result.converged(), request.overwrite_unconverged);
    comm.agree("loom solve", [&] {
        if (root && !request.output.empty()) write_dense(target, x_global);
    });
    if (root && !request.output.empty()) {
        fmt::print("wrote     {}{}\n", target,
                   target == request.output ? "" : " (not converged; -o's file left as it was)");
    }
    if (!request.history.empty()) {
        // Every rank logged the same norms (reduced over all): rank 0 writes them.
        comm.agree("loom solve", [&] {
            if (root) write_history(request.history, *convergence, result);
        });
        if (root) fmt::print("wrote     {}\n", request.history);
    }
    if (!result.converged()) {
        if (root) fmt::print(stderr, "loom solve: not converged: {}\n", result.message());
        return 3;
    }
    return exit_ok;
}

// ---------------------------------------------------------------- bench solve

struct Measurement {
    int ranks = 0;
    size_type rows = 0;
    size_type iterations = 0;
    double per_iteration = 0;   ///< median solve time / iterations
    double halo_wait = 0;       ///< exposed halo wait per iteration (slowest rank)
    double allreduce = 0;       ///< all-reduce time per iteration (slowest rank)
    double exchange = 0;        ///< one halo exchange alone (slowest rank)
    double overlap = 0;         ///< 1 - exposed wait / exchange alone
    size_type halo = 0;         ///< largest halo
};

std::string solver_config(const std::string& solver, size_type iterations)
{
    return nlohmann::json{{"solver", solver}, {"criteria", {{"max_iters", iterations}}}}.dump();
}

/// b = A * 1 and x = 0, this rank's rows.
template <typename V>
std::pair<matrix::Dense<V>, matrix::Dense<V>> ones_system(const DMatrix<V>& A)
{
    const auto& space = A.space();
    auto ones = space.create(1);
    space.fill(ones, V{1});
    auto b = space.create(1);
    A.apply(ones, b);
    auto x = space.create(1);
    space.fill(x, V{0});
    return {std::move(b), std::move(x)};
}

/// The solve of A x = A * 1 from x0 = 0 for `iterations` iterations on comm's ranks.
template <typename V>
Measurement measure(const Communicator& comm, const BenchRequest& request,
                    const matrix::Csr<V, index_type>& global)
{
    const auto exec = rank_executor(request.run, comm);
    const auto A = distribute(exec, comm, global, request.layout, "loom bench solve");
    const auto& space = A->space();
    const auto op =
        solver::from_config<V, index_type>(solver_config(request.solver, request.iterations), exec)
            ->generate(A);
    const auto& solver = dynamic_cast<const solver::IterativeSolver<V>&>(*op);
    auto [b, x] = ones_system(*A);
    op->apply(b, x);  // warm-up
    A->reset_halo_stats();
    space.reset_reduction_stats();
    std::vector<double> times;
    for (int rep = 0; rep < std::max(request.reps, 1); ++rep) {
        space.fill(x, V{0});
        MPI_Barrier(comm.get());
        const double start = MPI_Wtime();
        op->apply(b, x);
        times.push_back(max_over_ranks(comm, MPI_Wtime() - start));
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    Measurement m;
    m.ranks = comm.size();
    m.rows = global.rows();
    m.iterations = std::max<size_type>(solver.result().iterations, 1);
    const double solves = double(times.size());
    const auto halo = A->halo_stats();
    m.per_iteration = times[times.size() / 2] / double(m.iterations);
    m.halo_wait = max_over_ranks(comm, halo.wait_seconds) / solves / double(m.iterations);
    m.allreduce =
        max_over_ranks(comm, space.reduction_stats().seconds) / solves / double(m.iterations);
    m.exchange = max_over_ranks(comm, A->time_exchange(1, 50));
    // The rank that waits least finds its partners' messages sent: its wait is the exchange
    // left exposed; the others' waits also hold a slower partner's lateness (imbalance).
    const double wait_per_apply =
        halo.applies > 0 ? min_over_ranks(comm, halo.wait_seconds / double(halo.applies)) : 0;
    m.overlap = m.exchange > 0 ? std::clamp(1 - wait_per_apply / m.exchange, 0.0, 1.0) : 1.0;
    m.halo = comm.max(A->halo_size());
    return m;
}

/// The answer first: a few iterations on all ranks equal those on one process.
template <typename V>
void check_against_one_process(const Communicator& comm, const BenchRequest& request,
                               const matrix::Csr<V, index_type>& global)
{
    constexpr size_type steps = 5;
    const auto exec = rank_executor(request.run, comm);
    const auto factory =
        solver::from_config<V, index_type>(solver_config(request.solver, steps), exec);
    const auto A = distribute(exec, comm, global, request.layout, "loom bench solve");
    const auto& space = A->space();
    auto [b, x] = ones_system(*A);
    factory->generate(A)->apply(b, x);
    const auto x_distributed = space.gather(x);
    std::string error;
    if (comm.rank() == 0) {
        const auto A1 = std::make_shared<const matrix::Csr<V, index_type>>(exec, global);
        matrix::Dense<V> ones1(exec, {A1->rows(), 1});
        ones1.fill(V{1});
        matrix::Dense<V> b1(exec, {A1->rows(), 1});
        A1->apply(ones1, b1);
        matrix::Dense<V> x1(exec, {A1->rows(), 1});
        x1.fill(V{0});
        factory->generate(A1)->apply(b1, x1);
        const auto expected = x1.to_host();
        const auto got = x_distributed.to_host();
        double diff = 0, scale = 1e-300;
        for (std::size_t i = 0; i < got.size(); ++i) {
            diff = std::max(diff, double(std::abs(got[i] - expected[i])));
            scale = std::max(scale, double(std::abs(expected[i])));
        }
        if (diff / scale > 1e-8) {
            error = fmt::format("{} steps of {} on {} ranks differ from one process by {:.2e} "
                                "(relative)",
                                steps, request.solver, comm.size(), diff / scale);
        }
    }
    comm.agree_on("loom bench solve", error);
}

/// "poisson3d:N[:P]" with N grown by ranks^(1/3) (ranks^(1/2) in 2D): the same rows per rank.
std::string weak_spec(const std::string& spec, int ranks)
{
    static const std::regex poisson(R"(poisson([23])d:(\d+)(:\d+)?)");
    std::smatch m;
    if (!std::regex_match(spec, m, poisson)) {
        throw BadInput("loom bench solve",
                       "--scaling weak needs --generate poisson2d:N or poisson3d:N, got '" +
                           spec + "'");
    }
    const double dims = std::stod(m[1]);
    const auto n = static_cast<long long>(std::llround(std::stod(m[2]) * std::pow(ranks, 1 / dims)));
    return fmt::format("poisson{}d:{}{}", m[1].str(), n, m[3].str());
}

template <typename V>
int run_bench(const BenchRequest& request)
{
    const Communicator world;
    const bool root = world.rank() == 0;
    if (request.scaling == Scaling::weak) weak_spec(request.spec, 1);  // the spec is checked first
    if (request.scaling && !names_of(PartitionKind{}).find(request.layout.partition)) {
        throw BadInput("loom bench solve", "a partition file fixes the number of ranks; --scaling "
                                           "also runs on fewer (use contiguous or metis)");
    }
    const auto build = [&](int ranks) {
        matrix::Csr<V, index_type> global;
        world.agree("loom bench solve", [&] {
            if (request.scaling == Scaling::weak) {
                global = generate_matrix<V>(weak_spec(request.spec, ranks));
            } else {
                global = request.spec.empty() ? read_matrix<V>(request.matrix)
                                              : generate_matrix<V>(request.spec);
            }
        });
        return global;
    };
    auto global = build(world.size());
    check_against_one_process(world, request, global);

    std::vector<int> counts;
    if (request.scaling) {
        for (int p = 1; p < world.size(); p *= 2) counts.push_back(p);
    }
    counts.push_back(world.size());
    std::vector<Measurement> table;
    for (const int p : counts) {
        if (request.scaling == Scaling::weak) global = build(p);
        MPI_Comm sub = MPI_COMM_NULL;
        MPI_Comm_split(world.get(), world.rank() < p ? 0 : MPI_UNDEFINED, world.rank(), &sub);
        if (sub != MPI_COMM_NULL) {
            const auto m = measure<V>(Communicator(sub), request, global);
            if (root) table.push_back(m);
            MPI_Comm_free(&sub);
        }
        MPI_Barrier(world.get());
    }

    if (root) {
        const auto exec = rank_executor(request.run, world);
        fmt::print("bench solve  {} on {}, {} iterations, {} values, {} per rank, rows by {}, "
                   "blocks in {}, median of {}\n",
                   request.solver, request.spec.empty() ? request.matrix : request.spec,
                   request.iterations, type_name<V>(), describe(*exec), request.layout.partition,
                   request.layout.format, request.reps);
        fmt::print("(answer checked first: {} ranks = one process)\n", world.size());
        const bool weak = request.scaling == Scaling::weak;
        fmt::print("{:>5} {:>10} {:>12} {:>9} {:>13} {:>13} {:>12} {:>8} {:>9}\n", "ranks", "rows",
                   "time/iter", weak ? "eff." : "speedup", "halo wait/it", "allreduce/it",
                   "exchange", "overlap", "halo");
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& m : table) {
            const double ratio = table.front().per_iteration / m.per_iteration;
            // Without a halo there is nothing to overlap.
            const auto overlap = m.halo > 0 ? fmt::format("{:.0f}%", m.overlap * 100) : "-";
            fmt::print("{:>5} {:>10} {:>9.4f} ms {:>8.2f}x {:>10.4f} ms {:>10.4f} ms {:>9.4f} ms "
                       "{:>8} {:>9}\n",
                       m.ranks, m.rows, m.per_iteration * 1e3, ratio, m.halo_wait * 1e3,
                       m.allreduce * 1e3, m.exchange * 1e3, overlap, m.halo);
            rows.push_back({{"ranks", m.ranks},
                            {"rows", m.rows},
                            {"iterations", m.iterations},
                            {"seconds_per_iteration", m.per_iteration},
                            {weak ? "efficiency" : "speedup", ratio},
                            {"halo_wait_per_iteration", m.halo_wait},
                            {"allreduce_per_iteration", m.allreduce},
                            {"exchange_seconds", m.exchange},
                            {"overlap_fraction", m.overlap},
                            {"largest_halo", m.halo}});
        }
        fmt::print("  time/iter     median solve time (slowest rank) / iterations\n"
                   "  halo wait/it  time waiting for halo messages after the local SpMV\n"
                   "  allreduce/it  time in the all-reduces of the dots and norms\n"
                   "  exchange      one halo exchange alone (nothing computed meanwhile)\n"
                   "  overlap       1 - (wait per SpMV of the rank waiting least, whose partners\n"
                   "                sent already) / exchange: the part hidden behind the local SpMV\n");
        write_json(request.run.json,
                   {{"benchmark", "solve"},
                    {"solver", request.solver},
                    {"matrix", request.spec.empty() ? request.matrix : request.spec},
                    {"scaling", request.scaling ? to_string(*request.scaling) : "none"},
                    {"executor", describe(*exec)},
                    {"partition", request.layout.partition},
                    {"format", request.layout.format},
                    {"transport", exec->is_host() ? "host memory"
                                  : distributed::mpi_is_cuda_aware()
                                      ? "device buffers handed to CUDA-aware MPI"
                                      : "device buffers staged through host memory"},
                    {"results", rows}});
    }
    return exit_ok;
}

}  // namespace

bool launched_by_mpirun()
{
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"}) {
        if (std::getenv(name) != nullptr) return true;
    }
    return false;
}

int solve(const SolveRequest& request)
{
    const Session session;
    return with_value_type(request.value_type, [&]<typename V>(std::type_identity<V>) {
        return run_solve<V>(request);
    });
}

int bench_solve(const BenchRequest& request)
{
    const Session session;
    return with_value_type(request.run.type, [&]<typename V>(std::type_identity<V>) {
        return run_bench<V>(request);
    });
}

}  // namespace loom::cli::mpi

#else

namespace loom::cli::mpi {

bool launched_by_mpirun()
{
    return false;
}

}  // namespace loom::cli::mpi

#endif

namespace loom::cli::mpi {

void add_layout_options(CLI::App& sub, Layout& layout)
{
    sub.add_option("--partition", layout.partition,
                   "Under mpirun: which rows each rank owns: contiguous, metis, or a file of one "
                   "rank per row (0-based, one per line)")
        ->check(CLI::IsMember(names_of(PartitionKind{}).spellings()) | CLI::ExistingFile)
        ->capture_default_str();
    add_choice<distributed::BlockFormat>(
        sub, "--format", layout.format,
        "Under mpirun: the storage of each rank's local and non-local blocks for the "
        "SpMV (preconditioners are built on the local block as CSR)");
}

void check_without_mpirun(const Layout& layout, const std::string& where)
{
    const Layout plain;
    if (layout.partition != plain.partition || layout.format != plain.format) {
        throw BadInput(where, "--partition and --format lay the system out over MPI ranks: they "
                              "need mpirun");
    }
}

}  // namespace loom::cli::mpi
