"""SpMV, SpGEMM, SpAdd and transposition: results equal to SciPy's on random and real
matrices and awkward shapes, in every built type."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import loom
from conftest import INDEX_TYPES, random_csr, random_dense, shared_matrix, tolerance

SHAPES = [(0, 0), (1, 1), (31, 17), (32, 33), (33, 32), (200, 150)]


def close(actual, expected, dtype):
    scale = max(1.0, float(np.max(np.abs(expected), initial=0)))
    np.testing.assert_allclose(actual, expected, rtol=tolerance(dtype), atol=tolerance(dtype) * scale)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("index_dtype", INDEX_TYPES, ids=str)
def test_spmv_equals_scipy(shape, index_dtype, dtype):
    A = random_csr(*shape, density=0.2, dtype=dtype, index_dtype=index_dtype)
    x = random_dense(shape[1], dtype)
    y = loom.spmv(A, x)
    assert type(y) is np.ndarray and y.dtype == dtype and y.shape == (shape[0],)
    close(y, A @ x, dtype)


@pytest.mark.parametrize("mode", ["n", "t", "c", "h"])
def test_spmv_modes_alpha_beta_multivector(mode, dtype):
    A = random_csr(40, 25, dtype=dtype)
    op = {"n": A, "t": A.T, "c": A.conj(), "h": A.conj().T}[mode]
    x = random_dense((op.shape[1], 3), dtype)
    y0 = random_dense((op.shape[0], 3), dtype, seed=7)
    y = y0.copy()
    out = loom.spmv(A, x, alpha=2, beta=-0.5, y=y, mode=mode)
    assert out is y
    close(y, 2 * (op @ x) - 0.5 * y0, dtype)


def test_loom_csr_is_reusable_and_matmul_works(dtype):
    A_scipy = random_csr(60, 60, dtype=dtype)
    A = loom.Csr(A_scipy)
    assert A.shape == (60, 60) and A.nnz == A_scipy.nnz and A.dtype == dtype
    x = random_dense(60, dtype)
    for _ in range(3):
        close(A @ x, A_scipy @ x, dtype)
    close((A @ A).to_scipy().toarray(), (A_scipy @ A_scipy).toarray(), dtype)


@pytest.mark.parametrize("shapes", [((30, 20), (20, 25)), ((1, 1), (1, 1)), ((0, 5), (5, 3)),
                                    ((50, 40), (40, 60))], ids=str)
def test_spgemm_equals_scipy(shapes, dtype):
    A = random_csr(*shapes[0], density=0.2, dtype=dtype, seed=1)
    B = random_csr(*shapes[1], density=0.2, dtype=dtype, seed=2)
    C = loom.spgemm(A, B)
    assert isinstance(C, sp.csr_matrix) and C.shape == (A @ B).shape
    close(C.toarray(), (A @ B).toarray(), dtype)


def test_sparse_results_follow_the_callers_kind(dtype):
    A = sp.csr_array(random_csr(20, 20, dtype=dtype))
    assert isinstance(loom.spgemm(A, A), sp.csr_array)
    assert isinstance(loom.transpose(loom.Csr(A)), loom.Csr)


def test_spadd_equals_scipy(dtype):
    A = random_csr(45, 30, dtype=dtype, seed=3)
    B = random_csr(45, 30, dtype=dtype, seed=4)
    C = loom.spadd(A, B, alpha=2, beta=-3)
    close(C.toarray(), (2 * A - 3 * B).toarray(), dtype)
    C.sort_indices()
    assert C.has_sorted_indices


def test_transpose_equals_scipy(dtype):
    A = random_csr(37, 21, dtype=dtype)
    close(loom.transpose(A).toarray(), A.T.toarray(), dtype)
    close(loom.transpose(A, conjugate=True).toarray(), A.conj().T.toarray(), dtype)


@pytest.mark.parametrize("name", ["bcsstk01.mtx", "e05r0000.mtx", "nos4.mtx", "add32.mtx"])
def test_real_matrices_equal_scipy(name):
    path = shared_matrix(name)
    dtype = np.dtype(loom.value_types[-1 if "float64" not in loom.value_types else
                                      loom.value_types.index("float64")])
    A = sp.csr_matrix(scipy.io.mmread(path), dtype=dtype)
    A.indptr = A.indptr.astype(INDEX_TYPES[0])
    A.indices = A.indices.astype(INDEX_TYPES[0])
    x = random_dense(A.shape[1], dtype)
    close(loom.spmv(A, x), A @ x, dtype)
    close_sparse(loom.spgemm(A, A), A @ A, dtype)
    close_sparse(loom.spadd(A, A.T.tocsr(), beta=-1), A - A.T, dtype)


def close_sparse(actual, expected, dtype):
    """Equal entries (compared through the difference, without densifying)."""
    scale = max(1.0, abs(expected).max())
    assert abs(actual - expected).max() <= tolerance(dtype) * scale


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_coo_spmv_equals_scipy(shape, dtype):
    A = random_csr(*shape, density=0.2, dtype=dtype).tocoo()
    A.row, A.col = A.row.astype(INDEX_TYPES[0]), A.col.astype(INDEX_TYPES[0])
    M = loom.Coo(A)
    assert M.shape == shape and M.nnz == A.nnz
    x = random_dense((shape[1], 2), dtype)
    close(loom.spmv(M, x), A @ x, dtype)
    z = random_dense(shape[0], dtype, seed=3)
    close(loom.spmv(M, z, mode="t"), A.T @ z, dtype)
    close(M.tocsr().to_scipy().toarray(), A.toarray(), dtype)
