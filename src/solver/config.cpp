// JSON solver configurations: a recursive reader that walks the config with the path of
// each value, checks every key against the ones its object may hold, and calls the same
// builders a C++ user calls.
#include "loom/solver/config.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/built_types.hpp"
#include "base/instantiate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/precond/ilu.hpp"
#include "loom/precond/isai.hpp"
#include "loom/precond/gauss_seidel.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/triangular.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/solver/solvers.hpp"

namespace loom::solver {
namespace {

using json = nlohmann::json;

constexpr const char* where = "loom::solver::from_config";

/// Block Jacobi blocks are at most this large (issue 3: up to 32 x 32).
constexpr size_type max_jacobi_block_size = 32;

/// Nesting limits of a config (see check_nesting); config.hpp documents them.
constexpr size_type max_config_depth = 64;
constexpr size_type max_solver_depth = 8;

/// A JSON value and the key path that leads to it ("preconditioner.criteria.max_iters"),
/// with the checks that report a wrong value by that path.
class Node {
public:
    Node(const json& value, std::string path) : value_(value), path_(std::move(path)) {}

    const json& value() const noexcept { return value_; }
    const std::string& path() const noexcept { return path_; }
    bool has(const std::string& key) const { return value_.contains(key); }
    Node child(const std::string& key) const
    {
        return {value_.at(key), path_.empty() ? key : path_ + "." + key};
    }
    std::optional<Node> find(const std::string& key) const
    {
        if (!has(key)) return std::nullopt;
        return child(key);
    }

    [[noreturn]] void fail(const std::string& what) const
    {
        throw BadInput(where, (path_.empty() ? std::string("the config") : path_) + ": " + what);
    }
    [[noreturn]] void expected(const std::string& what) const
    {
        fail("expected " + what + ", got " + shown());
    }

    void expect_object(const std::string& what) const
    {
        if (!value_.is_object()) expected(what);
    }
    /// BadInput naming the first key that is not one of `known` (the object's own context
    /// in `owner`, e.g. "solver \"cg\"").
    void allow_keys(const std::vector<std::string>& known, const std::string& owner) const
    {
        for (const auto& item : value_.items()) {
            if (std::find(known.begin(), known.end(), item.key()) == known.end()) {
                child(item.key())
                    .fail("unknown key for " + owner + " (known: " + joined(known) + ")");
            }
        }
    }

    /// A string naming a value of E (its table: names_of(E{})).
    template <typename E>
    E one_of() const
    {
        const auto table = names_of(E{});
        if (value_.is_string()) {
            if (const auto value = table.find(value_.get_ref<const std::string&>())) return *value;
        }
        expected("one of " + table.joined_names());
    }
    bool boolean() const
    {
        if (!value_.is_boolean()) expected("true or false");
        return value_.get<bool>();
    }
    /// A finite number.
    double number(const std::string& what = "a finite number") const
    {
        if (!value_.is_number() || !std::isfinite(value_.get<double>())) expected(what);
        return value_.get<double>();
    }
    double non_negative_number() const
    {
        const auto value = number("a non-negative number");
        if (value < 0) expected("a non-negative number");
        return value;
    }
    /// An integer >= minimum; 1e3 is accepted as 1000.
    size_type integer(size_type minimum, const std::string& what) const
    {
        if (value_.is_number_unsigned()) {
            const auto value = value_.get<std::uint64_t>();
            if (value <= static_cast<std::uint64_t>(std::numeric_limits<size_type>::max()) &&
                static_cast<size_type>(value) >= minimum) {
                return static_cast<size_type>(value);
            }
        } else if (value_.is_number_integer()) {
            const auto value = value_.get<std::int64_t>();
            if (value >= minimum) return value;
        } else if (value_.is_number_float()) {
            const auto value = value_.get<double>();
            if (std::isfinite(value) && value == std::floor(value) && value >= double(minimum) &&
                value < 0x1p62) {
                return static_cast<size_type>(value);
            }
        }
        expected(what);
    }

private:
    static std::string joined(const std::vector<std::string>& words)
    {
        std::string text;
        for (const auto& word : words) text += (text.empty() ? "" : ", ") + word;
        return text;
    }
    /// The value as JSON text, shortened: messages quote what they refuse.
    std::string shown() const
    {
        auto text = value_.dump();
        constexpr std::size_t limit = 40;
        if (text.size() > limit) text = text.substr(0, limit) + "...";
        return text;
    }

