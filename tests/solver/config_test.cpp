// Solver stacks from JSON: every key reaches the builder it names, configs and builders give
// the same iterations, and every malformed config is refused with the key path.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/base/error.hpp"
#include "loom/log/loggers.hpp"
#include "loom/precond/gauss_seidel.hpp"
#include "loom/precond/jacobi.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/multigrid.hpp"
#include "loom/solver/solvers.hpp"
#include "solver/problems.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace {

using namespace loom;
using loom::test::grid_matrix;

/// Parsing does not depend on the value type: the first one built is enough.
using V = std::tuple_element_t<0, loom::test::value_tuple>;

/// A copy: the factory is often a temporary.
template <typename SolverT>
typename SolverT::Parameters parameters_of(
    const std::shared_ptr<const LinOpFactory<typename SolverT::value_type>>& factory)
{
    const auto* typed = dynamic_cast<const solver::Factory<SolverT>*>(factory.get());
    if (typed == nullptr) throw std::runtime_error("not a factory of the expected solver");
    return typed->parameters();
}

std::shared_ptr<const LinOpFactory<V>> parse(const std::string& text)
{
    return solver::from_config<V>(text, test::reference());
}

/// The message of the BadInput that parsing `text` raises ("" when none).
std::string error_of(const std::string& text)
{
    try {
        parse(text);
    } catch (const BadInput& e) {
        return e.what();
    }
    return "";
}

constexpr const char* criteria = R"("criteria": {"max_iters": 50})";

TEST(Config, BuildsEachSolver)
{
    const auto with = [](const std::string& name) {
        return parse(R"({"solver": ")" + name + R"(", )" + criteria + "}");
    };
    EXPECT_NO_THROW(parameters_of<solver::Cg<V>>(with("cg")));
    EXPECT_NO_THROW(parameters_of<solver::Fcg<V>>(with("fcg")));
    EXPECT_NO_THROW(parameters_of<solver::Bicg<V>>(with("bicg")));
    EXPECT_NO_THROW(parameters_of<solver::Bicgstab<V>>(with("bicgstab")));
    EXPECT_NO_THROW(parameters_of<solver::Cgs<V>>(with("cgs")));
    EXPECT_NO_THROW(parameters_of<solver::Gmres<V>>(with("gmres")));
    EXPECT_NO_THROW(parameters_of<solver::Ir<V>>(with("ir")));
    EXPECT_NO_THROW(parameters_of<solver::Fgmres<V>>(with("fgmres")));
    EXPECT_NO_THROW(parameters_of<solver::Gcr<V>>(with("gcr")));
    EXPECT_NO_THROW(parameters_of<solver::Minres<V>>(with("minres")));
    EXPECT_NO_THROW(parameters_of<solver::Idr<V>>(with("idr")));
}

TEST(Config, ReadsTheNewSolversParameters)
{
    const auto bicgstab = parameters_of<solver::Bicgstab<V>>(parse(
        R"({"solver": "bicgstab", "max_restarts": 3, )" + std::string(criteria) + "}"));
    EXPECT_EQ(bicgstab.max_restarts, 3);
    EXPECT_EQ(parameters_of<solver::Cgs<V>>(parse(R"({"solver": "cgs", )" +
                                                  std::string(criteria) + "}"))
                  .max_restarts,
              solver::ShadowParameters<V>::default_max_restarts);
    const auto idr = parameters_of<solver::Idr<V>>(parse(
        R"({"solver": "idr", "subspace_dim": 4, "seed": 7, )" + std::string(criteria) + "}"));
    EXPECT_EQ(idr.subspace_dim, 4);
    EXPECT_EQ(idr.seed, 7u);
    const auto fgmres = parameters_of<solver::Fgmres<V>>(parse(
        R"({"solver": "fgmres", "krylov_dim": 12, "preconditioner": "jacobi", )" +
        std::string(criteria) + "}"));
    EXPECT_EQ(fgmres.krylov_dim, 12);
    EXPECT_NE(fgmres.preconditioner_factory, nullptr);
    EXPECT_EQ(parameters_of<solver::Gcr<V>>(parse(R"({"solver": "gcr", "krylov_dim": 5, )" +
                                                  std::string(criteria) + "}"))
                  .krylov_dim,
              5);
}

