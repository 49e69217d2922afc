"""Matrix Market I/O against scipy.io, round trips and errors."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import loom
from conftest import random_csr, random_dense, shared_matrix


@pytest.mark.parametrize("name", ["bcsstk01.mtx", "e05r0000.mtx", "can_838.mtx", "gr_30_30.mtx"])
def test_read_equals_scipy(name):
    path = shared_matrix(name)
    A = loom.io.mmread(path)
    expected = sp.csr_matrix(scipy.io.mmread(path))
    assert isinstance(A, sp.csr_array) and A.shape == expected.shape
    assert abs(A - expected).max() <= 1e-12 * abs(expected).max()
    M = loom.io.read_csr(path)
    assert isinstance(M, loom.Csr) and M.nnz == A.nnz


def test_header():
    header = loom.io.read_header(shared_matrix("bcsstk01.mtx"))
    assert header["symmetry"] == "symmetric" and header["shape"] == (48, 48)


@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
def test_sparse_round_trip(tmp_path, symmetry):
    A = random_csr(30, 30, seed=3)
    if symmetry == "symmetric":
        A = (A + A.T).tocsr()
    path = tmp_path / "a.mtx"
    loom.io.mmwrite(path, A, symmetry=symmetry)
    assert abs(sp.csr_matrix(scipy.io.mmread(path)) - A).max() == 0
    assert abs(loom.io.mmread(path) - A).max() == 0


def test_binary_round_trip(tmp_path):
    A = loom.Csr(random_csr(25, 40, seed=4))
    loom.io.mmwrite(tmp_path / "a.bin", A)
    B = loom.io.read_csr(tmp_path / "a.bin")
    assert abs(B.to_scipy() - A.to_scipy()).max() == 0


def test_dense_round_trip(tmp_path):
    x = random_dense((7, 3))
    loom.io.mmwrite(tmp_path / "x.mtx", x)
    np.testing.assert_array_equal(loom.io.mmread(tmp_path / "x.mtx"), x)
    np.testing.assert_array_equal(scipy.io.mmread(tmp_path / "x.mtx"), x)


def test_malformed_file_names_the_line(tmp_path):
    path = tmp_path / "bad.mtx"
    path.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 3.0\n")
    with pytest.raises(loom.BadInput, match="bad.mtx:3"):
        loom.io.read_csr(path)


def test_missing_file_is_io_error():
    with pytest.raises(loom.IoError):
        loom.io.read_csr("/nonexistent.mtx", dtype=loom.value_types[0])
