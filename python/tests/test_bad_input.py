"""Bad input raises a clear exception and leaves the caller's data untouched."""

import numpy as np
import pytest

import loom
from conftest import INDEX_TYPES, random_csr, random_dense

INDEX = INDEX_TYPES[0]


def test_unsupported_value_dtype_is_type_error():
    A = random_csr(5, 5).astype(np.int16)
    A.indptr, A.indices = A.indptr.astype(INDEX), A.indices.astype(INDEX)
    with pytest.raises(TypeError, match="int16.*value types"):
        loom.Csr(A)


def test_unbuilt_float_type_is_type_error():
    missing = [t for t in ("float32", "float64", "complex64", "complex128")
               if t not in loom.value_types]
    if not missing:
        pytest.skip("every value type is built")
    A = random_csr(5, 5).astype(missing[0])
    with pytest.raises(TypeError, match=f"{missing[0]}, which this build of Loom does not provide"):
        loom.Csr(A)


def test_x_of_another_dtype_is_type_error():
    A = random_csr(6, 6)
    with pytest.raises(TypeError, match="x has dtype int64, expected float64"):
        loom.spmv(A, np.ones(6, dtype=np.int64))


def test_mismatched_shapes_are_dimension_mismatch():
    A = random_csr(6, 4)
    y = np.full(6, 7.0)
    with pytest.raises(loom.DimensionMismatch):
        loom.spmv(A, np.ones(5))
    with pytest.raises(loom.DimensionMismatch):
        loom.spmv(A, np.ones(4), y=np.zeros(5))
    with pytest.raises(loom.DimensionMismatch):
        loom.spgemm(A, A)
    with pytest.raises(loom.DimensionMismatch):
        loom.spadd(A, random_csr(4, 6))
    with pytest.raises(loom.DimensionMismatch):
        loom.spmv(A, np.ones(4), y=y[:5])
    assert np.all(y == 7.0)


def test_non_contiguous_output_is_value_error():
    A = random_csr(6, 6)
    y = np.zeros((6, 4))[:, ::2]             # columns two apart
    with pytest.raises(ValueError, match="not contiguous"):
        loom.spmv(A, np.ones((6, 2)), y=y)
    assert np.all(y == 0)


def test_read_only_output_is_value_error():
    A = random_csr(4, 4)
    y = np.zeros(4)
    y.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        loom.spmv(A, np.ones(4), y=y)


def test_three_dimensional_x_is_value_error():
    with pytest.raises(ValueError, match="1-D or 2-D"):
        loom.spmv(random_csr(4, 4), np.ones((4, 1, 1)))


def test_not_an_array_is_type_error():
    with pytest.raises(TypeError, match="not an array"):
        loom.spmv(random_csr(4, 4), object())
    with pytest.raises(TypeError, match="cannot make a loom.Csr"):
        loom.Csr("matrix.mtx")


def test_broken_structure_is_bad_input_and_leaves_arrays_alone():
    indptr = np.array([0, 2, 1, 3], INDEX)               # not monotone
    indices = np.array([0, 1, 2], INDEX)
    data = np.array([1.0, 2.0, 3.0])
    with pytest.raises(loom.BadInput):
        loom.Csr((data, indices, indptr), shape=(3, 3))
    assert list(indptr) == [0, 2, 1, 3] and list(data) == [1.0, 2.0, 3.0]


def test_column_out_of_range_is_an_error():
    indptr = np.array([0, 1, 2], INDEX)
    indices = np.array([0, 9], INDEX)
    with pytest.raises((loom.OutOfRange, loom.BadInput), match="9"):
        loom.Csr((np.ones(2), indices, indptr), shape=(2, 2))


def test_indptr_of_wrong_length_is_dimension_mismatch():
    with pytest.raises(loom.DimensionMismatch, match="rows \\+ 1"):
        loom.Csr((np.ones(1), np.zeros(1, INDEX), np.array([0, 1], INDEX)), shape=(3, 3))


def test_mixed_types_in_a_product_is_type_error():
    if len(loom.value_types) < 2:
        pytest.skip("one value type built")
    A = random_csr(5, 5, dtype=loom.value_types[0])
    B = random_csr(5, 5, dtype=loom.value_types[1])
    with pytest.raises(TypeError, match="B holds"):
        loom.spgemm(A, B)


def test_unknown_mode_is_bad_input():
    with pytest.raises(loom.BadInput, match="mode"):
        loom.spmv(random_csr(3, 3), np.ones(3), mode="sideways")


def test_beta_without_y_is_value_error():
    with pytest.raises(ValueError, match="beta needs y"):
        loom.spmv(random_csr(3, 3), np.ones(3), beta=1)


def test_complex_scalar_with_real_values_is_type_error():
    if "float64" not in loom.value_types:
        pytest.skip("no float64")
    with pytest.raises(TypeError, match="alpha is complex"):
        loom.spmv(random_csr(3, 3), np.ones(3), alpha=1j)


def test_dense_input_left_untouched():
    A = random_csr(8, 8)
    x = random_dense(8)
    saved = x.copy()
    loom.spmv(A, x)
    np.testing.assert_array_equal(x, saved)


class FakeDeviceArray:
    """Host memory dressed up with __cuda_array_interface__: exercises the device path's
    parsing on machines without a GPU."""

    def __init__(self, array, typestr=None):
        self.array = array
        self.shape = array.shape
        self.typestr = typestr or array.dtype.str

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.array.shape, "typestr": self.typestr, "strides": None,
                "data": (self.array.ctypes.data, False), "version": 3}


def test_device_memory_with_a_host_matrix_is_bad_input():
    M = loom.Csr(random_csr(4, 4))
    y = np.zeros(4)
    with pytest.raises(loom.BadInput, match="memory of CUDA device 0"):
        loom.spmv(M, FakeDeviceArray(np.ones(4)), y=y)
    assert np.all(y == 0)


def test_foreign_byte_order_is_type_error():
    M = loom.Csr(random_csr(4, 4))
    with pytest.raises(TypeError, match="native-byte-order"):
        loom.spmv(M, FakeDeviceArray(np.ones(4), typestr=">f8"), y=np.zeros(4))