TEST(Config, DefaultsMatchTheBuilder)
{
    const auto p = parameters_of<solver::Gmres<V>>(
        parse(R"({"solver": "gmres", )" + std::string(criteria) + "}"));
    const auto defaults = solver::Gmres<V>::build().parameters();
    EXPECT_EQ(p.krylov_dim, defaults.krylov_dim);
    EXPECT_EQ(p.orthogonalization, defaults.orthogonalization);
    EXPECT_EQ(p.initial_guess, solver::InitialGuess::provided);
    EXPECT_FALSE(p.throw_on_failure);
    EXPECT_EQ(p.preconditioner_factory, nullptr);
    EXPECT_EQ(p.preconditioner, nullptr);
    EXPECT_EQ(p.criteria->description(), "iterations >= 50");
}

TEST(Config, ReadsEveryGmresKey)
{
    const auto p = parameters_of<solver::Gmres<V>>(parse(R"({
        "solver": "gmres", "krylov_dim": 12, "orthogonalization": "classical",
        "initial_guess": "zero", "throw_on_failure": true, "preconditioner": "none",
        "criteria": {"max_iters": 7}})"));
    EXPECT_EQ(p.krylov_dim, 12);
    EXPECT_EQ(p.orthogonalization, solver::Orthogonalization::classical);
    EXPECT_EQ(p.initial_guess, solver::InitialGuess::zero);
    EXPECT_TRUE(p.throw_on_failure);
    EXPECT_EQ(p.preconditioner_factory, nullptr);
    const auto modified = parameters_of<solver::Gmres<V>>(
        parse(R"({"solver": "gmres", "orthogonalization": "modified", "krylov_dim": 3e1, )" +
              std::string(criteria) + "}"));
    EXPECT_EQ(modified.orthogonalization, solver::Orthogonalization::modified);
    EXPECT_EQ(modified.krylov_dim, 30);
}

TEST(Config, ReadsEveryCriterion)
{
    const auto p = parameters_of<solver::Cg<V>>(parse(R"({"solver": "cg", "criteria": {
        "max_iters": 100, "relative_residual": 1e-8, "absolute_residual": 1e-30,
        "residual_reduction": 1e-6, "time_limit_s": 2.5}})"));
    const auto builder = stop::any_of(
        {stop::max_iterations(100), stop::relative_residual(1e-8), stop::absolute_residual(1e-30),
         stop::residual_reduction(1e-6), stop::time_limit(std::chrono::milliseconds(2500))});
    EXPECT_EQ(p.criteria->description(), builder->description());

    const auto one = parameters_of<solver::Cg<V>>(
        parse(R"({"solver": "cg", "criteria": {"residual_reduction": 0}})"));
    EXPECT_NE(dynamic_cast<const stop::ResidualNorm*>(one.criteria.get()), nullptr);
    EXPECT_EQ(one.criteria->description(), stop::residual_reduction(0)->description());
    const auto limit =
        parameters_of<solver::Cg<V>>(parse(R"({"solver": "cg", "criteria": {"max_iters": 0}})"));
    EXPECT_EQ(limit.criteria->description(), "iterations >= 0");
}

TEST(Config, NestedSolverIsThePreconditionerAndStartsFromZero)
{
    const auto p = parameters_of<solver::Fcg<V>>(parse(R"({"solver": "fcg",
        "preconditioner": {"solver": "cg", "criteria": {"max_iters": 4}},
        "criteria": {"max_iters": 30}})"));
    ASSERT_NE(p.preconditioner_factory, nullptr);
    const auto inner = parameters_of<solver::Cg<V>>(p.preconditioner_factory);
    EXPECT_EQ(inner.initial_guess, solver::InitialGuess::zero);
    EXPECT_EQ(inner.criteria->description(), "iterations >= 4");
    EXPECT_EQ(p.initial_guess, solver::InitialGuess::provided);

    const auto kept = parameters_of<solver::Fcg<V>>(parse(R"({"solver": "fcg",
        "preconditioner": {"solver": "gmres", "initial_guess": "provided", "criteria":
        {"max_iters": 4}}, "criteria": {"max_iters": 30}})"));
    EXPECT_EQ(parameters_of<solver::Gmres<V>>(kept.preconditioner_factory).initial_guess,
              solver::InitialGuess::provided);
}

