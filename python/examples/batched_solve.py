#!/usr/bin/env python3
"""Many small dense systems at once: a batch of (n x n) matrices factored and solved in one
call each, against NumPy. With CuPy installed and a CUDA build, the same on the GPU.

    python3 batched_solve.py [batch] [n]      (default: 100000 systems of order 8)
"""

import sys
import time

import numpy as np

import loom


def main():
    batch = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rng = np.random.default_rng(0)
    A = rng.standard_normal((batch, n, n)) + n * np.eye(n)
    B = rng.standard_normal((batch, n))

    start = time.perf_counter()
    X, info = loom.batched.gesv(A, B)                   # LU with pivoting, one call
    t_loom = time.perf_counter() - start
    start = time.perf_counter()
    X_ref = np.linalg.solve(A, B[..., None])[..., 0]
    t_numpy = time.perf_counter() - start
    print(f"{batch} systems of order {n}: loom {t_loom * 1e3:.1f} ms, numpy {t_numpy * 1e3:.1f} ms, "
          f"max |X - X_numpy| {np.abs(X - X_ref).max():.1e}, singular: {int(np.count_nonzero(info))}")

    # Factor once, solve for new right-hand sides.
    LU, pivots, info = loom.batched.getrf(A)
    X2 = loom.batched.getrs(LU, pivots, B)
    print(f"getrf + getrs agree with gesv: {np.allclose(X2, X)}")

    # Symmetric positive definite batches: Cholesky.
    S = A @ np.swapaxes(A, 1, 2) + n * np.eye(n)
    L, info = loom.batched.potrf(S)
    X3 = loom.batched.potrs(L, B)
    print(f"Cholesky solve residual {np.abs(S @ X3[..., None] - B[..., None]).max():.1e}")

    try:
        import cupy
    except ImportError:
        return
    if loom.cuda_device_count() == 0:
        return
    A_d, B_d = cupy.asarray(A), cupy.asarray(B)
    loom.batched.gesv(A_d, B_d)                         # warm-up
    cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    X_d, info_d = loom.batched.gesv(A_d, B_d)           # on CuPy's current stream
    cupy.cuda.Device().synchronize()
    print(f"GPU: {(time.perf_counter() - start) * 1e3:.2f} ms, max |X - X_numpy| "
          f"{float(cupy.abs(X_d - cupy.asarray(X_ref)).max()):.1e}")


if __name__ == "__main__":
    main()
