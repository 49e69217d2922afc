"""Batched dense calls on (batch, n, n) arrays against NumPy."""

import numpy as np
import pytest

import loom
from conftest import random_dense, tolerance


def spd_batch(count, n, dtype, seed=0):
    M = random_dense((count, n, n), dtype, seed=seed)
    return M @ np.conj(np.swapaxes(M, 1, 2)) + n * np.eye(n, dtype=dtype)


@pytest.mark.parametrize("count,n", [(1, 1), (7, 3), (20, 8), (5, 17)])
def test_gesv_equals_numpy(count, n, dtype):
    A = random_dense((count, n, n), dtype) + n * np.eye(n, dtype=dtype)
    B = random_dense((count, n), dtype, seed=2)
    A_saved, B_saved = A.copy(), B.copy()
    X, info = loom.batched.gesv(A, B)
    assert np.all(info == 0) and X.shape == B.shape
    np.testing.assert_allclose(X, np.linalg.solve(A, B[..., None])[..., 0],
                               rtol=1e3 * tolerance(dtype))
    np.testing.assert_array_equal(A, A_saved)      # not overwritten unless asked
    np.testing.assert_array_equal(B, B_saved)


def test_getrf_getrs_several_right_hand_sides(dtype):
    A = random_dense((6, 5, 5), dtype) + 5 * np.eye(5, dtype=dtype)
    B = random_dense((6, 5, 2), dtype, seed=3)
    LU, pivots, info = loom.batched.getrf(A)
    assert pivots.dtype == np.int32 and pivots.shape == (30,) and np.all(info == 0)
    X = loom.batched.getrs(LU, pivots, B)
    np.testing.assert_allclose(X, np.linalg.solve(A, B), rtol=1e3 * tolerance(dtype))


def test_singular_matrix_reported_in_info():
    A = np.stack([np.eye(3), np.zeros((3, 3))])
    _, _, info = loom.batched.getrf(A)
    assert info[0] == 0 and info[1] > 0


def test_potrf_potrs(dtype):
    A = spd_batch(4, 6, dtype)
    B = random_dense((4, 6), dtype, seed=5)
    L, info = loom.batched.potrf(A, lower=True)
    assert np.all(info == 0)
    np.testing.assert_allclose(np.tril(L), np.linalg.cholesky(A), rtol=1e3 * tolerance(dtype),
                               atol=1e3 * tolerance(dtype))
    X = loom.batched.potrs(L, B, lower=True)
    np.testing.assert_allclose(X, np.linalg.solve(A, B[..., None])[..., 0],
                               rtol=1e3 * tolerance(dtype))


def test_gemm(dtype):
    A = random_dense((3, 4, 5), dtype)
    B = random_dense((3, 5, 2), dtype, seed=4)
    C = loom.batched.gemm(A, B, alpha=2)
    np.testing.assert_allclose(C, 2 * A @ B, rtol=100 * tolerance(dtype))
    C2 = np.ones((3, 2, 2), dtype)
    loom.batched.gemm(B, B, C2, beta=1, trans_a="t")
    np.testing.assert_allclose(C2, np.swapaxes(B, 1, 2) @ B + 1, rtol=100 * tolerance(dtype))


def test_overwrite_works_in_place():
    A = np.eye(4)[None] * 2.0
    B = np.ones((1, 4))
    X, info = loom.batched.gesv(A, B, overwrite_a=True, overwrite_b=True)
    assert X is B and np.allclose(B, 0.5)


def test_bad_batched_input():
    with pytest.raises(loom.DimensionMismatch):
        loom.batched.gesv(np.ones((2, 3, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="batch"):
        loom.batched.gesv(np.ones((3, 3)).ravel(), np.ones(3))
    with pytest.raises(TypeError, match="int64"):
        loom.batched.gesv(np.ones((2, 3, 3), np.int64), np.ones((2, 3), np.int64))