TEST(Config, IrTakesInnerSolverAndRelaxation)
{
    const auto p = parameters_of<solver::Ir<V>>(parse(R"({"solver": "ir",
        "relaxation_factor": 0.5, "inner": {"solver": "bicgstab", "criteria":
        {"max_iters": 3}}, "criteria": {"max_iters": 30}})"));
    EXPECT_EQ(p.relaxation_factor, V(0.5));
    EXPECT_NO_THROW(parameters_of<solver::Bicgstab<V>>(p.preconditioner_factory));
    const auto plain = parameters_of<solver::Ir<V>>(
        parse(R"({"solver": "ir", "inner": "none", "criteria": {"max_iters": 3}})"));
    EXPECT_EQ(plain.preconditioner_factory, nullptr);
    EXPECT_EQ(plain.relaxation_factor, V(1));
}

TEST(Config, PreconditionerNoneInEveryForm)
{
    for (const auto* none : {R"("none")", R"({"type": "none"})"}) {
        SCOPED_TRACE(none);
        const auto p = parameters_of<solver::Cg<V>>(parse(
            R"({"solver": "cg", "preconditioner": )" + std::string(none) + ", " + criteria + "}"));
        EXPECT_EQ(p.preconditioner_factory, nullptr);
    }
}

precond::Jacobi<V>::Parameters jacobi_parameters(
    const std::shared_ptr<const LinOpFactory<V>>& factory)
{
    const auto* jacobi = dynamic_cast<const precond::Jacobi<V>::Factory*>(factory.get());
    if (jacobi == nullptr) throw std::runtime_error("not a Jacobi factory");
    return jacobi->parameters();
}

TEST(Config, PreconditionerGaussSeidelInEveryForm)
{
    const auto params_of = [](const std::string& precond) {
        const auto factory =
            parameters_of<solver::Cg<V>>(parse(R"({"solver": "cg", "preconditioner": )" +
                                               precond + ", " + criteria + "}"))
                .preconditioner_factory;
        const auto* gs = dynamic_cast<const precond::GaussSeidel<V>::Factory*>(factory.get());
        if (gs == nullptr) throw std::runtime_error("not a Gauss-Seidel factory");
        return gs->parameters();
    };
    EXPECT_EQ(params_of(R"("gauss-seidel")").direction, precond::GaussSeidelDirection::forward);
    EXPECT_EQ(params_of(R"("sgs")").direction, precond::GaussSeidelDirection::symmetric);
    const auto full = params_of(R"({"type": "gauss-seidel", "direction": "backward",
                                    "variant": "cluster", "relaxation": 1.5, "sweeps": 3})");
    EXPECT_EQ(full.direction, precond::GaussSeidelDirection::backward);
    EXPECT_EQ(full.variant, precond::GaussSeidelVariant::cluster);
    EXPECT_EQ(full.relaxation, 1.5);
    EXPECT_EQ(full.sweeps, 3);
    EXPECT_THROW(params_of(R"({"type": "sgs", "relaxation": 2.5})"), BadInput);
    EXPECT_THROW(params_of(R"({"type": "sgs", "direction": "forward"})"), BadInput);
}

TEST(Config, AmgSolverReadsItsOwnOptions)
{
    const auto hierarchy_of = [](const std::string& amg) {
        const auto factory = parameters_of<solver::Ir<V>>(
                                 parse(R"({"solver": "amg", )" + amg + criteria + "}"))
                                 .preconditioner_factory;
        const auto* mg = dynamic_cast<const solver::Multigrid<V>::Factory*>(factory.get());
        if (mg == nullptr) throw std::runtime_error("not a multigrid factory");
        return mg->parameters();
    };
    const solver::MultigridParameters<V> defaults;
    const auto plain = hierarchy_of("");
    EXPECT_EQ(plain.cycle, defaults.cycle);
    EXPECT_EQ(plain.coarse_size, defaults.coarse_size);
    EXPECT_EQ(plain.pre_sweeps, defaults.pre_sweeps);
    const auto given =
        hierarchy_of(R"("amg": {"cycle": "w", "coarse_size": 10, "post_sweeps": 3}, )");
    EXPECT_EQ(given.cycle, solver::MultigridCycle::w);
    EXPECT_EQ(given.coarse_size, 10);
    EXPECT_EQ(given.post_sweeps, 3);
    EXPECT_EQ(given.pre_sweeps, defaults.pre_sweeps);
    EXPECT_THROW(hierarchy_of(R"("amg": {"cycle": "x"}, )"), BadInput);
}

