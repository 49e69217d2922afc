// Solver stacks described in JSON: the solver, its parameters, its preconditioner (itself a
// preconditioner or another solver, to any depth) and its stopping criteria, built into the
// same factory the C++ builder makes.
//
//     {
//       "solver": "gmres",                  // cg fcg bicg bicgstab cgs gmres ir pipe-cg
//                                           // chebyshev cb-gmres fgmres gcr minres idr amg
//                                           // (required)
//       "krylov_dim": 30,                   // gmres, cb-gmres, fgmres, gcr: restart length
//       "orthogonalization": "classical",   // gmres, cb-gmres, fgmres: classical | modified
//       "max_restarts": 10,                 // bicg, bicgstab, cgs: fresh shadow residuals
//       "subspace_dim": 2,                  // idr: the shadow space dimension s
//       "seed": 15,                         // idr: seed of the random shadow space
//       "replacement_interval": 0,          // pipe-cg: residual replacement every k (0: off)
//       "eigenvalue_bounds": [0.1, 8],      // chebyshev: [lower, upper] (default: estimated)
//       "estimation_steps": 20,             // chebyshev: CG steps of the estimate
//       "relaxation_factor": 1.0,           // ir: damping of each correction
//       "inner": { ... },                   // ir: inner solver (default: none, Richardson)
//       "inner_precision": "working",       // ir: working | lower (inner read and run in
//                                           // float for double: mixed-precision IR)
//       "preconditioner": {"type": "block-jacobi", "max_block_size": 16,
//                          "adaptive_precision": true},
//       "criteria": {"max_iters": 1000, "relative_residual": 1e-8},     // required
//       "initial_guess": "provided",        // provided | zero
//       "throw_on_failure": false
//     }
//
// "preconditioner" and "inner" take a name of preconditioner_names as a string, an
// object {"type": "jacobi" | "block-jacobi" | "none", "max_block_size": 1..32 (block-jacobi,
// default 32), "adaptive_precision": bool (default false), "accuracy": the bound adaptive
// precision keeps, in (0, 1) (default 0.1)}, or a nested solver config (an
// object with a "solver" key). A nested solver starts from a zero initial guess unless it
// says otherwise: as a preconditioner it must not read the unrelated data in its x.
// "lower_trs" / "upper_trs" (a string, or an object with "algorithm": automatic | level_set |
// sync_free | supernodal | vendor and "unit_diagonal": bool) solve with the system's lower /
// upper triangle (solver/triangular.hpp): Gauss-Seidel for a general system.
// "criteria" takes any of "max_iters" (a non-negative integer), "relative_residual" (of
// ||b||), "absolute_residual", "residual_reduction" (of the initial residual) and
// "time_limit_s" (tolerances non-negative, times positive); the first that holds stops.
//
// A config nests at most 64 JSON levels and at most 8 solvers (a solver inside a solver's
// preconditioner or inner counts as one more); deeper ones are BadInput. Tolerances must be
// finite and non-negative.
//
// Every key is checked: an unknown key, a wrong type or a value out of range raises
// BadInput naming the key's path, e.g. "preconditioner.max_block_size: expected a positive
// integer, got -3".
//
// The JSON overload takes any JSON value type with dump() (nlohmann::json, ordered_json),
// so that this header does not tie users to one JSON library version.
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <string_view>

#include "loom/base/executor.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/base/names.hpp"
#include "loom/base/types.hpp"
#include "loom/solver/solver.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::solver {

/// The solvers a config (and the command line) names. A new solver is a line here and its
/// builder in from_config.
enum class SolverKind {
    cg,
    fcg,
    bicg,
    bicgstab,
    cgs,
    gmres,
    ir,
    pipe_cg,
    chebyshev,
    cb_gmres,
    fgmres,
    gcr,
    minres,
    idr,
    amg,
};

