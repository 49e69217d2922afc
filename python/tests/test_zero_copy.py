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


# ------------------------------------------------------------------------------ DLPack
# Loom's results leave without copies through DLPack too: the NumPy arrays Loom returns have a
# loom._loom.Array as base, which gives the same memory to np.from_dlpack (and
# torch.from_dlpack) and keeps it alive after every Loom and NumPy object on it is gone.

needs_from_dlpack = pytest.mark.skipif(not hasattr(np, "from_dlpack"),
                                       reason="NumPy < 1.22 has no from_dlpack")


def loom_result():
    """A SpGEMM result (memory that Loom allocated and owns) and SciPy's product."""
    A = random_csr(30, 30, density=0.2)
    C = loom.Csr(A) @ loom.Csr(A)
    np.testing.assert_allclose(C.to_scipy().toarray(), (A @ A).toarray())
    return C


@needs_from_dlpack
def test_results_export_through_dlpack_without_copy():
    C = loom_result()
    data = C.data
    values = data.copy()
    exported = data.base
    assert isinstance(exported, loom._loom.Array)
    assert exported.__dlpack_device__() == (1, 0)
    assert exported.shape == data.shape and exported.dtype == data.dtype
    for view in (np.from_dlpack(exported), np.from_dlpack(data), np.asarray(exported)):
        assert address(view) == address(data)
        np.testing.assert_array_equal(view, values)
    view = np.from_dlpack(exported)  # read-only: NumPy marks every DLPack import so
    data[0] = 42.0  # a write is seen through every view: one memory
    assert view[0] == 42.0 and C.to_scipy().data[0] == 42.0


@needs_from_dlpack
def test_dlpack_view_keeps_loom_memory_alive():
    C = loom_result()
    indices = C.indices.copy()
    view = np.from_dlpack(C.indices.base)
    del C
    gc.collect()
    np.testing.assert_array_equal(view, indices)
    garbage = [np.ones(1000) for _ in range(100)]  # reuse freed memory, if it were freed
    np.testing.assert_array_equal(view, indices)
    del garbage


def test_dlpack_protocol_arguments():
    C = loom_result()
    exported = C.data.base
    with pytest.raises(BufferError, match="without copies"):
        exported.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="device"):
        exported.__dlpack__(dl_device=(2, 0))
    exported.__dlpack__(stream=None, dl_device=(1, 0), copy=False)  # unconsumed: freed
    assert not hasattr(exported, "__cuda_array_interface__")  # host memory
    assert "__array_interface__" in dir(exported)


@needs_from_dlpack
@pytest.mark.parametrize("dtype", [np.dtype(t) for t in loom.value_types], ids=str)
def test_every_value_type_round_trips(dtype):
    A = random_csr(12, 12, density=0.3, dtype=dtype)
    C = loom.spgemm(loom.Csr(A), loom.Csr(A))
    view = np.from_dlpack(C.data.base)
    assert view.dtype == dtype
    np.testing.assert_array_equal(view, C.data)


def test_torch_takes_it_without_copy():
    torch = pytest.importorskip("torch")
    C = loom_result()
    tensor = torch.from_dlpack(C.data.base)
    assert tensor.data_ptr() == address(C.data)