TEST(Config, PreconditionerJacobiInEveryForm)
{
    const auto precond_of = [](const std::string& precond) {
        return parameters_of<solver::Cg<V>>(parse(R"({"solver": "cg", "preconditioner": )" +
                                                  precond + ", " + criteria + "}"))
            .preconditioner_factory;
    };
    const auto scalar = jacobi_parameters(precond_of(R"("jacobi")"));
    EXPECT_EQ(scalar.max_block_size, 1);
    EXPECT_FALSE(scalar.adaptive_precision);
    const auto block = jacobi_parameters(precond_of(R"("block-jacobi")"));
    EXPECT_EQ(block.max_block_size, 32);
    EXPECT_FALSE(block.adaptive_precision);
    const auto sized = jacobi_parameters(precond_of(
        R"({"type": "block-jacobi", "max_block_size": 16, "adaptive_precision": true,
            "accuracy": 0.01})"));
    EXPECT_EQ(sized.max_block_size, 16);
    EXPECT_TRUE(sized.adaptive_precision);
    EXPECT_EQ(sized.accuracy, 0.01);
    EXPECT_EQ(block.accuracy, precond::Jacobi<V>::build().parameters().accuracy);
    const auto adaptive_scalar =
        jacobi_parameters(precond_of(R"({"type": "jacobi", "adaptive_precision": true})"));
    EXPECT_EQ(adaptive_scalar.max_block_size, 1);
    EXPECT_TRUE(adaptive_scalar.adaptive_precision);
    const auto ir = parameters_of<solver::Ir<V>>(
        parse(R"({"solver": "ir", "inner": "jacobi", "relaxation_factor": 0.8, )" +
              std::string(criteria) + "}"));
    EXPECT_EQ(jacobi_parameters(ir.preconditioner_factory).max_block_size, 1);
}

TEST(Config, AcceptsCommentsAndJsonValues)
{
    EXPECT_NO_THROW(
        parse("// a stack\n{\"solver\": \"cg\", /* limit */ " + std::string(criteria) + "}"));
    const nlohmann::json config{
        {"solver", "gmres"}, {"krylov_dim", 5}, {"criteria", {{"max_iters", 9}}}};
    const auto factory = solver::from_config<V>(config, test::reference());
    EXPECT_EQ(parameters_of<solver::Gmres<V>>(factory).krylov_dim, 5);
}