    const json& value_;
    std::string path_;
};

/// In the order the builder's with_criteria would list them; AnyOf sorts residual criteria
/// first either way.
const std::vector<std::string> criterion_names{
    "max_iters", "relative_residual", "absolute_residual", "residual_reduction", "time_limit_s"};

template <typename V, typename I>
class Reader {
    template <typename, typename>
    friend class Reader;  // IR's lower-precision inner config

public:
    explicit Reader(std::shared_ptr<const Executor> exec) : exec_(std::move(exec)) {}

    /// A solver config; `guess` is the initial guess unless the config names one.
    std::shared_ptr<const LinOpFactory<V>> solver(const Node& node, InitialGuess guess) const
    {
        node.expect_object("an object with a \"solver\" key");
        if (!node.has("solver")) {
            node.fail("missing \"solver\" (one of " + names_of(SolverKind{}).joined_names() + ")");
        }
        const auto kind = node.child("solver").one_of<SolverKind>();
        switch (kind) {
        case SolverKind::cg: return krylov(Cg<V>::build(), node, guess);
        case SolverKind::fcg: return krylov(Fcg<V>::build(), node, guess);
        case SolverKind::bicg: return shadow(Bicg<V>::build(), node, guess);
        case SolverKind::bicgstab: return shadow(Bicgstab<V>::build(), node, guess);
        case SolverKind::cgs: return shadow(Cgs<V>::build(), node, guess);
        case SolverKind::gmres: return gmres(Gmres<V>::build(), node, guess);
        case SolverKind::cb_gmres: return gmres(CbGmres<V>::build(), node, guess);
        case SolverKind::fgmres: return gmres(Fgmres<V>::build(), node, guess);
        case SolverKind::gcr: return gcr(node, guess);
        case SolverKind::minres: return krylov(Minres<V>::build(), node, guess);
        case SolverKind::idr: return idr(node, guess);
        case SolverKind::pipe_cg: return pipe_cg(node, guess);
        case SolverKind::chebyshev: return chebyshev(node, guess);
        case SolverKind::ir: return ir(node, guess);
        case SolverKind::amg: return amg(node, guess);
        }
        node.fail("unknown solver");  // unreachable: one_of returns a value of the table
    }

private:
    /// The keys every solver takes, then `own` (that solver's), for allow_keys.
    static std::vector<std::string> solver_keys(std::initializer_list<const char*> own)
    {
        std::vector<std::string> keys{"solver", "criteria", "initial_guess", "throw_on_failure"};
        keys.insert(keys.end(), own.begin(), own.end());
        return keys;
    }

    /// "solver \"gmres\"": whose keys allow_keys checks.
    static std::string owner(const Node& node)
    {
        const auto kind = node.child("solver").one_of<SolverKind>();
        return "solver \"" + std::string(names_of(kind).to_string(kind)) + "\"";
    }

    /// A solver with nothing of its own but a preconditioner.
    template <typename Builder>
    std::shared_ptr<const LinOpFactory<V>> krylov(Builder builder, const Node& node,
                                                  InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner"}), owner(node));
        return common(std::move(builder), node, "preconditioner", guess);
    }

    /// GMRES, CB-GMRES and FGMRES: their parameters, then what every solver takes.
    template <typename Builder>
    std::shared_ptr<const LinOpFactory<V>> gmres(Builder builder, const Node& node,
                                                 InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner", "krylov_dim", "orthogonalization"}),
                        owner(node));
        if (auto m = node.find("krylov_dim")) {
            builder.with_krylov_dim(m->integer(1, "a positive integer"));
        }
        if (auto method = node.find("orthogonalization")) {
            builder.with_orthogonalization(method->one_of<Orthogonalization>());
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    /// The multigrid iteration: IR around one cycle (x += M^-1 (b - A x)); "amg" holds the
    /// hierarchy's options as the preconditioner "amg" takes them.
    std::shared_ptr<const LinOpFactory<V>> amg(const Node& node, InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"amg"}), owner(node));
        auto builder = Ir<V>::build();
        builder.with_preconditioner(multigrid(node.find("amg")));
        return common(std::move(builder), node, "inner", guess);
    }

