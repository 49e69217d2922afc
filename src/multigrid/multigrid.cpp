#include "loom/solver/multigrid.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/lapack/dense_lapack.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/multigrid/rigid_body_modes.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "multigrid/level.hpp"
#include "multigrid/setup.hpp"
#include "precond/system_matrix.hpp"

namespace loom::solver {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Wall time per setup step summed over the levels, printed to stderr after a setup or an
/// update when the environment sets LOOM_MULTIGRID_PROFILE: a debug timer, off by default
/// because it synchronizes the executor after every step (a GPU would otherwise overlap them).
class StepProfile {
public:
    explicit StepProfile(const Executor& exec)
        : exec_(exec), on_(std::getenv("LOOM_MULTIGRID_PROFILE") != nullptr), last_(Clock::now())
    {}

    /// Books the time since the previous lap to `step`.
    void lap(const std::string& step)
    {
        if (!on_) return;
        exec_.synchronize();
        const auto now = Clock::now();
        const double seconds = std::chrono::duration<double>(now - last_).count();
        last_ = now;
        for (auto& [name, total] : steps_) {
            if (name == step) {
                total += seconds;
                return;
            }
        }
        steps_.emplace_back(step, seconds);
    }

    void print(const char* what) const
    {
        if (!on_) return;
        std::string line = std::string("loom multigrid ") + what + " [s]:";
        char item[96];
        for (const auto& [name, total] : steps_) {
            std::snprintf(item, sizeof item, "%s %s %.5f", line.back() == ':' ? "" : ",",
                          name.c_str(), total);
            line += item;
        }
        std::fprintf(stderr, "%s\n", line.c_str());
    }

private:
    const Executor& exec_;
    bool on_;
    Clock::time_point last_;
    std::vector<std::pair<std::string, double>> steps_;
};

/// Runs `step`, naming the level in the message of a NumericalError it raises.
template <typename Step>
auto on_level(size_type level, Step&& step)
{
    try {
        return step();
    } catch (const NumericalError& e) {
        throw NumericalError("loom::solver::Multigrid",
                             "level " + std::to_string(level) + ": " + e.what());
    }
}

}  // namespace

MultigridCycle parse_multigrid_cycle(const std::string& text)
{
    return names_of(MultigridCycle{}).parse(text, "loom::solver::parse_multigrid_cycle");
}

MultigridSmoother parse_multigrid_smoother(const std::string& text)
{
    return names_of(MultigridSmoother{}).parse(text, "loom::solver::parse_multigrid_smoother");
}

MultigridAggregation parse_multigrid_aggregation(const std::string& text)
{
    return names_of(MultigridAggregation{})
        .parse(text, "loom::solver::parse_multigrid_aggregation");
}

// ---------------------------------------------------------------- builder and factory

