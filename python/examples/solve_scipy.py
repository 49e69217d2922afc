#!/usr/bin/env python3
"""Solve a SciPy sparse system with Loom, and compare with SciPy.

    python3 solve_scipy.py [matrix.mtx]      (default: a 2D Poisson problem, 200 x 200 grid)

The SciPy matrix is viewed by Loom without a copy; the solution comes back as a NumPy array.
"""

import inspect
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import loom


def poisson2d(m):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    return (sp.kron(sp.eye(m), T) + sp.kron(T, sp.eye(m))).tocsr()


def main():
    if len(sys.argv) > 1:
        A = loom.io.mmread(sys.argv[1])          # a scipy.sparse.csr_array read by Loom
        name = sys.argv[1]
    else:
        A = poisson2d(200)
        name = "2D Poisson 200 x 200"
    b = A @ np.ones(A.shape[0])
    print(f"{name}: {A.shape[0]} rows, {A.nnz} entries")

    # One call, SciPy style: (x, info), info 0 on convergence.
    start = time.perf_counter()
    x_cg, info = loom.solve(A, b, solver="cg", precond="jacobi", rtol=1e-8)
    print(f"loom.solve      info {info}, {time.perf_counter() - start:.3f} s, "
          f"relative residual {np.linalg.norm(b - A @ x_cg) / np.linalg.norm(b):.2e}")

    # A solver object: set up once, then reused; its result says how it went.
    s = loom.solver.Bicgstab(A, precond="ilu", rtol=1e-10)
    x = s.solve(b)
    r = s.result
    print(f"loom BiCGSTAB   {r.message}; residual history {r.residual_history[:3, 0]} ...")

    # The same stack from a config, as `loom solve --config` reads it.
    config = {"solver": "gmres", "krylov_dim": 50, "preconditioner": "ilu",
              "criteria": {"max_iters": 2000, "relative_residual": 1e-8}}
    x, info = loom.solve(A, b, config=config)
    print(f"loom GMRES      info {info}")

    # SciPy's CG for comparison.
    M = sp.diags(1.0 / A.diagonal())
    start = time.perf_counter()
    rtol = "rtol" if "rtol" in inspect.signature(spla.cg).parameters else "tol"
    x_ref, info_ref = spla.cg(A, b, M=M, atol=0, maxiter=10 * A.shape[0], **{rtol: 1e-8})
    print(f"scipy cg        info {info_ref}, {time.perf_counter() - start:.3f} s, "
          f"max |x_loom - x_scipy| {np.abs(x_cg - x_ref).max():.1e}")


if __name__ == "__main__":
    main()
