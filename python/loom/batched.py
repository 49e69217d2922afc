"""Batched dense linear algebra on (batch, n, n) arrays (loom/batched/front.hpp): one call
factors or solves every matrix of the batch. Right-hand sides are (batch, n) or (batch, n, k).
Arrays are NumPy (the host) or CuPy/PyTorch (a device, on the caller's current stream).
Inputs are not modified unless overwrite_a / overwrite_b say so (then they are worked on in
place when C-ordered). Numerical failures are reported per matrix in `info` (0, or k + 1 when
step k met a zero pivot / a non-positive minor), never raised. `launch` picks how the batch
is spread over threads: "auto", "serial", "team", "teamvector", "simd", "vendor"."""

from . import _interop, _loom

_b = _loom._batched


def _work(array, overwrite):
    """`array` itself when it may be overwritten and is C-ordered, else a C-ordered copy."""
    if overwrite:
        contiguous = array.is_contiguous() if _interop.kind(array) == "torch" else array.flags.c_contiguous
        if contiguous:
            return array
    return _interop.copy_of(array)


def _exec(array, exec):  # noqa: A002
    return _interop.exec_for(array, exec)


def gemm(A, B, C=None, *, alpha=1, beta=0, trans_a="n", trans_b="n", launch="auto", exec=None):  # noqa: A002
    """C_b = alpha op(A_b) op(B_b) + beta C_b; C (written in place) or a new array."""
    if C is None:
        rows = A.shape[2] if trans_a != "n" else A.shape[1]
        cols = B.shape[1] if trans_b != "n" else B.shape[2]
        C = _interop.empty_like(A, (A.shape[0], rows, cols))
        beta = 0
    _b.gemm(alpha, A, B, beta, C, trans_a, trans_b, launch, _exec(C, exec))
    return C


def getrf(A, *, overwrite_a=False, launch="auto", exec=None):  # noqa: A002
    """LU with partial pivoting: (LU, pivots, info); pivots 0-based, n per matrix."""
    LU = _work(A, overwrite_a)
    pivots, info = _b.getrf(LU, launch, _exec(LU, exec))
    return LU, _interop.as_kind(pivots, A), _interop.as_kind(info, A)


def getrs(LU, pivots, B, *, trans="n", overwrite_b=False, launch="auto", exec=None):  # noqa: A002
    """X with op(A_b) X_b = B_b from getrf's factors."""
    X = _work(B, overwrite_b)
    _b.getrs(LU, pivots, X, trans, launch, _exec(X, exec))
    return X


def gesv(A, B, *, overwrite_a=False, overwrite_b=False, launch="auto", exec=None):  # noqa: A002
    """(X, info) with A_b X_b = B_b (LU with partial pivoting)."""
    LU = _work(A, overwrite_a)
    X = _work(B, overwrite_b)
    _pivots, info = _b.gesv(LU, X, launch, _exec(LU, exec))
    return X, _interop.as_kind(info, A)


def potrf(A, *, lower=True, overwrite_a=False, launch="auto", exec=None):  # noqa: A002
    """Cholesky factors of Hermitian positive definite matrices: (L, info); only the lower
    (upper) triangle of L is the factor, the other keeps A's values."""
    L = _work(A, overwrite_a)
    info = _b.potrf(L, lower, launch, _exec(L, exec))
    return L, _interop.as_kind(info, A)


def potrs(L, B, *, lower=True, overwrite_b=False, launch="auto", exec=None):  # noqa: A002
    """X with A_b X_b = B_b from potrf's factors."""
    X = _work(B, overwrite_b)
    _b.potrs(L, X, lower, launch, _exec(X, exec))
    return X
