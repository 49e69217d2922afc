"""loom.spmm, loom.sddmm and loom.fusedmm: equal to SciPy/NumPy, dense operands row-major or
column-major as given, outputs of the caller's kind and layout, bad input rejected."""

import numpy as np
import pytest
import scipy.sparse as sp

import loom
from conftest import close, random_csr, random_dense

REAL = [t for t in loom.value_types if np.dtype(t).kind == "f"]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(0, 0, 3), (1, 1, 1), (40, 30, 5), (33, 65, 17)], ids=str)
def test_spmm_equals_scipy_in_both_layouts(shape, order, dtype):
    rows, cols, k = shape
    A = random_csr(rows, cols, density=0.15, dtype=dtype)
    B = np.asarray(random_dense((cols, k), dtype), order=order)
    C = loom.spmm(A, B)
    assert type(C) is np.ndarray and C.dtype == dtype and C.shape == (rows, k)
    if order == "F" and k > 1 and rows > 1:
        assert C.flags.f_contiguous and not C.flags.c_contiguous  # B's layout
    close(C, A @ B, dtype)


@pytest.mark.parametrize("mode", ["n", "t", "h"])
@pytest.mark.parametrize("orders", ["CF", "FC", "FF"])
def test_spmm_alpha_beta_mode_into_given_output(mode, orders, dtype):
    A = random_csr(30, 20, dtype=dtype)
    op = {"n": A, "t": A.T, "h": A.conj().T}[mode]
    B = np.asarray(random_dense((op.shape[1], 4), dtype), order=orders[0])
    C0 = np.asarray(random_dense((op.shape[0], 4), dtype, seed=5), order=orders[1])
    C = C0.copy(order="A")
    assert loom.spmm(loom.Csr(A), B, alpha=2, beta=-0.5, C=C, mode=mode) is C
    close(C, 2 * (op @ B) - 0.5 * C0, dtype)


def test_spmm_strided_rows_and_bad_input():
    A = random_csr(20, 10)
    big = random_dense((10, 8))
    close(loom.spmm(A, big[:, :3]), A @ big[:, :3], np.float64)  # rows evenly spaced
    with pytest.raises(loom.DimensionMismatch):
        loom.spmm(A, np.ones((11, 3)))
    with pytest.raises(TypeError, match="dtype"):
        loom.spmm(A, np.ones((10, 3), np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        loom.spmm(A, big[:, ::2])
    C = np.zeros((20, 3))
    C.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        loom.spmm(A, np.ones((10, 3)), C=C)
    C = np.full((20, 3), 7.0)
    with pytest.raises(loom.DimensionMismatch):
        loom.spmm(A, np.ones((10, 4)), C=C)
    assert np.all(C == 7.0)  # untouched
    with pytest.raises(ValueError, match="beta needs C"):
        loom.spmm(A, np.ones((10, 3)), beta=1)


def sampled(A, X, Y):
    """(X @ Y^T) at A's stored entries, in A's order."""
    coo = A.tocoo()
    dense = X @ Y.T
    return dense[coo.row, coo.col]


@pytest.mark.parametrize("orders", ["CC", "FC", "CF"])
def test_sddmm_equals_numpy(orders, dtype):
    A = random_csr(25, 30, density=0.2, dtype=dtype)
    X = np.asarray(random_dense((25, 6), dtype, seed=2), order=orders[0])
    Y = np.asarray(random_dense((30, 6), dtype, seed=3), order=orders[1])
    S = loom.sddmm(A, X, Y, alpha=2, beta=0.5)
    assert isinstance(S, sp.csr_matrix) and S.nnz == A.nnz
    close(S.tocoo().data, 2 * sampled(A, X, Y) + 0.5 * A.tocoo().data, dtype)
    assert not np.shares_memory(S.data, A.data)  # A keeps its values


def test_sddmm_inplace_writes_through_to_scipy():
    A = random_csr(20, 20, density=0.2)
    X, Y = random_dense((20, 4), seed=2), random_dense((20, 4), seed=3)
    expected = sampled(A, X, Y)
    L = loom.Csr(A, copy=False)
    assert loom.sddmm(L, X, Y, inplace=True) is L
    close(A.tocoo().data, expected, np.float64)  # SciPy's own data array was written
    with pytest.raises(TypeError, match="inplace"):
        loom.sddmm(A, X, Y, inplace=True)
    with pytest.raises(loom.DimensionMismatch):
        loom.sddmm(L, X[:5], Y)
    close(A.tocoo().data, expected, np.float64)  # untouched by the failed call


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


@pytest.mark.parametrize("edge", ["identity", "scale", "sigmoid"])
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_fusedmm_equals_numpy(edge, dtype):
    A = random_csr(30, 25, density=0.2, dtype=dtype)
    X, Y = random_dense((30, 5), dtype, seed=2), random_dense((25, 5), dtype, seed=3)
    W = random_dense((25, 7), dtype, seed=4)
    dots = sampled(A, X, Y)
    coo = A.tocoo()
    values = {"identity": dots, "scale": coo.data * dots, "sigmoid": sigmoid(dots)}[edge]
    expected = sp.csr_matrix((values, (coo.row, coo.col)), shape=A.shape) @ W
    Z = loom.fusedmm(A, X, Y, W, edge=edge)
    assert type(Z) is np.ndarray and Z.shape == (30, 7)
    close(Z, expected, dtype)


def test_fusedmm_bad_input():
    A = random_csr(10, 8)
    X, Y, W = np.ones((10, 3)), np.ones((8, 3)), np.ones((8, 2))
    with pytest.raises(ValueError, match="contiguous"):
        loom.fusedmm(A, X, Y, np.asfortranarray(np.ones((8, 2))))
    with pytest.raises(loom.DimensionMismatch):
        loom.fusedmm(A, X, np.ones((7, 3)), W)
    with pytest.raises(ValueError, match="edge operator"):
        loom.fusedmm(A, X, Y, W, edge="tanh")
    if "complex128" in loom.value_types:
        C = random_csr(10, 8, dtype=np.complex128)
        with pytest.raises(TypeError, match="real value types"):
            loom.fusedmm(C, X.astype(complex), Y.astype(complex), W.astype(complex))
