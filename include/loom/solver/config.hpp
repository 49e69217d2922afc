// Solver stacks described in JSON: the solver, its parameters, its preconditioner (itself a
// preconditioner or another solver, to any depth) and its stopping criteria, built into the
// same factory the C++ builder makes.
//
//     {
//       "solver": "gmres",                  // cg fcg bicg bicgstab cgs gmres ir (required)
//       "krylov_dim": 30,                   // gmres: restart length (default 30)
//       "orthogonalization": "modified",    // gmres: modified | classical
//       "relaxation_factor": 1.0,           // ir: damping of each correction
//       "inner": { ... },                   // ir: inner solver (default: none, Richardson)
//       "preconditioner": {"type": "block-jacobi", "max_block_size": 16,
//                          "adaptive_precision": true},
//       "criteria": {"max_iters": 1000, "relative_residual": 1e-8},     // required
//       "initial_guess": "provided",        // provided | zero
//       "throw_on_failure": false
//     }
//
// "preconditioner" and "inner" take "none", "jacobi" or "block-jacobi" as a string, an
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
#include "loom/base/types.hpp"

namespace loom::solver {

/// The factory a JSON text describes, generating operators on exec. BadInput for malformed
/// JSON (with its position) or a config that breaks the rules above. I is the index type of
/// the system matrices (a Jacobi preconditioner needs a matrix::Csr<V, I>).
template <typename V, typename I = int32>
std::shared_ptr<const LinOpFactory<V>> from_config(std::string_view json_text,
                                                   std::shared_ptr<const Executor> exec);

/// The same from a parsed JSON value (nlohmann::json or alike).
template <typename V, typename I = int32, typename Json>
    requires requires(const Json& json) {
        { json.dump() } -> std::convertible_to<std::string>;
    }
std::shared_ptr<const LinOpFactory<V>> from_config(const Json& config,
                                                   std::shared_ptr<const Executor> exec)
{
    return from_config<V, I>(std::string_view(config.dump()), std::move(exec));
}

/// The same from a JSON file. IoError when it cannot be read; BadInput messages start with
/// the path.
template <typename V, typename I = int32>
std::shared_ptr<const LinOpFactory<V>> from_config_file(const std::string& path,
                                                        std::shared_ptr<const Executor> exec);

}  // namespace loom::solver
