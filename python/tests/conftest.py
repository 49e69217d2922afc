"""Shared helpers of the Python tests: the built types, random SciPy matrices, the shared
Matrix Market matrices (LOOM_MATRIX_DIR, set by ctest) and the GPU skip."""

import os
import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

import loom

VALUE_TYPES = [np.dtype(t) for t in loom.value_types]
INDEX_TYPES = [np.dtype(t) for t in loom.index_types]
MATRIX_DIR = pathlib.Path(
    os.environ.get("LOOM_MATRIX_DIR", pathlib.Path(__file__).parents[3] / "shared" / "matrices")
)


def tolerance(dtype):
    """Relative tolerance of one product in dtype."""
    return max(1e-10, 100 * np.finfo(np.dtype(dtype)).eps)


def close(actual, expected, dtype):
    """Equal up to rounding in dtype, relative to the largest expected magnitude."""
    scale = max(1.0, float(np.max(np.abs(expected), initial=0)))
    np.testing.assert_allclose(actual, expected, rtol=tolerance(dtype), atol=tolerance(dtype) * scale)


def random_csr(rows, cols, density=0.1, dtype=np.float64, seed=0, index_dtype=None):
    """A SciPy csr_matrix with random values, including empty rows."""
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, format="csr", random_state=rng, dtype=np.float64)
    if np.dtype(dtype).kind == "c":
        A = A + 1j * sp.random(rows, cols, density=density, format="csr", random_state=rng)
    A = sp.csr_matrix(A, dtype=dtype)
    index_dtype = index_dtype or INDEX_TYPES[0]
    A.indptr = A.indptr.astype(index_dtype)
    A.indices = A.indices.astype(index_dtype)
    return A


def random_dense(shape, dtype=np.float64, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def poisson2d(m, dtype=np.float64):
    """The 5-point Laplacian on an m x m grid (SPD), CSR with int32 indices."""
    T = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(m, m))
    A = (sp.kron(sp.eye(m), T) + sp.kron(T, sp.eye(m))).tocsr().astype(dtype)
    A.indptr = A.indptr.astype(INDEX_TYPES[0])
    A.indices = A.indices.astype(INDEX_TYPES[0])
    return A


def shared_matrix(name):
    path = MATRIX_DIR / name
    if not path.exists():
        pytest.skip(f"{path} is missing")
    return path


@pytest.fixture(params=VALUE_TYPES, ids=str)
def dtype(request):
    return request.param


def gpu_available():
    return loom.has_cuda and loom.cuda_device_count() > 0
