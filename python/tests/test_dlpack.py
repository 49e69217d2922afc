"""Loom's results leave without copies through DLPack too: the NumPy arrays Loom returns have a
loom._loom.Array as base, which gives the same memory to np.from_dlpack (and torch.from_dlpack)
and keeps it alive after every Loom and NumPy object on it is gone."""

import gc

import numpy as np
import pytest

import loom
from conftest import random_csr

if not hasattr(np, "from_dlpack"):
    pytest.skip("NumPy < 1.22 has no from_dlpack", allow_module_level=True)


def loom_result():
    """A SpGEMM result (memory that Loom allocated and owns) and SciPy's product."""
    A = random_csr(30, 30, density=0.2)
    C = loom.Csr(A) @ loom.Csr(A)
    np.testing.assert_allclose(C.to_scipy().toarray(), (A @ A).toarray())
    return C


def test_results_export_through_dlpack_without_copy():
    C = loom_result()
    data = C.data
    values = data.copy()
    exported = data.base
    assert isinstance(exported, loom._loom.Array)
    assert exported.__dlpack_device__() == (1, 0)
    assert exported.shape == data.shape and exported.dtype == data.dtype
    for view in (np.from_dlpack(exported), np.from_dlpack(data), np.asarray(exported)):
        assert view.__array_interface__["data"][0] == data.__array_interface__["data"][0]
        np.testing.assert_array_equal(view, values)
    view = np.from_dlpack(exported)  # read-only: NumPy marks every DLPack import so
    data[0] = 42.0  # a write is seen through every view: one memory
    assert view[0] == 42.0 and C.to_scipy().data[0] == 42.0


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
    assert tensor.data_ptr() == C.data.__array_interface__["data"][0]