TEST(Config, RefusesEveryMalformedConfig)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"{", "invalid JSON: parse error at line 1, column 2"},
        {"[1, 2]", "the config: expected an object with a \"solver\" key, got [1,2]"},
        {R"({"criteria": {"max_iters": 1}})", "the config: missing \"solver\""},
        {R"({"solver": "lu", "criteria": {"max_iters": 1}})",
         "solver: expected one of cg, fcg, bicg, bicgstab, cgs, gmres, ir, pipe-cg, chebyshev, "
         "cb-gmres, fgmres, gcr, minres, idr, amg, got \"lu\""},
        {R"({"solver": "cgs", "max_restarts": -1, "criteria": {"max_iters": 1}})",
         "max_restarts: expected a non-negative integer, got -1"},
        {R"({"solver": "idr", "subspace_dim": 0, "criteria": {"max_iters": 1}})",
         "subspace_dim: expected a positive integer, got 0"},
        {R"({"solver": "minres", "krylov_dim": 5, "criteria": {"max_iters": 1}})",
         "krylov_dim: unknown key for solver \"minres\""},
        {R"({"solver": 3, "criteria": {"max_iters": 1}})", "solver: expected one of"},
        {R"({"solver": "cg"})", "the config: missing \"criteria\""},
        {R"({"solver": "cg", "criteria": {}})", "criteria: expected at least one criterion"},
        {R"({"solver": "cg", "criteria": 5})", "criteria: expected an object of stopping"},
        {R"({"solver": "cg", "criteria": {"max_iter": 5}})",
         "criteria.max_iter: unknown key for criteria (known: max_iters, relative_residual"},
        {R"({"solver": "cg", "criteria": {"max_iters": -1}})",
         "criteria.max_iters: expected a non-negative integer, got -1"},
        {R"({"solver": "cg", "criteria": {"max_iters": 2.5}})",
         "criteria.max_iters: expected a non-negative integer, got 2.5"},
        {R"({"solver": "cg", "criteria": {"max_iters": "10"}})",
         "criteria.max_iters: expected a non-negative integer, got \"10\""},
        {R"({"solver": "cg", "criteria": {"relative_residual": -1e-8}})",
         "criteria.relative_residual: expected a non-negative number, got -1e-08"},
        {R"({"solver": "cg", "criteria": {"absolute_residual": true}})",
         "criteria.absolute_residual: expected a non-negative number, got true"},
        {R"({"solver": "cg", "criteria": {"residual_reduction": null}})",
         "criteria.residual_reduction: expected a non-negative number, got null"},
        {R"({"solver": "cg", "criteria": {"time_limit_s": 0}})",
         "criteria.time_limit_s: expected a positive number of seconds, got 0"},
        {R"({"solver": "cg", "criteria": {"time_limit_s": 1e300}})",
         "criteria.time_limit_s: expected a positive number of seconds"},
        {R"({"solver": "cg", "krylov_dim": 5, "criteria": {"max_iters": 1}})",
         "krylov_dim: unknown key for solver \"cg\" (known: solver, criteria, initial_guess, "
         "throw_on_failure, preconditioner)"},
        {R"({"solver": "ir", "preconditioner": "none", "criteria": {"max_iters": 1}})",
         "preconditioner: unknown key for solver \"ir\""},
        {R"({"solver": "gmres", "inner": "none", "criteria": {"max_iters": 1}})",
         "inner: unknown key for solver \"gmres\""},
        {R"({"solver": "gmres", "krylov_dim": 0, "criteria": {"max_iters": 1}})",
         "krylov_dim: expected a positive integer, got 0"},
        {R"({"solver": "gmres", "orthogonalization": "householder", "criteria": {"max_iters": 1}})",
         "orthogonalization: expected one of modified, classical, got \"householder\""},
        {R"({"solver": "ir", "relaxation_factor": "big", "criteria": {"max_iters": 1}})",
         "relaxation_factor: expected a finite number, got \"big\""},
        {R"({"solver": "cg", "initial_guess": "random", "criteria": {"max_iters": 1}})",
         "initial_guess: expected one of provided, zero, got \"random\""},
        {R"({"solver": "cg", "throw_on_failure": 1, "criteria": {"max_iters": 1}})",
         "throw_on_failure: expected true or false, got 1"},
        {R"({"solver": "cg", "preconditioner": "ilu7", "criteria": {"max_iters": 1}})",
         "preconditioner: expected one of none, jacobi, block-jacobi, lower_trs, upper_trs, gauss-seidel, sgs, amg, ilu, "
         "ic, ilut, parilut, parilu, parict, isai, got \"ilu7\""},
        {R"({"solver": "cg", "preconditioner": 4, "criteria": {"max_iters": 1}})",
         "preconditioner: expected \"none\", \"jacobi\", \"block-jacobi\", \"lower_trs\", "
         "\"upper_trs\", \"gauss-seidel\", \"sgs\", \"amg\", \"ilu\", \"ic\", \"ilut\", \"parilut\", \"parilu\", \"parict\", \"isai\", a "
         "preconditioner object or a solver object, got 4"},
        {R"({"solver": "cg", "preconditioner": {"max_block_size": 4},
             "criteria": {"max_iters": 1}})",
         "preconditioner: missing \"type\""},
        {R"({"solver": "cg", "preconditioner": {"type": "none", "max_block_size": 4},
             "criteria": {"max_iters": 1}})",
         "preconditioner.max_block_size: unknown key for preconditioner \"none\""},
        {R"({"solver": "cg", "preconditioner": {"type": "jacobi", "max_block_size": 4},
             "criteria": {"max_iters": 1}})",
         "preconditioner.max_block_size: unknown key for preconditioner \"jacobi\" (known: "
         "type, adaptive_precision, accuracy)"},
        {R"({"solver": "cg", "preconditioner": {"type": "jacobi", "accuracy": 1},
             "criteria": {"max_iters": 1}})",
         "preconditioner.accuracy: expected a number in (0, 1), got 1"},
        {R"({"solver": "cg", "preconditioner": {"type": "jacobi", "accuracy": "high"},
             "criteria": {"max_iters": 1}})",
         "preconditioner.accuracy: expected a number in (0, 1), got \"high\""},
        {R"({"solver": "cg", "preconditioner": {"type": "block-jacobi", "max_block_size": -3},
             "criteria": {"max_iters": 1}})",
         "preconditioner.max_block_size: expected a positive integer, got -3"},
        {R"({"solver": "cg", "preconditioner": {"type": "block-jacobi", "max_block_size": 64},
             "criteria": {"max_iters": 1}})",
         "preconditioner.max_block_size: at most 32, got 64"},
        {R"({"solver": "cg", "preconditioner": {"type": "block-jacobi",
             "adaptive_precision": "yes"}, "criteria": {"max_iters": 1}})",
         "preconditioner.adaptive_precision: expected true or false, got \"yes\""},
        {R"({"solver": "cg", "preconditioner": {"solver": "cg"}, "criteria": {"max_iters": 1}})",
         "preconditioner: missing \"criteria\""},
        {R"({"solver": "cg", "criteria": {"max_iters": 1}, "preconditioner": {"solver": "gmres",
             "criteria": {"max_iters": 2}, "preconditioner": {"solver": "cg",
             "criteria": {"max_iters": 1, "tolerance": 1}}}})",
         "preconditioner.preconditioner.criteria.tolerance: unknown key for criteria"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        const auto message = error_of(text);
        EXPECT_NE(message.find("loom::solver::from_config: " + expected), std::string::npos)
            << message;
    }
}

