#!/usr/bin/env python3
"""Loom from Python against the same call in C++ and against SciPy/CuPy.

1. Call overhead: loom.spmv on a small matrix (Python -> C++ -> Python, per call) against the
   C++ SpMV alone (the same call in a C++ loop). Target: at most 5 us more.
2. loom.solve against scipy.sparse.linalg.cg on the 3D Poisson problem (7-point, n^3 rows)
   with Jacobi, the same relative tolerance: time and iterations. Target: 3x faster on the
   same cores, iterations equal +-1.
3. With CuPy and a GPU: loom.solve on CuPy data against cupyx.scipy.sparse.linalg.cg.

    python3 python/bench/bench_solve.py [--n 100] [--rtol 1e-8] [--json out.json]

(PYTHONPATH=build/<preset>/python without an installed Loom; OMP_NUM_THREADS sets the threads.)
"""

import argparse
import inspect
import json
import os
import time
import timeit

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import loom


def poisson3d(n):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    I = sp.identity(n, format="csr")
    A = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()
    A.indptr = A.indptr.astype(np.int32)
    A.indices = A.indices.astype(np.int32)
    A.sort_indices()
    return A


def call_overhead(rows=16, repetitions=20000):
    A = loom.Csr(sp.random(rows, rows, density=0.3, format="csr", random_state=0)
                 + sp.identity(rows, format="csr"))
    x = np.ones(rows)
    y = np.empty(rows)
    python = min(timeit.repeat(lambda: loom.spmv(A, x, y=y), number=repetitions, repeat=5)) / repetitions
    cxx = min(loom._loom._spmv_seconds(A._core, x, y, repetitions) for _ in range(5))
    return {"rows": rows, "python_us": python * 1e6, "cxx_us": cxx * 1e6,
            "overhead_us": (python - cxx) * 1e6}


def scipy_cg(A, b, rtol, M, cg=spla.cg, maxiter=None):
    iterations = []
    key = "rtol" if "rtol" in inspect.signature(cg).parameters else "tol"
    start = time.perf_counter()
    x, info = cg(A, b, M=M, atol=0, maxiter=maxiter, callback=lambda xk: iterations.append(1),
                 **{key: rtol})
    return x, info, len(iterations), time.perf_counter() - start


def cpu_solve(A, b, rtol):
    M = sp.diags(1.0 / A.diagonal(), format="csr")
    x_ref, info_ref, it_ref, t_ref = scipy_cg(A, b, rtol, M, maxiter=10 * A.shape[0])
    M_loom = loom.Csr(A)
    start = time.perf_counter()
    s = loom.solver.Cg(M_loom, precond="jacobi", rtol=rtol)
    x = s.solve(b)
    t_loom = time.perf_counter() - start
    residual = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    return {"scipy_s": t_ref, "scipy_iterations": it_ref, "scipy_info": info_ref,
            "loom_s": t_loom, "loom_solve_s": s.result.seconds,
            "loom_iterations": s.result.iterations, "loom_relative_residual": residual,
            "speedup": t_ref / t_loom}


def gpu_solve(A, b, rtol):
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cspla

    A_d, b_d = csp.csr_matrix(A), cupy.asarray(b)
    M_d = csp.diags(1.0 / A_d.diagonal(), format="csr")
    scipy_cg(A_d, b_d, rtol, M_d, cg=cspla.cg, maxiter=10 * A.shape[0])  # warm-up
    cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    _, info_ref, it_ref, _ = scipy_cg(A_d, b_d, rtol, M_d, cg=cspla.cg, maxiter=10 * A.shape[0])
    cupy.cuda.Device().synchronize()
    t_ref = time.perf_counter() - start
    s = loom.solver.Cg(A_d, precond="jacobi", rtol=rtol)
    s.solve(b_d)  # warm-up
    cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    x = s.solve(b_d)
    cupy.cuda.Device().synchronize()
    t_loom = time.perf_counter() - start
    residual = float(cupy.linalg.norm(b_d - A_d @ x) / cupy.linalg.norm(b_d))
    return {"cupy_s": t_ref, "cupy_iterations": it_ref, "cupy_info": info_ref, "loom_s": t_loom,
            "loom_iterations": s.result.iterations, "loom_relative_residual": residual,
            "speedup": t_ref / t_loom}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100, help="grid points per direction")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--skip-scipy", action="store_true", help="no CPU comparison")
    args = parser.parse_args()

    results = {"threads": os.environ.get("OMP_NUM_THREADS", "default"), "n": args.n}
    results["overhead"] = call_overhead()
    o = results["overhead"]
    print(f"call overhead   loom.spmv {o['python_us']:.2f} us per call, the C++ call "
          f"{o['cxx_us']:.2f} us: {o['overhead_us']:.2f} us from Python (target <= 5)")

    A = poisson3d(args.n)
    b = A @ np.ones(A.shape[0])
    print(f"system          3D Poisson {args.n}^3: {A.shape[0]} rows, {A.nnz} entries, CG + Jacobi, "
          f"rtol {args.rtol:g}")
    if not args.skip_scipy:
        c = results["cpu"] = cpu_solve(A, b, args.rtol)
        print(f"CPU             scipy cg {c['scipy_s']:.2f} s ({c['scipy_iterations']} iterations), "
              f"loom {c['loom_s']:.2f} s ({c['loom_iterations']} iterations, residual "
              f"{c['loom_relative_residual']:.1e}): {c['speedup']:.1f}x (target >= 3)")
    try:
        import cupy  # noqa: F401
        gpu = loom.has_cuda and loom.cuda_device_count() > 0
    except ImportError:
        gpu = False
    if gpu:
        g = results["gpu"] = gpu_solve(A, b, args.rtol)
        print(f"GPU             cupyx cg {g['cupy_s']:.3f} s ({g['cupy_iterations']} iterations), "
              f"loom {g['loom_s']:.3f} s ({g['loom_iterations']} iterations): "
              f"{g['speedup']:.1f}x (target >= 3)")
    else:
        print("GPU             skipped (no CuPy, no CUDA build or no device)")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2)


if __name__ == "__main__":
    main()