namespace {
constexpr const char* builder_where = "loom::solver::Multigrid::Builder";

void require(bool holds, const std::string& what)
{
    if (!holds) throw BadInput(builder_where, what);
}
}  // namespace

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_strength_threshold(double theta) -> Builder&
{
    require(theta >= 0 && theta < 1,
            "strength threshold " + std::to_string(theta) + " is outside [0, 1)");
    return this->set(&Parameters::strength_threshold, theta);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_pairwise_passes(int passes) -> Builder&
{
    require(passes >= 1 && passes <= 8,
            "pairwise passes " + std::to_string(passes) + " is outside [1, 8]");
    return this->set(&Parameters::pairwise_passes, passes);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_max_levels(size_type levels) -> Builder&
{
    require(levels >= 1, "max levels " + std::to_string(levels) + " is below 1");
    return this->set(&Parameters::max_levels, levels);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_coarse_size(size_type rows) -> Builder&
{
    require(rows >= 1, "coarse size " + std::to_string(rows) + " is below 1");
    return this->set(&Parameters::coarse_size, rows);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_prolongator_weight(double weight) -> Builder&
{
    require(weight >= 0 && weight < 2,
            "prolongator weight " + std::to_string(weight) + " is outside [0, 2)");
    return this->set(&Parameters::prolongator_weight, weight);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_power_iterations(int iterations) -> Builder&
{
    require(iterations >= 1, "power iterations " + std::to_string(iterations) + " is below 1");
    return this->set(&Parameters::power_iterations, iterations);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_sweeps(int pre, int post) -> Builder&
{
    require(pre >= 0 && post >= 1, "sweeps " + std::to_string(pre) + " and " +
                                       std::to_string(post) + ": pre must be >= 0 and post >= 1");
    this->params_.pre_sweeps = pre;
    this->params_.post_sweeps = post;
    return *this;
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_near_null_space(std::shared_ptr<const matrix::Dense<V>> vectors)
    -> Builder&
{
    require(!vectors || vectors->cols() >= 1, "the near-null space has no vectors");
    return this->set(&Parameters::near_null_space, std::move(vectors));
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_dofs_per_node(size_type dofs) -> Builder&
{
    require(dofs >= 1, "dofs per node " + std::to_string(dofs) + " is below 1");
    return this->set(&Parameters::dofs_per_node, dofs);
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_coordinates(const matrix::Dense<V>& coordinates,
                                                size_type dofs_per_node) -> Builder&
{
    this->params_.near_null_space = std::make_shared<const matrix::Dense<V>>(
        multigrid::rigid_body_modes(coordinates, dofs_per_node));
    this->params_.dofs_per_node = dofs_per_node;
    return *this;
}

template <typename V, typename I>
auto Multigrid<V, I>::Builder::with_loggers(std::shared_ptr<log::Logger> logger) -> Builder&
{
    if (logger) this->params_.loggers.push_back(std::move(logger));
    return *this;
}

// ---------------------------------------------------------------- setup

template <typename V, typename I>
Multigrid<V, I>::Multigrid(std::shared_ptr<const Executor> exec,
                           std::shared_ptr<const LinOp<V>> system, const Parameters& params)
    : EnableGenerated<Multigrid, V, Parameters>(exec, {}, params)
{
    constexpr const char* where = "loom::solver::Multigrid";
    auto A = precond::detail::square_csr_system<V, I>(where, system, exec);
    if (params.near_null_space && params.near_null_space->rows() != A->rows()) {
        throw DimensionMismatch(
            where, "the near-null space has " + std::to_string(params.near_null_space->rows()) +
                       " rows; the system matrix " + std::to_string(A->rows()));
    }
    if (A->rows() % params.dofs_per_node != 0) {
        throw DimensionMismatch(where, "nodes of " + std::to_string(params.dofs_per_node) +
                                           " unknowns do not divide the " +
                                           std::to_string(A->rows()) + " rows");
    }
    this->set_size(A->size());
    for (const auto& logger : params.loggers) this->add_logger(logger);
    build_levels(std::move(A));
    log_hierarchy(false);
}

template <typename V, typename I>
Multigrid<V, I>::~Multigrid() = default;

namespace {

/// What a level's smoother and prolongator smoothing need from its operator: D^-1,
/// rho(D^-1 A) and, for L1-Jacobi, D_l1^-1, for Gauss-Seidel its colored sweeps. Computed before anything is stored, so that a
/// failure leaves the level as it was.
template <typename V, typename I>
struct SmootherData {
    Array<V> inverse_diagonal;
    Array<V> l1_inverse_diagonal;
    std::shared_ptr<const precond::GaussSeidel<V, I>> gauss_seidel;
    double rho = 0;
};

template <typename V, typename I>
SmootherData<V, I> smoother_data(std::shared_ptr<const matrix::Csr<V, I>> A,
                                 const typename Multigrid<V, I>::Parameters& params,
                                 StepProfile& profile)
{
    SmootherData<V, I> data;
    if (A->rows() == 0) return data;
    data.inverse_diagonal = sparse::invert_diagonal(*A);
    profile.lap("inverse-diagonal");
    data.rho = multigrid::spectral_radius(*A, data.inverse_diagonal, params.power_iterations);
    profile.lap("spectral-radius");
    if (params.smoother == MultigridSmoother::l1_jacobi) {
        data.l1_inverse_diagonal = multigrid::l1_inverse_diagonal(*A);
    }
    if (params.smoother == MultigridSmoother::gauss_seidel) {
        // Symmetric sweeps keep the V-cycle symmetric: a valid CG preconditioner.
        data.gauss_seidel = precond::GaussSeidel<V, I>::build()
                                .with_direction(precond::GaussSeidelDirection::symmetric)
                                .on(A->executor())
                                ->generate(A);
    }
    profile.lap("smoother");
    return data;
}

}  // namespace

namespace {

/// P = (I - omega D^-1 A) P_tent (symbolic phase on the first call), R = P^H, A_c = R (A P).
template <typename V, typename I>
void smooth_and_project(typename Multigrid<V, I>::Level& level, const matrix::Csr<V, I>& A,
                        const Array<V>& inverse_diagonal, double rho, double weight, bool first,
                        StepProfile& profile)
{
    if (weight == 0) {
        if (first) level.P = level.tentative;
    } else {
        if (first) sparse::spgemm_jacobi_symbolic(level.smooth_handle, A, level.tentative, level.P);
        sparse::spgemm_jacobi_numeric(level.smooth_handle, static_cast<V>(weight / rho),
                                      inverse_diagonal, A, level.tentative, level.P);
    }
    // The steps of the SpGEMMs are named with the path their last numeric call took.
    const auto path = [](const sparse::SpgemmHandle<V, I>& handle) {
        return std::string(" (") + sparse::to_string(handle.values_path()) + ")";
    };
    profile.lap(weight == 0 ? "prolongator" : "prolongator" + path(level.smooth_handle));
    // A's pattern is checked by the first numeric product above (or by A P below when P is
    // P_tent); nothing of the level has changed when it raises.
    if (first) {
        sparse::spgemm_symbolic(level.ap_handle, A, level.P, level.AP);
        level.coarse = std::make_shared<matrix::Csr<V, I>>();
    }
    sparse::spgemm_numeric(level.ap_handle, A, level.P, level.AP);
    profile.lap("AP" + path(level.ap_handle));
    if (first) {
        auto transposed = multigrid::conj_transpose_with_positions(level.P);
        level.R = std::move(transposed.R);
        level.transpose_positions = std::move(transposed.positions);
    } else {
        // Same pattern: the values land where the first transposition put them.
        multigrid::conj_transpose_values(level.P, level.transpose_positions, level.R);
    }
    profile.lap("transpose");
    if (first) sparse::spgemm_symbolic(level.rap_handle, level.R, level.AP, *level.coarse);
    sparse::spgemm_numeric(level.rap_handle, level.R, level.AP, *level.coarse);
    profile.lap("RAP" + path(level.rap_handle));
}

/// omega rho of the prolongator smoothing; 0 for plain aggregation.
template <typename V>
double prolongator_weight(const MultigridParameters<V>& params)
{
    return params.smoothing ? params.prolongator_weight : 0.0;
}

/// rows x dofs: column c is 1 on the rows of component c (row % dofs == c), the translations.
template <typename V>
matrix::Dense<V> component_translations(std::shared_ptr<const Executor> exec, size_type rows,
                                        size_type dofs)
{
    std::vector<V> values(static_cast<std::size_t>(rows * dofs), V{0});
    for (size_type r = 0; r < rows; ++r) values[r * dofs + r % dofs] = V{1};
    return matrix::Dense<V>::from_host(std::move(exec), dim2{rows, dofs}, values);
}

template <typename V, typename I>
void factor_coarsest(typename Multigrid<V, I>::Level& level, size_type coarse_size)
{
    // Too large a coarsest level (coarsening stalled, or max_levels reached) is smoothed
    // instead: a dense LU would cost n^2 memory.
    const auto rows = level.A->rows();
    if (rows == 0 || rows > coarse_size) {
        level.lu.reset();
        return;
    }
    auto lu = matrix::to_dense(*level.A);
    lapack::getrf(lu, level.pivots);
    level.lu = std::move(lu);
}

}  // namespace

template <typename V, typename I>
void Multigrid<V, I>::build_levels(std::shared_ptr<const matrix::Csr<V, I>> A)
{
    const auto& params = this->parameters();
    const auto start = Clock::now();
    StepProfile profile(*A->executor());
    auto vectors = params.near_null_space;
    if (!vectors && params.dofs_per_node > 1) {
        vectors = std::make_shared<const matrix::Dense<V>>(
            component_translations<V>(A->executor(), A->rows(), params.dofs_per_node));
    }
    // Rows per node of the level: the caller's on the finest, one per vector below it.
    size_type block = params.dofs_per_node;
    for (size_type k = 0;; ++k) {
        const auto level_start = Clock::now();
        auto level = std::make_unique<Level>();
        level->A = A;
        auto data = on_level(k, [&] { return smoother_data(A, params, profile); });
        level->inverse_diagonal = std::move(data.inverse_diagonal);
        level->l1_inverse_diagonal = std::move(data.l1_inverse_diagonal);
        level->gauss_seidel = std::move(data.gauss_seidel);
        level->rho = data.rho;
        bool coarsest = A->rows() <= params.coarse_size || k + 1 >= params.max_levels;
        if (!coarsest) {
            auto aggregation = multigrid::aggregate_nodes(
                multigrid::strength_graph(*A, params.strength_threshold), block,
                {.pairwise = params.aggregation == MultigridAggregation::pairwise,
                 .passes = params.pairwise_passes,
                 .mis2 = {.mode = params.aggregation_mode, .symmetric = params.symmetric_pattern}});
            profile.lap("aggregation");
            const size_type per_aggregate = vectors ? vectors->cols() : 1;
            coarsest = aggregation.count() * per_aggregate >= A->rows();
            if (!coarsest) {
                if (vectors) {
                    auto tentative = on_level(
                        k, [&] { return multigrid::orthonormal_tentative(aggregation, *vectors); });
                    level->tentative = std::move(tentative.P);
                    vectors = std::make_shared<const matrix::Dense<V>>(
                        std::move(tentative.coarse_vectors));
                    block = vectors->cols();
                } else {
                    level->tentative = multigrid::piecewise_constant<V>(aggregation);
                }
                profile.lap("tentative");
                smooth_and_project<V, I>(*level, *A, level->inverse_diagonal, level->rho,
                                         prolongator_weight(params), true, profile);
                level->aggregation = std::move(aggregation);
            }
        }
        if (coarsest) on_level(k, [&] { factor_coarsest<V, I>(*level, params.coarse_size); });
        profile.lap("coarsest");
        level->info = {A->rows(), A->nnz(), level->rho, seconds_since(level_start)};
        levels_.push_back(std::move(level));
        if (coarsest) break;
        A = levels_.back()->coarse;
    }
    setup_seconds_ = seconds_since(start);
    profile.print("setup");
}

template <typename V, typename I>
void Multigrid<V, I>::update(std::shared_ptr<const matrix::Csr<V, I>> A)
{
    constexpr const char* where = "loom::solver::Multigrid::update";
    if (!A) throw BadInput(where, "the matrix is null");
    if (A->size() != this->size()) {
        throw DimensionMismatch(where, "the matrix is " + to_string(A->size()) +
                                           "; the hierarchy was built for " +
                                           to_string(this->size()));
    }
    if (!A->executor()->same_memory_as(*this->executor())) {
        A = std::make_shared<const matrix::Csr<V, I>>(this->executor(), *A);
    }
    if (A->nnz() != levels_.front()->A->nnz()) {
        throw BadInput(where, "the matrix has " + std::to_string(A->nnz()) +
                                  " entries; the hierarchy was built for " +
                                  std::to_string(levels_.front()->A->nnz()));
    }
    const auto& params = this->parameters();
    const auto start = Clock::now();
    StepProfile profile(*A->executor());
    for (size_type k = 0; k < num_levels(); ++k) {
        const auto level_start = Clock::now();
        auto& level = *levels_[k];
        const auto& Ak = k == 0 ? A : level.A;
        auto data = on_level(k, [&] { return smoother_data(Ak, params, profile); });
        if (!level.is_coarsest()) {
            smooth_and_project<V, I>(level, *Ak, data.inverse_diagonal, data.rho,
                                     prolongator_weight(params), false, profile);
        }
        level.A = Ak;
        level.inverse_diagonal = std::move(data.inverse_diagonal);
        level.l1_inverse_diagonal = std::move(data.l1_inverse_diagonal);
        level.gauss_seidel = std::move(data.gauss_seidel);
        level.rho = data.rho;
        if (level.is_coarsest())
            on_level(k, [&] { factor_coarsest<V, I>(level, params.coarse_size); });
        profile.lap("coarsest");
        level.info.spectral_radius = level.rho;
        level.info.setup_seconds = seconds_since(level_start);
    }
    setup_seconds_ = seconds_since(start);
    profile.print("update");
    log_hierarchy(true);
}

template <typename V, typename I>
void Multigrid<V, I>::log_hierarchy(bool numeric_only) const
{
    if (!this->has_loggers()) return;
    std::vector<MultigridLevelInfo> levels;
    for (const auto& level : levels_) levels.push_back(level->info);
    const log::HierarchyEvent event{.op = this,
                                    .name = "multigrid",
                                    .levels = levels,
                                    .operator_complexity = operator_complexity(),
                                    .grid_complexity = grid_complexity(),
                                    .setup_seconds = setup_seconds_,
                                    .numeric_only = numeric_only};
    this->notify([&](log::Logger& logger) { logger.on_hierarchy_built(event); });
}

// ---------------------------------------------------------------- queries

template <typename V, typename I>
size_type Multigrid<V, I>::num_levels() const noexcept
{
    return static_cast<size_type>(levels_.size());
}

namespace {
void check_level(size_type k, size_type count, const char* where)
{
    if (k < 0 || k >= count) {
        throw OutOfRange(
            where, "level " + std::to_string(k) + " of a hierarchy of " + std::to_string(count));
    }
}
}  // namespace

template <typename V, typename I>
const matrix::Csr<V, I>& Multigrid<V, I>::level_matrix(size_type k) const
{
    check_level(k, num_levels(), "loom::solver::Multigrid::level_matrix");
    return *levels_[k]->A;
}

template <typename V, typename I>
const matrix::Csr<V, I>& Multigrid<V, I>::prolongator(size_type k) const
{
    check_level(k, num_levels() - 1, "loom::solver::Multigrid::prolongator");
    return levels_[k]->P;
}

template <typename V, typename I>
const MultigridLevelInfo& Multigrid<V, I>::level_info(size_type k) const
{
    check_level(k, num_levels(), "loom::solver::Multigrid::level_info");
    return levels_[k]->info;
}

template <typename V, typename I>
const graph::Aggregation<I>& Multigrid<V, I>::aggregation(size_type k) const
{
    check_level(k, num_levels() - 1, "loom::solver::Multigrid::aggregation");
    return *levels_[k]->aggregation;
}

template <typename V, typename I>
double Multigrid<V, I>::operator_complexity() const noexcept
{
    double sum = 0;
    for (const auto& level : levels_) sum += static_cast<double>(level->info.nnz);
    const auto finest = static_cast<double>(levels_.front()->info.nnz);
    return finest > 0 ? sum / finest : 1.0;
}

template <typename V, typename I>
double Multigrid<V, I>::grid_complexity() const noexcept
{
    double sum = 0;
    for (const auto& level : levels_) sum += static_cast<double>(level->info.rows);
    const auto finest = static_cast<double>(levels_.front()->info.rows);
    return finest > 0 ? sum / finest : 1.0;
}

template <typename V, typename I>
double Multigrid<V, I>::setup_seconds() const noexcept
{
    return setup_seconds_;
}

template <typename V, typename I>
std::string Multigrid<V, I>::report() const
{
    std::string text = "level        rows         nnz  nnz/row  rho(D^-1 A)  setup [s]\n";
    char line[160];
    for (size_type k = 0; k < num_levels(); ++k) {
        const auto& info = levels_[k]->info;
        std::snprintf(
            line, sizeof line, "%5lld %11lld %11lld %8.2f %12.4f %10.4f%s\n",
            static_cast<long long>(k), static_cast<long long>(info.rows),
            static_cast<long long>(info.nnz),
            info.rows > 0 ? static_cast<double>(info.nnz) / info.rows : 0.0, info.spectral_radius,
            info.setup_seconds,
            levels_[k]->is_coarsest() ? (levels_[k]->lu ? "  (dense LU)" : "  (smoothed)") : "");
        text += line;
    }
    std::snprintf(line, sizeof line,
                  "operator complexity %.3f, grid complexity %.3f, setup %.4f s\n",
                  operator_complexity(), grid_complexity(), setup_seconds_);
    return text + line;
}

#define LOOM_INSTANTIATE_MULTIGRID(V, I) template class Multigrid<V, I>;
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_MULTIGRID)

}  // namespace loom::solver