    std::shared_ptr<const LinOpFactory<V>> ir(const Node& node, InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"inner", "relaxation_factor", "inner_precision"}),
                        owner(node));
        auto builder = Ir<V>::build();
        if (auto omega = node.find("relaxation_factor")) {
            builder.with_relaxation_factor(static_cast<V>(omega->number()));
        }
        if (auto precision = node.find("inner_precision")) {
            if (precision->one_of<InnerPrecision>() == InnerPrecision::lower) {
                builder.with_lower_precision_solver(lower_precision_inner(node));
                // The inner config was read in the lower precision: common() skips it.
                return common(std::move(builder), node, "", guess);
            }
        }
        return common(std::move(builder), node, "inner", guess);
    }

    std::shared_ptr<const LinOpFactory<V>> pipe_cg(const Node& node, InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner", "replacement_interval"}), owner(node));
        auto builder = PipeCg<V>::build();
        if (auto k = node.find("replacement_interval")) {
            builder.with_replacement_interval(k->integer(0, "a non-negative integer"));
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    std::shared_ptr<const LinOpFactory<V>> chebyshev(const Node& node, InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner", "eigenvalue_bounds", "estimation_steps"}),
                        owner(node));
        auto builder = Chebyshev<V>::build();
        if (auto bounds = node.find("eigenvalue_bounds")) {
            if (!bounds->value().is_array() || bounds->value().size() != 2) {
                bounds->expected("[lower, upper]");
            }
            const auto& pair = bounds->value();
            builder.with_eigenvalue_bounds(Node(pair[0], bounds->path() + "[0]").number(),
                                           Node(pair[1], bounds->path() + "[1]").number());
        }
        if (auto steps = node.find("estimation_steps")) {
            builder.with_estimation_steps(steps->integer(1, "a positive integer"));
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    /// IR's "inner" read in lower_precision_t<V> (required with inner_precision "lower").
    std::shared_ptr<const LinOpFactory<lower_precision_t<V>>> lower_precision_inner(
        const Node& node) const
    {
        using S = lower_precision_t<V>;
        if constexpr (std::is_same_v<S, V> || !loom::detail::is_built_value_type<S>()) {
            node.child("inner_precision")
                .fail("\"lower\" needs a value type with a lower precision that is built "
                      "(double with float, complex<double> with complex<float>)");
        } else {
            if (!node.has("inner")) node.fail("inner_precision \"lower\" needs an \"inner\"");
            auto inner = Reader<S, I>(exec_).preconditioner(node.child("inner"));
            if (!inner) node.child("inner").fail("inner_precision \"lower\" needs an inner solver");
            return inner;
        }
    }

    /// BiCG, BiCGSTAB or CGS: max_restarts (solver/shadow_restart.hpp).
    template <typename Builder>
    std::shared_ptr<const LinOpFactory<V>> shadow(Builder builder, const Node& node,
                                                  InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner", "max_restarts"}), owner(node));
        if (auto restarts = node.find("max_restarts")) {
            builder.with_max_restarts(restarts->integer(0, "a non-negative integer"));
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    std::shared_ptr<const LinOpFactory<V>> gcr(const Node& node, InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner", "krylov_dim"}), owner(node));
        auto builder = Gcr<V>::build();
        if (auto m = node.find("krylov_dim")) {
            builder.with_krylov_dim(m->integer(1, "a positive integer"));
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    std::shared_ptr<const LinOpFactory<V>> idr(const Node& node, InitialGuess guess) const
    {
        node.allow_keys(solver_keys({"preconditioner", "subspace_dim", "seed"}), owner(node));
        auto builder = Idr<V>::build();
        if (auto dim = node.find("subspace_dim")) {
            builder.with_subspace_dim(dim->integer(1, "a positive integer"));
        }
        if (auto seed = node.find("seed")) {
            const auto value = seed->integer(0, "a non-negative integer");
            builder.with_seed(static_cast<std::uint64_t>(value));
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    /// What every solver takes; `inner_key` names its preconditioner slot.
    template <typename Builder>
    std::shared_ptr<const LinOpFactory<V>> common(Builder builder, const Node& node,
                                                  const std::string& inner_key,
                                                  InitialGuess guess) const
    {
        if (auto inner = node.find(inner_key)) {
            if (auto factory = preconditioner(*inner)) builder.with_preconditioner(factory);
        }
        if (!node.has("criteria")) {
            node.fail("missing \"criteria\": a solver needs at least one stopping criterion "
                      "(e.g. {\"max_iters\": 1000, \"relative_residual\": 1e-8})");
        }
        builder.with_criteria(criteria(node.child("criteria")));
        if (auto initial = node.find("initial_guess")) {
            guess = initial->one_of<InitialGuess>();
        }
        builder.with_initial_guess(guess);
        if (auto throws = node.find("throw_on_failure")) {
            builder.with_throw_on_failure(throws->boolean());
        }
        return builder.on(exec_);
    }

    /// nullptr for "none".
    std::shared_ptr<const LinOpFactory<V>> preconditioner(const Node& node) const
    {
        const auto names = names_of(PreconditionerKind{});
        if (node.value().is_string()) {
            return preconditioner(node.one_of<PreconditionerKind>(), node);
        }
        if (!node.value().is_object()) {
            std::string quoted;
            for (const auto& name : names.names()) quoted += "\"" + name + "\", ";
            node.expected(quoted + "a preconditioner object or a solver object");
        }
        // A nested solver must not start from its x: as a preconditioner that is unrelated.
        if (node.has("solver")) return solver(node, InitialGuess::zero);
        if (!node.has("type")) {
            node.fail("missing \"type\" (" + names.joined_names() +
                      ") or \"solver\" (a nested solver)");
        }
        return preconditioner(node.child("type").one_of<PreconditionerKind>(), node);
    }

    /// The preconditioner `kind` with the options of `node` (none for a string).
    std::shared_ptr<const LinOpFactory<V>> preconditioner(PreconditionerKind kind,
                                                          const Node& node) const
    {
        const bool options = node.value().is_object();
        const auto owner = "preconditioner \"" + std::string(names_of(kind).to_string(kind)) + "\"";
        switch (kind) {
        case PreconditionerKind::none:
            if (options) node.allow_keys({"type"}, owner);
            return nullptr;
        case PreconditionerKind::jacobi:
            if (options) node.allow_keys({"type", "adaptive_precision", "accuracy"}, owner);
            return jacobi(1, node);
        case PreconditionerKind::block_jacobi:
            if (options) {
                node.allow_keys({"type", "adaptive_precision", "accuracy", "max_block_size"},
                                owner);
            }
            return jacobi(max_jacobi_block_size, node);
        case PreconditionerKind::lower_trs:
        case PreconditionerKind::upper_trs:
            if (options) node.allow_keys({"type", "algorithm", "unit_diagonal"}, owner);
            return triangular(kind, node);
        case PreconditionerKind::ilu: return incomplete(sparse::IluKind::ilu0, node, owner);
        case PreconditionerKind::ic: return incomplete(sparse::IluKind::ic0, node, owner);
        case PreconditionerKind::ilut: return incomplete(sparse::IluKind::ilut, node, owner);
        case PreconditionerKind::parilut: return incomplete(sparse::IluKind::parilut, node, owner);
        case PreconditionerKind::parilu: return incomplete(sparse::IluKind::parilu, node, owner);
        case PreconditionerKind::parict: return incomplete(sparse::IluKind::parict, node, owner);
        case PreconditionerKind::amg: return multigrid(node);
        case PreconditionerKind::gauss_seidel:
        case PreconditionerKind::sgs: return gauss_seidel(kind, node, owner);
        case PreconditionerKind::isai:
            if (options) node.allow_keys({"type", "kind", "power"}, owner);
            return isai(node);
        }
        node.fail("unknown preconditioner");  // unreachable: one_of returns a table value
    }

    /// Jacobi with blocks up to `block_size`, unless the options of `node` say otherwise.
    std::shared_ptr<const LinOpFactory<V>> jacobi(size_type block_size, const Node& node) const
    {
        if (!node.value().is_object()) return jacobi_builder(block_size).on(exec_);
        if (auto size = node.find("max_block_size")) {
            block_size = size->integer(1, "a positive integer");
            if (block_size > max_jacobi_block_size) {
                size->fail("at most " + std::to_string(max_jacobi_block_size) + ", got " +
                           std::to_string(block_size));
            }
        }
        auto builder = jacobi_builder(block_size);
        if (auto adaptive = node.find("adaptive_precision")) {
            builder.with_adaptive_precision(adaptive->boolean());
        }
        if (auto accuracy = node.find("accuracy")) {
            const double bound = accuracy->number("a number in (0, 1)");
            if (!(bound > 0 && bound < 1)) accuracy->expected("a number in (0, 1)");
            builder.with_accuracy(bound);
        }
        return builder.on(exec_);
    }

    /// LowerTrs / UpperTrs from a name or an object with "algorithm" and "unit_diagonal".
    std::shared_ptr<const LinOpFactory<V>> triangular(PreconditionerKind kind,
                                                      const Node& node) const
    {
        typename solver::LowerTrs<V, I>::Parameters params;
        if (node.value().is_object()) {
            if (auto algorithm = node.find("algorithm")) {
                params.algorithm = algorithm->one_of<sparse::SptrsvAlgorithm>();
            }
            if (auto unit = node.find("unit_diagonal")) params.unit_diagonal = unit->boolean();
        }
        const auto configure = [&](auto builder) {
            builder.with_algorithm(params.algorithm).with_unit_diagonal(params.unit_diagonal);
            return std::shared_ptr<const LinOpFactory<V>>(builder.on(exec_));
        };
        if (kind == PreconditionerKind::lower_trs) return configure(solver::LowerTrs<V, I>::build());
        return configure(solver::UpperTrs<V, I>::build());
    }

    /// Ilu / Ic for an incomplete factorization kind, from a name or an object with the options
    /// of precond/ilu.hpp; nullptr for other names.
    std::shared_ptr<const LinOpFactory<V>> incomplete(sparse::IluKind kind, const Node& node,
                                                      const std::string& owner) const
    {
        sparse::IluOptions options{.kind = kind};
        typename precond::Ilu<V, I>::Parameters params;
        if (node.value().is_object()) {
            node.allow_keys({"type", "level", "sweeps", "steps", "fill_limit", "drop_tolerance",
                             "diagonal_shift", "triangular_solve", "triangular_sweeps",
                             "algorithm", "reordering"},
                            owner);
            if (auto level = node.find("level")) {
                options.level = static_cast<int>(level->integer(0, "a non-negative integer"));
                if (options.level > 0 && options.kind == sparse::IluKind::ilu0) {
                    options.kind = sparse::IluKind::iluk;
                }
                if (options.level > 0 && options.kind == sparse::IluKind::ic0) {
                    options.kind = sparse::IluKind::ick;
                }
            }
            if (auto sweeps = node.find("sweeps")) {
                options.sweeps = static_cast<int>(sweeps->integer(0, "a non-negative integer"));
            }
            if (auto steps = node.find("steps")) {
                options.steps = static_cast<int>(steps->integer(0, "a non-negative integer"));
            }
            if (auto fill = node.find("fill_limit")) {
                options.fill_limit = fill->number("a positive number");
                if (!(options.fill_limit > 0)) fill->expected("a positive number");
            }
            if (auto drop = node.find("drop_tolerance")) {
                options.drop_tolerance = drop->non_negative_number();
            }
            if (auto shift = node.find("diagonal_shift")) {
                options.diagonal_shift = shift->one_of<sparse::DiagonalShift>();
            }
            if (auto solve = node.find("triangular_solve")) {
                params.triangular_solve = solve->one_of<precond::TriangularSolve>();
            }
            if (auto sweeps = node.find("triangular_sweeps")) {
                params.triangular_sweeps =
                    static_cast<int>(sweeps->integer(1, "a positive integer"));
            }
            if (auto algorithm = node.find("algorithm")) {
                params.algorithm = algorithm->one_of<sparse::SptrsvAlgorithm>();
            }
            if (auto reordering = node.find("reordering")) {
                params.reordering = reordering->one_of<precond::Reordering>();
            }
        }
        const auto configure = [&](auto builder) {
            builder.with_factorization(options)
                .with_triangular_solve(params.triangular_solve, params.triangular_sweeps)
                .with_algorithm(params.algorithm)
                .with_reordering(params.reordering);
            return std::shared_ptr<const LinOpFactory<V>>(builder.on(exec_));
        };
        if (sparse::is_cholesky(options.kind)) return configure(precond::Ic<V, I>::build());
        return configure(precond::Ilu<V, I>::build());
    }

    /// Isai from a name or an object with "kind" (general, lower, upper, spd) and "power".
    std::shared_ptr<const LinOpFactory<V>> isai(const Node& node) const
    {
        auto builder = precond::Isai<V, I>::build();
        if (node.value().is_object()) {
            if (auto kind = node.find("kind")) builder.with_kind(kind->one_of<sparse::IsaiKind>());
            if (auto power = node.find("power")) {
                builder.with_power(static_cast<int>(power->integer(1, "a positive integer")));
            }
        }
        return builder.on(exec_);
    }

    /// {"type": "amg", "cycle": "v", "smoother": "chebyshev", "pre_sweeps": 2, ...}; the
    /// defaults when there are no options (none given, or the plain name "amg").
    std::shared_ptr<const LinOpFactory<V>> multigrid(const std::optional<Node>& options) const
    {
        auto builder = Multigrid<V, I>::build();
        if (!options || !options->value().is_object()) return builder.on(exec_);
        const auto& node = *options;
        node.allow_keys({"type", "cycle", "smoother", "pre_sweeps", "post_sweeps",
                         "strength_threshold", "coarse_size", "max_levels", "dofs_per_node",
                         "coordinates", "aggregation", "pairwise_passes", "smoothing"},
                        "preconditioner \"amg\"");
        if (auto cycle = node.find("cycle")) {
            builder.with_cycle(cycle->one_of<MultigridCycle>());
        }
        if (auto smoother = node.find("smoother")) {
            builder.with_smoother(smoother->one_of<MultigridSmoother>());
        }
        if (auto aggregation = node.find("aggregation")) {
            builder.with_aggregation(aggregation->one_of<MultigridAggregation>());
        }
        if (auto passes = node.find("pairwise_passes")) {
            const auto count = passes->integer(1, "a count in [1, 8]");
            if (count > 8) passes->expected("a count in [1, 8]");
            builder.with_pairwise_passes(static_cast<int>(count));
        }
        if (auto smoothing = node.find("smoothing")) builder.with_smoothing(smoothing->boolean());
        const auto& params = builder.parameters();
        int pre = params.pre_sweeps;
        int post = params.post_sweeps;
        if (auto sweeps = node.find("pre_sweeps")) {
            pre = static_cast<int>(sweeps->integer(0, "a count"));
        }
        if (auto sweeps = node.find("post_sweeps")) {
            post = static_cast<int>(sweeps->integer(1, "a positive count"));
        }
        builder.with_sweeps(pre, post);
        if (auto theta = node.find("strength_threshold")) {
            const double value = theta->number("a number in [0, 1)");
            if (!(value >= 0 && value < 1)) theta->expected("a number in [0, 1)");
            builder.with_strength_threshold(value);
        }
        if (auto rows = node.find("coarse_size")) {
            builder.with_coarse_size(rows->integer(1, "a positive integer"));
        }
        if (auto levels = node.find("max_levels")) {
            builder.with_max_levels(levels->integer(1, "a positive integer"));
        }
        if (auto dofs = node.find("dofs_per_node")) {
            builder.with_dofs_per_node(dofs->integer(1, "a positive integer"));
        }
        // Nodal coordinates (nodes x 2 or 3), as a dense Matrix Market file or inline rows:
        // the rigid-body modes; unknowns per node from "dofs_per_node", else one per
        // coordinate.
        if (auto coordinates = node.find("coordinates")) {
            const auto& value = coordinates->value();
            const auto xyz = value.is_string()
                                 ? matrix::read_dense<V>(
                                       exec_, value.template get_ref<const std::string&>())
                                 : inline_coordinates(*coordinates);
            const auto dofs = node.has("dofs_per_node") ? builder.parameters().dofs_per_node
                                                        : xyz.cols();
            try {
                builder.with_coordinates(xyz, dofs);
            } catch (const BadInput& e) {
                coordinates->fail(e.what());
            }
        }
        return builder.on(exec_);
    }

    /// Coordinates written inline: an array of rows of 2 or 3 numbers each, one per node.
    matrix::Dense<V> inline_coordinates(const Node& node) const
    {
        constexpr const char* wanted = "a file name or an array of [x, y] or [x, y, z] rows";
        const auto& rows = node.value();
        if (!rows.is_array() || rows.empty() || !rows.front().is_array()) node.expected(wanted);
        const size_type dims = rows.front().size();
        if (dims != 2 && dims != 3) node.expected(wanted);
        std::vector<V> values;
        values.reserve(rows.size() * dims);
        for (const auto& row : rows) {
            if (!row.is_array() || row.size() != dims) node.expected(wanted);
            for (const auto& x : row) {
                if (!x.is_number() || !std::isfinite(x.template get<double>())) {
                    node.expected(wanted);
                }
                values.push_back(V(x.template get<double>()));
            }
        }
        return matrix::Dense<V>::from_host(exec_, {static_cast<size_type>(rows.size()), dims},
                                           values);
    }

    /// "gauss-seidel" (forward unless "direction" says otherwise) or "sgs" (symmetric), with
    /// the optional keys of its object form when `node` is given.
    std::shared_ptr<const LinOpFactory<V>> gauss_seidel(PreconditionerKind kind,
                                                        const Node& node,
                                                        const std::string& owner) const
    {
        auto builder = precond::GaussSeidel<V, I>::build();
        builder.with_direction(kind == PreconditionerKind::sgs
                                   ? precond::GaussSeidelDirection::symmetric
                                   : precond::GaussSeidelDirection::forward);
        if (!node.value().is_object()) return builder.on(exec_);
        std::vector<std::string> keys{"type", "relaxation", "sweeps", "variant"};
        if (kind == PreconditionerKind::gauss_seidel) keys.push_back("direction");
        node.allow_keys(keys, owner);
        if (auto direction = node.find("direction")) {
            builder.with_direction(direction->one_of<precond::GaussSeidelDirection>());
        }
        if (auto variant = node.find("variant")) {
            builder.with_variant(variant->one_of<precond::GaussSeidelVariant>());
        }
        if (auto omega = node.find("relaxation")) {
            const double value = omega->number("a number in (0, 2)");
            if (!(value > 0 && value < 2)) omega->expected("a number in (0, 2)");
            builder.with_relaxation(value);
        }
        if (auto sweeps = node.find("sweeps")) {
            builder.with_sweeps(sweeps->integer(1, "a positive integer"));
        }
        return builder.on(exec_);
    }

    static typename precond::Jacobi<V, I>::Builder jacobi_builder(size_type max_block_size)
    {
        auto builder = precond::Jacobi<V, I>::build();
        builder.with_max_block_size(max_block_size);
        return builder;
    }

    std::shared_ptr<const stop::Criterion> criteria(const Node& node) const
    {
        node.expect_object("an object of stopping criteria (max_iters, relative_residual, ...)");
        node.allow_keys(criterion_names, "criteria");
        std::vector<std::shared_ptr<const stop::Criterion>> all;
        for (const auto& name : criterion_names) {
            const auto item = node.find(name);
            if (!item) continue;
            if (name == "max_iters") {
                all.push_back(stop::max_iterations(item->integer(0, "a non-negative integer")));
            } else if (name == "relative_residual") {
                all.push_back(stop::relative_residual(item->non_negative_number()));
            } else if (name == "absolute_residual") {
                all.push_back(stop::absolute_residual(item->non_negative_number()));
            } else if (name == "residual_reduction") {
                all.push_back(stop::residual_reduction(item->non_negative_number()));
            } else {
                const double seconds = item->number("a positive number of seconds");
                // Beyond a century the nanosecond count would overflow; no solve runs so long.
                if (!(seconds > 0) || seconds > 3e9) item->expected("a positive number of seconds");
                all.push_back(stop::time_limit(std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::duration<double>(seconds))));
            }
        }
        if (all.empty()) {
            node.fail("expected at least one criterion (max_iters, relative_residual, "
                      "absolute_residual, residual_reduction, time_limit_s)");
        }
        return all.size() == 1 ? all.front() : stop::any_of(std::move(all));
    }

    std::shared_ptr<const Executor> exec_;
};

json parse(std::string_view text)
{
    try {
        return json::parse(text.begin(), text.end(), nullptr, true, /*ignore_comments=*/true);
    } catch (const json::exception& e) {
        // parse_error, and out_of_range for a number beyond double (1e400).
        // e.what() is "[json.exception.parse_error.101] parse error at line 2, column 5: ..."
        std::string message = e.what();
        const auto bracket = message.find("] ");
        if (message.starts_with("[json.exception") && bracket != std::string::npos) {
            message.erase(0, bracket + 2);
        }
        throw BadInput(where, "invalid JSON: " + message);
    }
}

/// Refuses configs nested deeper than max_config_depth JSON levels or max_solver_depth
/// solvers, before the recursive reader sees them: thousands of levels overflowed its stack,
/// and as each nested solver applies the one inside it at least twice per iteration, 30
/// solvers deep ran for ever. The walk keeps its own stack.
void check_nesting(const json& config)
{
    struct Level {
        const json* value;
        std::string path;
        size_type depth;
        size_type solvers;
    };
    std::vector<Level> pending{{&config, "", 1, 0}};
    while (!pending.empty()) {
        auto level = std::move(pending.back());
        pending.pop_back();
        const auto& value = *level.value;
        const auto shown_path = level.path.empty() ? std::string("the config") : level.path;
        if (level.depth > max_config_depth) {
            throw BadInput(where, shown_path + ": nested more than " +
                                      std::to_string(max_config_depth) + " levels deep");
        }
        if (value.is_object() && value.contains("solver")) ++level.solvers;
        if (level.solvers > max_solver_depth) {
            throw BadInput(where, shown_path + ": more than " + std::to_string(max_solver_depth) +
                                      " solvers nested in one another (each multiplies the "
                                      "work of the ones inside it)");
        }
        if (!value.is_structured()) continue;
        std::size_t index = 0;
        for (const auto& item : value.items()) {
            const auto key = value.is_array() ? "[" + std::to_string(index++) + "]" : item.key();
            const auto separator = level.path.empty() || value.is_array() ? "" : ".";
            pending.push_back(
                {&item.value(), level.path + separator + key, level.depth + 1, level.solvers});
        }
    }
}

}  // namespace

template <typename V, typename I>
std::shared_ptr<const IterativeSolverFactory<V>> from_config(std::string_view json_text,
                                                    std::shared_ptr<const Executor> exec)
{
    if (!exec) throw BadInput(where, "the executor is null");
    const auto config = parse(json_text);
    check_nesting(config);
    auto factory = std::dynamic_pointer_cast<const IterativeSolverFactory<V>>(
        Reader<V, I>(std::move(exec)).solver(Node(config, ""), InitialGuess::provided));
    // Every solver the reader builds is an iterative solver's Factory.
    if (!factory) throw NotSupported(where, "the config does not describe an iterative solver");
    return factory;
}

template <typename V, typename I>
std::shared_ptr<const IterativeSolverFactory<V>> from_config_file(const std::string& path,
                                                         std::shared_ptr<const Executor> exec)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw IoError("loom::solver::from_config_file", "cannot open '" + path + "'");
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw IoError("loom::solver::from_config_file", "cannot read '" + path + "'");
    try {
        return from_config<V, I>(text, std::move(exec));
    } catch (const BadInput& e) {
        const std::string what = e.what();
        throw BadInput("loom::solver::from_config_file",
                       path + ": " + what.substr(e.where().size() + 2));
    }
}

#define LOOM_INSTANTIATE_FROM_CONFIG(V, I)                                  \
    template std::shared_ptr<const IterativeSolverFactory<V>> from_config<V, I>(      \
        std::string_view, std::shared_ptr<const Executor>);                  \
    template std::shared_ptr<const IterativeSolverFactory<V>> from_config_file<V, I>( \
        const std::string&, std::shared_ptr<const Executor>);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FROM_CONFIG)

}  // namespace loom::solver
