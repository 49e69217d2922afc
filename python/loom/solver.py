"""Loom's iterative solvers, SciPy style.

    x, info = loom.solve(A, b, solver="gmres", precond="ilu", rtol=1e-10, krylov_dim=50)
    s = loom.solver.Cg(A, precond="jacobi", rtol=1e-8)   # set up once (preconditioner too)
    x = s.solve(b)                                       # ... solve for many right-hand sides
    s.result.iterations, s.result.residual_history, s.result.reason

A configuration dict equal to the JSON of `loom solve --config` (include/loom/solver/config.hpp)
describes any stack: loom.solve(A, b, config={"solver": "cg", "preconditioner": "jacobi",
"criteria": {"max_iters": 500, "relative_residual": 1e-8}}).
"""

import json

import numpy as np

from . import _interop, _loom

names = list(_loom.solver_names)
preconditioner_names = list(_loom.preconditioner_names)

_failure_reasons = {"breakdown", "not finite"}


class SolveResult:
    """The outcome of a solve: reason ("converged", "iteration limit", "time limit",
    "breakdown", "not finite"), converged, iterations, residual_norms (per right-hand side,
    as the solver's recurrence estimates them), initial_residual_norms, rhs_norms, restarts,
    seconds, message, and residual_history: (iterations + 1, k) residual norms, row 0 the
    initial residual."""

    def __init__(self, values):
        values = dict(values)
        history = values.pop("residual_history")
        self.__dict__.update(values)
        columns = len(history[0]) if history else 0
        self.residual_history = np.array(history, dtype=np.float64).reshape(len(history), columns)

    @property
    def info(self):
        """SciPy's convention: 0 converged, > 0 the iterations of a solve that stopped at a
        limit, < 0 a breakdown (or NaN)."""
        if self.converged:
            return 0
        if self.reason in _failure_reasons:
            return -1
        return max(1, self.iterations)

    def __repr__(self):
        return f"<loom.solver.SolveResult: {self.message}>"


def make_config(solver, precond, rtol, atol, maxiter, n, params):
    """The JSON config (a dict) the keyword arguments describe. maxiter defaults to 10 n as
    in SciPy; the solve stops when ||r|| <= max(rtol ||b||, atol)."""
    criteria = {"max_iters": int(maxiter if maxiter is not None else 10 * n),
                "relative_residual": float(rtol)}
    if atol:
        criteria["absolute_residual"] = float(atol)
    config = {"solver": solver, "criteria": criteria}
    if precond is not None and solver != "amg":
        config["inner" if solver == "ir" else "preconditioner"] = precond
    config.update(params)
    return config


class Solver:
    """A solver bound to A, set up once and applied to many right-hand sides. `name` is one
    of loom.solver.names; `precond` a name of loom.solver.preconditioner_names, a config
    dict, or None (default: jacobi for a matrix, none for a loom.LinearOperator); other
    keyword arguments are keys of the JSON config (krylov_dim=50, max_restarts=5, ...).
    `config` (a dict or a JSON string) replaces all of these."""

    name = None

    def __init__(self, A, *, precond=None, rtol=1e-8, atol=0.0, maxiter=None, config=None,
                 exec=None, name=None, **params):  # noqa: A002
        from . import LinearOperator, _system

        self.A = _system(A, exec)
        if config is None:
            if precond is None:
                precond = "none" if isinstance(self.A, LinearOperator) else "jacobi"
            config = make_config(name or self.name, precond, rtol, atol, maxiter,
                                 self.A.shape[0], params)
        elif params:
            raise TypeError("config replaces the keyword arguments " + ", ".join(params))
        self.config = json.loads(config) if isinstance(config, str) else config
        self._core = _loom._Solver(self.A._core, json.dumps(self.config))

    shape = property(lambda self: self._core.shape)
    dtype = property(lambda self: self._core.dtype)

    def solve(self, b, x0=None, *, x=None):
        """x with A x = b, b (n,) or (n, k) of A's dtype and memory; x0 the initial guess
        (default zero); x (optional) receives the solution in place. Returns x, of b's
        kind."""
        if x is None:
            x = _interop.zeros_like(b) if x0 is None else _interop.copy_of(x0)
        elif x0 is not None:
            x[...] = x0
        else:
            x[...] = 0
        self._core.solve(b, x)
        return x

    @property
    def result(self):
        """The SolveResult of the last solve."""
        return SolveResult(self._core.result)

    def aslinearoperator(self):
        """This solver (x = A^-1 b) as a scipy.sparse.linalg.LinearOperator, e.g. as the
        preconditioner M of a SciPy solver."""
        from . import aslinearoperator

        return aslinearoperator(self)


def _solver_class(name):
    title = "".join(part.capitalize() for part in name.replace("-", "_").split("_"))

    def __init__(self, A, **kwargs):
        Solver.__init__(self, A, name=name, **kwargs)

    return type(title, (Solver,), {"name": name, "__init__": __init__,
                                   "__doc__": f"The '{name}' solver (see loom.solver.Solver)."})


for _name in names:
    _class = _solver_class(_name)
    globals()[_class.__name__] = _class
# Cg, Fcg, Bicg, Bicgstab, Cgs, Gmres, Ir, PipeCg, Chebyshev, CbGmres, Fgmres, Gcr, Minres,
# Idr, Amg


def _on_host(A):
    """Whether A is a sparse matrix in host memory (copied to b's device for a device b)."""
    from . import Csr

    if isinstance(A, Csr):
        return A.exec.is_host
    return _interop.sparse_kind(A) == "scipy"


def solve(A, b, solver="cg", precond=None, rtol=1e-8, atol=0.0, maxiter=None, *, x0=None,
          config=None, exec=None, **params):  # noqa: A002
    """Solves A x = b like scipy.sparse.linalg.cg: returns (x, info), info 0 on convergence,
    > 0 the iterations when a limit stopped it, < 0 a breakdown. A is a sparse matrix (SciPy,
    CuPy, PyTorch, loom.Csr), a loom.LinearOperator or a SciPy LinearOperator; b (n,) or
    (n, k). A host matrix with a device b is copied to b's device. precond defaults to jacobi
    (none for an operator); `config` (dict or JSON) replaces solver/precond/rtol/atol/maxiter."""
    if exec is None and _interop.on_device(b) and _on_host(A):
        exec = _interop.cuda_exec_for(b)
    s = Solver(A, precond=precond, rtol=rtol, atol=atol, maxiter=maxiter, config=config,
               exec=exec, name=solver, **params)
    x = s.solve(b, x0)
    result = s.result
    return x, result.info