/// A config of `levels` solvers, each the preconditioner of the one around it.
std::string nested_solvers(int levels)
{
    std::string text;
    for (int level = 0; level < levels; ++level) {
        text += R"({"solver": "cg", "criteria": {"max_iters": 1}, "preconditioner": )";
    }
    text += "\"none\"";
    for (int level = 0; level < levels; ++level) text += "}";
    return text;
}

TEST(Config, NestingIsLimited)
{
    // 8 solvers deep is accepted: IR around GMRES around ... is far less.
    EXPECT_NO_THROW(parse(nested_solvers(8)));
    // 30 solvers with max_iters 1 each ran for ever (the work doubles per level).
    const auto thirty = error_of(nested_solvers(30));
    EXPECT_NE(thirty.find("more than 8 solvers nested"), std::string::npos) << thirty;
    EXPECT_NE(thirty.find("preconditioner.preconditioner"), std::string::npos) << thirty;
    // ~6000 levels overflowed the stack of the recursive reader.
    const auto deep = error_of(nested_solvers(6000));
    EXPECT_NE(deep.find("more than 8 solvers nested"), std::string::npos) << deep.substr(0, 300);
    const auto arrays = error_of(R"({"solver": "cg", "criteria": {"max_iters": 1}, "x": )" +
                                 std::string(100000, '[') + std::string(100000, ']') + "}");
    EXPECT_NE(arrays.find("nested more than 64 levels deep"), std::string::npos)
        << arrays.substr(0, 300);
}

