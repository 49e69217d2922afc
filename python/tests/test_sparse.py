"""SpMV, SpGEMM, SpAdd and transposition: results equal to SciPy's on random and real
matrices and awkward shapes, in every built type."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import loom
from conftest import INDEX_TYPES, close, random_csr, random_dense, shared_matrix, tolerance

SHAPES = [(0, 0), (1, 1), (31, 17), (32, 33), (33, 32), (200, 150)]


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


@pytest.mark.parametrize("mode", ["none", "N", "transpose", "T", "conjugate", "C",
                                  "conj_transpose", "H"])
def test_spmv_allocates_y_for_every_spelling_of_the_mode_table(mode, dtype):
    # The shape of the y Python allocates comes from the core's mode table (aliases, any case).
    A = random_csr(7, 4, dtype=dtype)
    op = {"none": A, "n": A, "transpose": A.T, "t": A.T, "conjugate": A.conj(), "c": A.conj(),
          "conj_transpose": A.conj().T, "h": A.conj().T}[mode.lower()]
    x = random_dense(op.shape[1], dtype)
    y = loom.spmv(A, x, mode=mode)
    assert y.shape == (op.shape[0],)
    close(y, op @ x, dtype)


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


# ------------------------------------------------------------------------------ loom.Ell, loom.Sellp
# Made from SciPy and loom.Csr, back to CSR unchanged, SpMV through them equal to SciPy's, on
# awkward shapes (empty rows, one long row, slices of one row).

PADDED_SHAPES = [(0, 0), (1, 1), (5, 0), (33, 17), (70, 65)]


def with_long_row(A):
    """A with its row 0 full: Ell pads every other row to that width (A's index type kept:
    SciPy's LIL round trip would pick its own)."""
    index_dtype = A.indices.dtype
    A = A.tolil()
    if A.shape[0] and A.shape[1]:
        A[0, :] = np.arange(1, A.shape[1] + 1)
    A = A.tocsr()
    A.indptr = A.indptr.astype(index_dtype)
    A.indices = A.indices.astype(index_dtype)
    return A


PADDED = [lambda A: loom.Ell(A), lambda A: loom.Sellp(A),
          lambda A: loom.Sellp(A, slice_size=4, stride_factor=4)]


@pytest.mark.parametrize("make", PADDED, ids=["ell", "sellp", "sellp4x4"])
@pytest.mark.parametrize("shape", PADDED_SHAPES, ids=str)
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
    assert loom.Csr(E).nnz == A.nnz and loom.Csr(loom.Sellp(A)).shape == A.shape
    with pytest.raises(ValueError, match="copy=False"):
        loom.Csr(E, copy=False)
    assert loom.transpose(E).shape == (30, 30)


def test_padded_formats_bad_input():
    with pytest.raises(TypeError, match="cannot make a loom.Csr"):
        loom.Ell("not a matrix")
    E = loom.Ell(random_csr(10, 8))
    with pytest.raises(loom.DimensionMismatch):
        loom.spmv(E, np.ones(9))
    with pytest.raises(TypeError, match="dtype"):
        loom.spmv(E, np.ones(8, np.int64))
    with pytest.raises(loom.BadInput):
        loom.Sellp(random_csr(10, 8), slice_size=0)
