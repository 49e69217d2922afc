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
#include <vector>

#include <nlohmann/json.hpp>

#include "base/instantiate.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/solvers.hpp"

namespace loom::solver {
namespace {

using json = nlohmann::json;

constexpr const char* where = "loom::solver::from_config";

/// Block Jacobi blocks are at most this large (issue 3: up to 32 x 32).
constexpr size_type max_jacobi_block_size = 32;

/// A JSON value and the key path that leads to it ("preconditioner.criteria.max_iters"),
/// with the checks that report a wrong value by that path.
class Node {
public:
    Node(const json& value, std::string path) : value_(value), path_(std::move(path)) {}

    const json& value() const noexcept { return value_; }
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

    std::string one_of(const std::vector<std::string>& choices) const
    {
        if (value_.is_string()) {
            const auto& text = value_.get_ref<const std::string&>();
            if (std::find(choices.begin(), choices.end(), text) != choices.end()) return text;
        }
        expected("one of " + joined(choices));
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

const std::vector<std::string> solver_names{"cg",  "fcg",    "bicg", "bicgstab", "cgs",   "gmres",
                                           "ir", "fgmres", "gcr",  "minres",   "idr"};
const std::vector<std::string> preconditioner_names{"none", "jacobi", "block-jacobi"};
/// In the order the builder's with_criteria would list them; AnyOf sorts residual criteria
/// first either way.
const std::vector<std::string> criterion_names{
    "max_iters", "relative_residual", "absolute_residual", "residual_reduction", "time_limit_s"};

template <typename V, typename I>
class Reader {
public:
    explicit Reader(std::shared_ptr<const Executor> exec) : exec_(std::move(exec)) {}

    /// A solver config; `guess` is the initial guess unless the config names one.
    std::shared_ptr<const LinOpFactory<V>> solver(const Node& node, InitialGuess guess) const
    {
        node.expect_object("an object with a \"solver\" key");
        if (!node.has("solver")) {
            node.fail("missing \"solver\" (one of cg, fcg, bicg, bicgstab, cgs, gmres, ir, "
                      "fgmres, gcr, minres, idr)");
        }
        const auto name = node.child("solver").one_of(solver_names);
        std::vector<std::string> keys{"solver", "criteria", "initial_guess", "throw_on_failure"};
        const auto owner = "solver \"" + name + "\"";
        if (name == "gmres") return gmres(Gmres<V>::build(), node, keys, owner, guess);
        if (name == "fgmres") return gmres(Fgmres<V>::build(), node, keys, owner, guess);
        if (name == "gcr") {
            keys.insert(keys.end(), {"preconditioner", "krylov_dim"});
            node.allow_keys(keys, owner);
            auto builder = Gcr<V>::build();
            if (auto m = node.find("krylov_dim")) {
                builder.with_krylov_dim(m->integer(1, "a positive integer"));
            }
            return common(std::move(builder), node, "preconditioner", guess);
        }
        if (name == "idr") {
            keys.insert(keys.end(), {"preconditioner", "subspace_dim", "seed"});
            node.allow_keys(keys, owner);
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
        if (name == "bicg") return shadow(Bicg<V>::build(), node, keys, owner, guess);
        if (name == "bicgstab") return shadow(Bicgstab<V>::build(), node, keys, owner, guess);
        if (name == "cgs") return shadow(Cgs<V>::build(), node, keys, owner, guess);
        if (name == "ir") {
            keys.insert(keys.end(), {"inner", "relaxation_factor"});
            node.allow_keys(keys, owner);
            auto builder = Ir<V>::build();
            if (auto omega = node.find("relaxation_factor")) {
                builder.with_relaxation_factor(static_cast<V>(omega->number()));
            }
            return common(std::move(builder), node, "inner", guess);
        }
        keys.push_back("preconditioner");
        node.allow_keys(keys, owner);
        if (name == "cg") return common(Cg<V>::build(), node, "preconditioner", guess);
        if (name == "fcg") return common(Fcg<V>::build(), node, "preconditioner", guess);
        return common(Minres<V>::build(), node, "preconditioner", guess);
    }

private:
    /// GMRES or FGMRES: krylov_dim and orthogonalization.
    template <typename Builder>
    std::shared_ptr<const LinOpFactory<V>> gmres(Builder builder, const Node& node,
                                                 std::vector<std::string> keys,
                                                 const std::string& owner,
                                                 InitialGuess guess) const
    {
        keys.insert(keys.end(), {"preconditioner", "krylov_dim", "orthogonalization"});
        node.allow_keys(keys, owner);
        if (auto m = node.find("krylov_dim")) {
            builder.with_krylov_dim(m->integer(1, "a positive integer"));
        }
        if (auto method = node.find("orthogonalization")) {
            const bool modified = method->one_of({"modified", "classical"}) == "modified";
            builder.with_orthogonalization(modified ? Orthogonalization::modified
                                                    : Orthogonalization::classical);
        }
        return common(std::move(builder), node, "preconditioner", guess);
    }

    /// BiCG, BiCGSTAB or CGS: max_restarts (solver/shadow_restart.hpp).
    template <typename Builder>
    std::shared_ptr<const LinOpFactory<V>> shadow(Builder builder, const Node& node,
                                                  std::vector<std::string> keys,
                                                  const std::string& owner,
                                                  InitialGuess guess) const
    {
        keys.insert(keys.end(), {"preconditioner", "max_restarts"});
        node.allow_keys(keys, owner);
        if (auto restarts = node.find("max_restarts")) {
            builder.with_max_restarts(restarts->integer(0, "a non-negative integer"));
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
            guess = initial->one_of({"provided", "zero"}) == "zero" ? InitialGuess::zero
                                                                    : InitialGuess::provided;
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
        const std::string what =
            "\"none\", \"jacobi\", \"block-jacobi\", a preconditioner object or a solver object";
        if (node.value().is_string()) {
            const auto name = node.one_of(preconditioner_names);
            if (name == "none") return nullptr;
            return jacobi_builder(name == "jacobi" ? 1 : max_jacobi_block_size).on(exec_);
        }
        if (!node.value().is_object()) node.expected(what);
        // A nested solver must not start from its x: as a preconditioner that is unrelated.
        if (node.has("solver")) return solver(node, InitialGuess::zero);
        if (!node.has("type")) {
            node.fail("missing \"type\" (none, jacobi, block-jacobi) or \"solver\" (a nested "
                      "solver)");
        }
        const auto type = node.child("type").one_of(preconditioner_names);
        if (type == "none") {
            node.allow_keys({"type"}, "preconditioner \"none\"");
            return nullptr;
        }
        std::vector<std::string> keys{"type", "adaptive_precision", "accuracy"};
        if (type == "block-jacobi") keys.push_back("max_block_size");
        node.allow_keys(keys, "preconditioner \"" + type + "\"");
        size_type block_size = type == "jacobi" ? 1 : max_jacobi_block_size;
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
    } catch (const json::parse_error& e) {
        // e.what() is "[json.exception.parse_error.101] parse error at line 2, column 5: ..."
        std::string message = e.what();
        const auto bracket = message.find("] ");
        if (message.starts_with("[json.exception") && bracket != std::string::npos) {
            message.erase(0, bracket + 2);
        }
        throw BadInput(where, "invalid JSON: " + message);
    }
}

}  // namespace

template <typename V, typename I>
std::shared_ptr<const LinOpFactory<V>> from_config(std::string_view json_text,
                                                   std::shared_ptr<const Executor> exec)
{
    if (!exec) throw BadInput(where, "the executor is null");
    const auto config = parse(json_text);
    return Reader<V, I>(std::move(exec)).solver(Node(config, ""), InitialGuess::provided);
}

template <typename V, typename I>
std::shared_ptr<const LinOpFactory<V>> from_config_file(const std::string& path,
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
    template std::shared_ptr<const LinOpFactory<V>> from_config<V, I>(      \
        std::string_view, std::shared_ptr<const Executor>);                 \
    template std::shared_ptr<const LinOpFactory<V>> from_config_file<V, I>( \
        const std::string&, std::shared_ptr<const Executor>);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_FROM_CONFIG)

}  // namespace loom::solver