TEST(Config, TolerancesMustBeFinite)
{
    // 1e400 overflows a double: it was an internal JSON exception (exit 3 in loom solve).
    const auto huge = error_of(R"({"solver": "cg", "criteria": {"relative_residual": 1e400}})");
    EXPECT_NE(huge.find("loom::solver::from_config: invalid JSON"), std::string::npos) << huge;
    EXPECT_NE(huge.find("1e400"), std::string::npos) << huge;
    const auto negative = error_of(R"({"solver": "cg", "criteria": {"absolute_residual": -1}})");
    EXPECT_NE(negative.find("expected a non-negative number"), std::string::npos) << negative;
}

TEST(Config, GenerateGivesTheSolverWithItsResult)
{
    const auto exec = test::reference();
    const auto A = grid_matrix<V>(exec, 6, 0.0, 0.2);
    const auto factory = solver::from_config<V>(
        R"({"solver": "cg", "criteria": {"max_iters": 100, "relative_residual": 1e-8}})", exec);
    const auto cg = factory->generate(A);  // an IterativeSolver<V>: result() at hand
    auto b = test::random_dense<V>(exec, {A->size().rows, 1}, 3);
    matrix::Dense<V> x(exec, b.size());
    x.fill(V{0});
    cg->apply(b, x);
    EXPECT_TRUE(cg->result().converged());
    EXPECT_GT(cg->result().iterations, 0);
    EXPECT_STREQ(cg->name(), "cg");
    // Still the solver's own factory, as the builder makes it.
    EXPECT_NE(dynamic_cast<const solver::Factory<solver::Cg<V>>*>(factory.get()), nullptr);
}

TEST(Config, RefusesNullExecutor)
{
    EXPECT_THROW(
        solver::from_config<V>(R"({"solver": "cg", "criteria": {"max_iters": 1}})", nullptr),
        BadInput);
}

