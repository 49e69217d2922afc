"""The module: what it was built with, executors, the error classes."""

import pytest

import loom


def test_built_types_are_listed():
    assert set(loom.value_types) <= {"float32", "float64", "complex64", "complex128"}
    assert set(loom.index_types) <= {"int32", "int64"}
    assert loom.value_types and loom.index_types


def test_executors():
    assert loom.exec("reference").name == "reference"
    assert loom.exec("ref").kind == "reference"
    if loom.has_openmp:
        omp = loom.exec("omp", threads=2)
        assert omp.kind == "omp" and omp.threads == 2 and omp.is_host
    assert loom.default_exec().is_host


def test_unknown_executor_is_bad_input():
    with pytest.raises(loom.BadInput, match="unknown executor 'gpu'"):
        loom.exec("gpu")


def test_executor_names_are_the_librarys_table():
    # Every spelling of exec_kind_names, in any case, as the C++ parser takes them.
    assert loom.exec("REF").kind == "reference"
    assert loom.exec("Reference").kind == "reference"
    if loom.has_openmp:
        assert loom.exec("OMP").kind == "omp"
    with pytest.raises(loom.BadInput, match="expected one of reference, omp, cuda"):
        loom.exec("refer")


@pytest.mark.skipif(loom.has_cuda, reason="this build has CUDA")
def test_cuda_without_backend_is_not_compiled():
    assert loom.cuda_device_count() == 0
    with pytest.raises(loom.NotCompiled):
        loom.exec("cuda")


def test_error_hierarchy():
    for name in ("DimensionMismatch", "BadInput", "OutOfRange", "NotCompiled", "NotSupported",
                 "NumericalError", "CudaError", "AllocationError", "IoError"):
        assert issubclass(getattr(loom, name), loom.Error)
    assert issubclass(loom.Error, RuntimeError)
    assert issubclass(loom.DimensionMismatch, ValueError)
    assert issubclass(loom.IoError, OSError)


def test_error_carries_loom_message():
    with pytest.raises(loom.IoError, match="no_such_file.mtx"):
        loom.io.read_csr("/nonexistent/no_such_file.mtx")

