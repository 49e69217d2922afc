"""loom.Ell and loom.Sellp: made from SciPy and loom.Csr, back to CSR unchanged, SpMV through
them equal to SciPy's, on awkward shapes (empty rows, one long row, slices of one row)."""

import numpy as np
import pytest
import scipy.sparse as sp

import loom
from conftest import INDEX_TYPES, random_csr, random_dense, tolerance

SHAPES = [(0, 0), (1, 1), (5, 0), (33, 17), (70, 65)]


def close(actual, expected, dtype):
    scale = max(1.0, float(np.max(np.abs(expected), initial=0)))
    np.testing.assert_allclose(actual, expected, rtol=tolerance(dtype), atol=tolerance(dtype) * scale)


def with_long_row(A):
    """A with its row 0 full: Ell pads every other row to that width."""
    A = A.tolil()
    if A.shape[0] and A.shape[1]:
        A[0, :] = np.arange(1, A.shape[1] + 1)
    A = A.tocsr()
    A.indptr = A.indptr.astype(INDEX_TYPES[0])
    A.indices = A.indices.astype(INDEX_TYPES[0])
    return A


def formats():
    return [lambda A: loom.Ell(A), lambda A: loom.Sellp(A),
            lambda A: loom.Sellp(A, slice_size=1), lambda A: loom.Sellp(A, slice_size=4, stride_factor=4)]


@pytest.mark.parametrize("make", formats(), ids=["ell", "sellp", "sellp1", "sellp4x4"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_spmv_equals_scipy_and_to_csr_is_exact(make, shape, dtype):
    A = with_long_row(random_csr(*shape, density=0.15, dtype=dtype))
    M = make(A)
    assert M.shape == shape and M.nnz == A.nnz and M.dtype == dtype and M.ndim == 2
    assert M.slots >= M.nnz
    x = random_dense(shape[1], dtype)
    close(loom.spmv(M, x), A @ x, dtype)
    close(M @ x, A @ x, dtype)
    back = M.to_csr()
    assert isinstance(back, loom.Csr) and back.nnz == A.nnz
    np.testing.assert_array_equal(back.to_scipy().toarray(), A.toarray())


@pytest.mark.parametrize("index_dtype", INDEX_TYPES, ids=str)
def test_ell_layout_and_multivector_alpha_beta(index_dtype):
    A = with_long_row(random_csr(40, 30, density=0.1, index_dtype=index_dtype))
    E = loom.Ell(loom.Csr(A))
    assert E.width == 30 and E.stride == 40 and E.slots == 30 * 40
    assert E.index_dtype == index_dtype
    x = random_dense((30, 3))
    y0 = random_dense((40, 3), seed=4)
    y = y0.copy()
    assert loom.spmv(E, x, alpha=2, beta=-1, y=y) is y
    close(y, 2 * (A @ x) - y0, np.float64)


def test_sellp_slices():
    A = with_long_row(random_csr(70, 65, density=0.05))
    S = loom.Sellp(A, slice_size=8, stride_factor=2)
    assert S.slice_size == 8 and S.stride_factor == 2
    # Only the first slice is as wide as the long row: far fewer slots than Ell.
    assert S.slots < loom.Ell(A).slots
    close(S.to_scipy().toarray(), A.toarray(), np.float64)
    assert "loom.Sellp 70x65" in repr(S)


def test_solver_and_spgemm_take_them_through_csr():
    A = with_long_row(random_csr(30, 30, density=0.1)) + 40 * sp.eye(30, format="csr")
    E = loom.Ell(A)
    close(loom.spgemm(E, E).to_scipy().toarray(), (A @ A).toarray(), np.float64)
    assert loom.transpose(E).shape == (30, 30)


def test_bad_input():
    with pytest.raises(TypeError, match="cannot make a loom.Csr"):
        loom.Ell("not a matrix")
    E = loom.Ell(random_csr(10, 8))
    with pytest.raises(loom.DimensionMismatch):
        loom.spmv(E, np.ones(9))
    with pytest.raises(TypeError, match="dtype"):
        loom.spmv(E, np.ones(8, np.int64))
    with pytest.raises(loom.BadInput):
        loom.Sellp(random_csr(10, 8), slice_size=0)