class ConfigFile : public ::testing::Test {
protected:
    void TearDown() override
    {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    std::string write(const std::string& text)
    {
        std::ofstream(path_) << text;
        return path_.string();
    }
    std::filesystem::path path_ =
        std::filesystem::temp_directory_path() /
        ("loom-config-test-" + std::to_string(::getpid()) + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json");
};

TEST_F(ConfigFile, ReadsAFile)
{
    const auto path = write(R"({"solver": "bicg", "criteria": {"max_iters": 5}})");
    const auto factory = solver::from_config_file<V>(path, test::reference());
    EXPECT_NO_THROW(parameters_of<solver::Bicg<V>>(factory));
}

TEST_F(ConfigFile, NamesTheFileInErrors)
{
    const auto path = write(R"({"solver": "bicg", "criteria": {"max_iters": -5}})");
    try {
        solver::from_config_file<V>(path, test::reference());
        FAIL() << "no error";
    } catch (const BadInput& e) {
        EXPECT_EQ(std::string(e.what()),
                  "loom::solver::from_config_file: " + path +
                      ": criteria.max_iters: expected a non-negative integer, got -5");
    }
    EXPECT_THROW(solver::from_config_file<V>(path + ".missing", test::reference()), IoError);
}

// ---------------------------------------------------------------- same iterations as builders

template <typename T>
class ConfigMatchesBuilder : public ::testing::Test {};
TYPED_TEST_SUITE(ConfigMatchesBuilder, loom::test::ValueTypes);

/// The residual history of solving with the factory (the outer solver's, one entry per check).
template <typename T>
std::vector<std::vector<double>> history_of(const std::shared_ptr<const LinOpFactory<T>>& factory,
                                            std::shared_ptr<const LinOp<T>> A)
{
    const auto& exec = factory->executor();
    auto b = test::random_dense<T>(exec, {A->size().rows, 2}, 5);
    matrix::Dense<T> x(exec, b.size());
    x.fill(T{0});
    auto solver = factory->generate(std::move(A));
    const auto logger = std::make_shared<log::ConvergenceLogger>();
    solver->add_logger(logger);
    solver->apply(b, x);
    EXPECT_GT(logger->residual_history().size(), 2u);
    return logger->residual_history();
}

TYPED_TEST(ConfigMatchesBuilder, SameResidualHistories)
{
    using T = TypeParam;
    using namespace loom::solver;
    const auto exec = test::reference();
    const auto spd = grid_matrix<T>(exec, 9, 0.0, 0.2);
    const auto nonsymmetric = grid_matrix<T>(exec, 9, 0.5, 0.2);
    const auto tol = test::solve_tolerance<T>();
    const auto criteria = [&] { return stop::max_iterations(300) | stop::relative_residual(tol); };
    const auto criteria_json = nlohmann::json{{"max_iters", 300}, {"relative_residual", tol}};

    // GMRES(8), classical Gram-Schmidt, preconditioned by a few BiCGSTAB steps.
    const auto gmres_config = nlohmann::json{
        {"solver", "gmres"},
        {"krylov_dim", 8},
        {"orthogonalization", "classical"},
        {"preconditioner", {{"solver", "bicgstab"}, {"criteria", {{"max_iters", 2}}}}},
        {"criteria", criteria_json}};
    const auto gmres_builder = Gmres<T>::build()
                                   .with_krylov_dim(8)
                                   .with_orthogonalization(Orthogonalization::classical)
                                   .with_preconditioner(Bicgstab<T>::build()
                                                            .with_criteria(stop::max_iterations(2))
                                                            .with_initial_guess(InitialGuess::zero)
                                                            .on(exec))
                                   .with_criteria(criteria())
                                   .on(exec);
    EXPECT_EQ(history_of<T>(from_config<T>(gmres_config, exec), nonsymmetric),
              history_of<T>(gmres_builder, nonsymmetric));

    // IR, damped, around CG with a residual-reduction criterion.
    const auto ir_config = nlohmann::json{
        {"solver", "ir"},
        {"relaxation_factor", 0.9},
        {"inner",
         {{"solver", "cg"}, {"criteria", {{"max_iters", 8}, {"residual_reduction", 1e-2}}}}},
        {"criteria", criteria_json}};
    const auto ir_builder = Ir<T>::build()
                                .with_relaxation_factor(T(0.9))
                                .with_solver(Cg<T>::build()
                                                 .with_criteria(stop::max_iterations(8) |
                                                                stop::residual_reduction(1e-2))
                                                 .with_initial_guess(InitialGuess::zero)
                                                 .on(exec))
                                .with_criteria(criteria())
                                .on(exec);
    EXPECT_EQ(history_of<T>(from_config<T>(ir_config, exec), spd), history_of<T>(ir_builder, spd));

    // BiCGSTAB with block Jacobi (blocks of up to 4, adaptive precision), CG with Jacobi.
    const auto bicgstab_config = nlohmann::json{
        {"solver", "bicgstab"},
        {"preconditioner",
         {{"type", "block-jacobi"}, {"max_block_size", 4}, {"adaptive_precision", true}}},
        {"criteria", criteria_json}};
    const auto bicgstab_builder =
        Bicgstab<T>::build()
            .with_preconditioner(
                precond::Jacobi<T>::build().with_max_block_size(4).with_adaptive_precision(true).on(
                    exec))
            .with_criteria(criteria())
            .on(exec);
    EXPECT_EQ(history_of<T>(from_config<T>(bicgstab_config, exec), nonsymmetric),
              history_of<T>(bicgstab_builder, nonsymmetric));
    const auto cg_config =
        nlohmann::json{{"solver", "cg"}, {"preconditioner", "jacobi"}, {"criteria", criteria_json}};
    const auto cg_builder =
        Cg<T>::build()
            .with_preconditioner(precond::Jacobi<T>::build().with_max_block_size(1).on(exec))
            .with_criteria(criteria())
            .on(exec);
    EXPECT_EQ(history_of<T>(from_config<T>(cg_config, exec), spd), history_of<T>(cg_builder, spd));

    // Plain solvers.
    for (const auto* name : {"cg", "fcg", "bicg", "cgs"}) {
        SCOPED_TRACE(name);
        const auto& A =
            std::string(name) == "cg" || std::string(name) == "fcg" ? spd : nonsymmetric;
        const auto config = nlohmann::json{{"solver", name}, {"criteria", criteria_json}};
        const auto builder = test::all_solvers<T>().at(name)(exec, criteria());
        EXPECT_EQ(history_of<T>(from_config<T>(config, exec), A), history_of<T>(builder, A));
    }
}

}  // namespace
