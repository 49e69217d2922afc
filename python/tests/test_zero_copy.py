"""Zero copy: Loom views the caller's memory (same address, writes visible both ways), keeps
the owner alive, copies only where types or layout force it, and shares its own results."""

import gc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp

import loom
from conftest import INDEX_TYPES, random_csr, random_dense


def address(array):
    return array.__array_interface__["data"][0]


def test_csr_views_scipy_arrays():
    A = random_csr(30, 30)
    M = loom.Csr(A, copy=False)
    assert address(M.data) == address(A.data)
    assert address(M.indices) == address(A.indices)
    assert address(M.indptr) == address(A.indptr)


def test_writes_are_visible_both_ways():
    A = random_csr(20, 20)
    M = loom.Csr(A)
    x = np.ones(20)
    A.data[:] = 2.0                        # the caller writes: Loom sees it
    np.testing.assert_allclose(loom.spmv(M, x), A @ x)
    M.data[:] = 3.0                        # Loom's view written: the caller sees it
    assert np.all(A.data == 3.0)


def test_output_is_written_in_place():
    A = random_csr(25, 10)
    x = random_dense(10)
    y = np.full(25, np.nan)
    before = address(y)
    assert loom.spmv(A, x, y=y) is y and address(y) == before
    np.testing.assert_allclose(y, A @ x)


def test_strided_vectors_are_viewed_not_copied():
    A = random_csr(12, 12)
    x_storage = random_dense((12, 3))
    y_storage = np.zeros((12, 2))
    x, y = x_storage[:, 1], y_storage[:, 0]     # every third / second element
    loom.spmv(A, x, y=y)
    np.testing.assert_allclose(y_storage[:, 0], A @ x_storage[:, 1])
    assert np.all(y_storage[:, 1] == 0)


def test_source_deleted_while_loom_holds_it():
    A = random_csr(40, 40, seed=5)
    expected = A @ np.ones(40)
    data = A.data
    watch = weakref.ref(data)
    M = loom.Csr(A)
    del A, data
    gc.collect()
    assert watch() is not None             # the view keeps the array alive
    np.testing.assert_allclose(loom.spmv(M, np.ones(40)), expected)
    del M
    gc.collect()
    assert watch() is None                 # and lets it go with the matrix


def test_results_share_loom_memory_and_outlive_the_matrix():
    A = random_csr(30, 30)
    C = loom.Csr(A) @ loom.Csr(A)
    data = C.data
    scipy_C = C.to_scipy()
    assert address(scipy_C.data) == address(data)
    expected = (A @ A).toarray()
    del C
    gc.collect()
    np.testing.assert_allclose(scipy_C.toarray(), expected)   # the arrays hold Loom's matrix


def test_copy_only_where_forced():
    A = random_csr(10, 10)
    other = np.int64 if INDEX_TYPES[0] == np.int32 else np.int32
    A.indptr = A.indptr.astype(other)
    A.indices = A.indices.astype(other)
    if np.dtype(other).name not in loom.index_types:
        with pytest.raises(ValueError, match="copy=False forbids"):
            loom.Csr(A, copy=False)
        M = loom.Csr(A)                       # converted: documented copy of the indices
        assert M.index_dtype == INDEX_TYPES[0]
        assert address(M.data) == address(A.data)   # the values are still shared
    np.testing.assert_allclose(loom.spmv(A, np.ones(10)), A @ np.ones(10))


def test_copy_true_copies():
    A = random_csr(10, 10)
    M = loom.Csr(A, copy=True)
    assert address(M.data) != address(A.data)
    A.data[:] = 0
    assert np.any(M.data != 0)


def test_non_csr_input_is_converted_unless_forbidden():
    A = random_csr(15, 15).tocoo()
    with pytest.raises(ValueError, match="copy=False"):
        loom.Csr(A, copy=False)
    np.testing.assert_allclose(loom.spmv(A, np.ones(15)), A @ np.ones(15))


def test_raw_arrays():
    A = random_csr(8, 6)
    M = loom.Csr((A.data, A.indices, A.indptr), shape=(8, 6))
    assert M.shape == (8, 6)
    np.testing.assert_allclose(loom.spmv(M, np.ones(6)), A @ np.ones(6))


def test_coo_views_scipy_arrays():
    A = random_csr(20, 30).tocoo()
    A.row, A.col = A.row.astype(INDEX_TYPES[0]), A.col.astype(INDEX_TYPES[0])
    M = loom.Coo(A, copy=False)
    assert address(M.row) == address(A.row) and address(M.col) == address(A.col)
    assert address(M.data) == address(A.data)
    back = M.to_scipy()
    assert address(back.data) == address(A.data)
    np.testing.assert_allclose(loom.spmv(M, np.ones(30)), A @ np.ones(30))
    with pytest.raises(loom.DimensionMismatch, match="col and data"):
        loom.Coo((np.ones(3), (np.zeros(3, INDEX_TYPES[0]), np.zeros(2, INDEX_TYPES[0]))),
                 shape=(2, 2))