LOOM_NAME_TABLE(SolverKind, solver_names, "solver",
    {SolverKind::cg, "cg", "conjugate gradients (Hermitian positive definite A)"},
    {SolverKind::fcg, "fcg", "flexible CG (Hermitian positive definite A)"},
    {SolverKind::bicg, "bicg", "biconjugate gradients"},
    {SolverKind::bicgstab, "bicgstab", "stabilized BiCG"},
    {SolverKind::cgs, "cgs", "conjugate gradients squared"},
    {SolverKind::gmres, "gmres", "restarted GMRES"},
    {SolverKind::ir, "ir", "iterative refinement around an inner solver"},
    {SolverKind::pipe_cg, "pipe-cg", "pipelined CG: one global reduction per iteration"},
    {SolverKind::chebyshev, "chebyshev", "Chebyshev iteration (bounds given or estimated)"},
    {SolverKind::cb_gmres, "cb-gmres", "GMRES with its basis stored in a lower precision"},
    {SolverKind::fgmres, "fgmres", "flexible GMRES (the preconditioner may vary)"},
    {SolverKind::gcr, "gcr", "restarted generalized conjugate residual"},
    {SolverKind::minres, "minres", "minimal residual (Hermitian, possibly indefinite A)"},
    {SolverKind::idr, "idr", "induced dimension reduction IDR(s)"},
    {SolverKind::amg, "amg", "smoothed-aggregation multigrid cycles"},
);

/// The precision of IR's inner solve.
enum class InnerPrecision { working, lower };
LOOM_NAME_TABLE(InnerPrecision, inner_precision_names, "inner precision",
    {InnerPrecision::working, "working", "the system's value type"},
    {InnerPrecision::lower, "lower", "float for double, complex<float> for complex<double>"},
);

/// The preconditioners a config names by a string (or as the "type" of an object).
enum class PreconditionerKind {
    none,
    jacobi,
    block_jacobi,
    lower_trs,
    upper_trs,
    gauss_seidel,
    sgs,
    amg,
    ilu,
    ic,
    ilut,
    parilut,
    parilu,
    parict,
    isai
};

LOOM_NAME_TABLE(PreconditionerKind, preconditioner_names, "preconditioner",
    {PreconditionerKind::none, "none", "no preconditioner"},
    {PreconditionerKind::jacobi, "jacobi", "the inverted diagonal"},
    {PreconditionerKind::block_jacobi, "block-jacobi",
     "inverted diagonal blocks (up to 32 x 32, found from the structure)"},
    {PreconditionerKind::lower_trs, "lower_trs", "a solve with the lower triangle (Gauss-Seidel)"},
    {PreconditionerKind::upper_trs, "upper_trs", "a solve with the upper triangle"},
    {PreconditionerKind::gauss_seidel, "gauss-seidel", "multicolor Gauss-Seidel sweeps"},
    {PreconditionerKind::sgs, "sgs", "symmetric multicolor Gauss-Seidel"},
    {PreconditionerKind::amg, "amg", "one smoothed-aggregation multigrid cycle"},
    {PreconditionerKind::ilu, "ilu", "ILU(0) (ILU(k) with a \"level\")"},
    {PreconditionerKind::ic, "ic", "IC(0), shifting the diagonal where a pivot breaks down"},
    {PreconditionerKind::ilut, "ilut", "threshold ILU(p, tau) (Saad)"},
    {PreconditionerKind::parilut, "parilut", "threshold ILU built by sweeps (ParILUT)"},
    {PreconditionerKind::parilu, "parilu", "ILU(0) by Chow-Patel sweeps"},
    {PreconditionerKind::parict, "parict", "threshold IC (ParICT)"},
    {PreconditionerKind::isai, "isai", "an incomplete sparse approximate inverse"},
);

/// The factory a JSON text describes, generating operators on exec. Its generate(A) gives
/// the iterative solver itself (IterativeSolver<V>, with result()), as the C++ builders do;
/// the object is the solver's own Factory (dynamic_cast to solver::Factory<Cg<V>> works). BadInput for malformed
/// JSON (with its position) or a config that breaks the rules above. I is the index type of
/// the system matrices (a Jacobi preconditioner needs a matrix::Csr<V, I>).
template <typename V, typename I = int32>
LOOM_EXPORT std::shared_ptr<const IterativeSolverFactory<V>> from_config(
    std::string_view json_text, std::shared_ptr<const Executor> exec);

/// The same from a parsed JSON value (nlohmann::json or alike).
template <typename V, typename I = int32, typename Json>
    requires requires(const Json& json) {
        { json.dump() } -> std::convertible_to<std::string>;
    }
std::shared_ptr<const IterativeSolverFactory<V>> from_config(const Json& config,
                                                    std::shared_ptr<const Executor> exec)
{
    return from_config<V, I>(std::string_view(config.dump()), std::move(exec));
}

/// The same from a JSON file. IoError when it cannot be read; BadInput messages start with
/// the path.
template <typename V, typename I = int32>
LOOM_EXPORT std::shared_ptr<const IterativeSolverFactory<V>> from_config_file(
    const std::string& path, std::shared_ptr<const Executor> exec);

}  // namespace loom::solver

LOOM_PUBLIC_END
