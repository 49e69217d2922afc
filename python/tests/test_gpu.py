"""The same on the GPU with CuPy and PyTorch data: results equal to SciPy's, zero copy,
lifetime, the caller's stream. Skipped without CuPy/PyTorch, the CUDA backend or a device."""

import gc

import numpy as np
import pytest
import scipy.sparse as sp

import loom
from conftest import poisson2d, random_csr, random_dense

cupy = pytest.importorskip("cupy")
if not (loom.has_cuda and loom.cuda_device_count() > 0):
    pytest.skip("Loom was built without CUDA or there is no device", allow_module_level=True)
if "float64" not in loom.value_types:
    pytest.skip("the GPU tests use float64", allow_module_level=True)

import cupyx.scipy.sparse as csp  # noqa: E402


def device_csr(A):
    return csp.csr_matrix(A)


def test_spmv_cupy_in_cupy_out():
    A = random_csr(300, 200, seed=1)
    x = random_dense(200)
    y = loom.spmv(device_csr(A), cupy.asarray(x))
    assert isinstance(y, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(y), A @ x, rtol=1e-12, atol=1e-12)


def test_csr_views_cupy_memory_and_writes_are_shared():
    A = device_csr(random_csr(50, 50, seed=2))
    M = loom.Csr(A, copy=False)
    assert M.data.data.ptr == A.data.data.ptr
    assert M.indptr.data.ptr == A.indptr.data.ptr
    assert not M.exec.is_host
    A.data[:] = 2.0
    x = cupy.ones(50)
    np.testing.assert_allclose(cupy.asnumpy(loom.spmv(M, x)), cupy.asnumpy(A @ x))
    M.data[:] = 3.0
    assert bool(cupy.all(A.data == 3.0))


def test_output_written_in_place_on_device():
    A = device_csr(random_csr(40, 40, seed=3))
    x = cupy.asarray(random_dense(40))
    y = cupy.zeros(40)
    pointer = y.data.ptr
    assert loom.spmv(A, x, y=y) is y and y.data.ptr == pointer
    np.testing.assert_allclose(cupy.asnumpy(y), cupy.asnumpy(A @ x), rtol=1e-12)


def test_device_source_deleted_while_loom_holds_it():
    A_host = random_csr(60, 60, seed=4)
    A = device_csr(A_host)
    M = loom.Csr(A)
    del A
    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()
    y = loom.spmv(M, cupy.ones(60))
    np.testing.assert_allclose(cupy.asnumpy(y), A_host @ np.ones(60), rtol=1e-12)


def test_spgemm_spadd_transpose_cupyx_in_cupyx_out():
    A_host = random_csr(70, 50, seed=5)
    B_host = random_csr(50, 40, seed=6)
    A, B = device_csr(A_host), device_csr(B_host)
    C = loom.spgemm(A, B)
    assert isinstance(C, csp.csr_matrix)
    assert abs(C.get() - A_host @ B_host).max() <= 1e-12
    assert abs(loom.spadd(A, A, beta=-2).get() + A_host).max() <= 1e-12
    assert abs(loom.transpose(A).get() - A_host.T).max() == 0


def test_host_matrix_copied_to_the_device():
    A = random_csr(30, 30, seed=7)
    M = loom.Csr(A, exec=loom.exec("cuda"))
    assert not M.exec.is_host
    y = loom.spmv(M, cupy.ones(30))
    np.testing.assert_allclose(cupy.asnumpy(y), A @ np.ones(30), rtol=1e-12)


def test_solve_on_the_device_equals_the_host():
    A = poisson2d(40)
    b = random_dense(A.shape[0])
    x_host, info_host = loom.solve(A, b, precond="jacobi", rtol=1e-8)
    s_host = loom.solver.Cg(A, precond="jacobi", rtol=1e-8)
    s_host.solve(b)
    s = loom.solver.Cg(device_csr(A), precond="jacobi", rtol=1e-8)
    x = s.solve(cupy.asarray(b))
    assert isinstance(x, cupy.ndarray) and s.result.converged
    assert abs(s.result.iterations - s_host.result.iterations) <= 1
    np.testing.assert_allclose(cupy.asnumpy(x), x_host, rtol=1e-6, atol=1e-8)
    # A SciPy matrix with a CuPy right-hand side: the matrix goes to b's device.
    x2, info = loom.solve(A, cupy.asarray(b), precond="jacobi", rtol=1e-8)
    assert info == 0 and isinstance(x2, cupy.ndarray)


def test_work_runs_on_the_callers_stream():
    A = random_csr(100, 100, seed=8)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        M = loom.Csr(device_csr(A))
        assert M.exec.stream == stream.ptr
        y = loom.spmv(M, cupy.ones(100))
    stream.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(y), A @ np.ones(100), rtol=1e-12)


def test_batched_gesv_on_cupy():
    A = random_dense((10, 6, 6)) + 6 * np.eye(6)
    B = random_dense((10, 6), seed=2)
    X, info = loom.batched.gesv(cupy.asarray(A), cupy.asarray(B))
    assert isinstance(X, cupy.ndarray) and bool(cupy.all(info == 0))
    np.testing.assert_allclose(cupy.asnumpy(X), np.linalg.solve(A, B[..., None])[..., 0],
                               rtol=1e-10)


def test_wrong_device_dtype_is_type_error():
    A = device_csr(random_csr(5, 5))
    with pytest.raises(TypeError, match="float32"):
        loom.spmv(A, cupy.ones(5, dtype=cupy.float32))


def test_host_vector_with_device_matrix_is_bad_input():
    M = loom.Csr(device_csr(random_csr(5, 5)))
    with pytest.raises(loom.BadInput, match="host memory"):
        loom.spmv(M, np.ones(5))


# ------------------------------------------------------------------------------ PyTorch

def torch_csr(A, torch):
    return torch.sparse_csr_tensor(torch.from_numpy(A.indptr.astype(np.int64)),
                                   torch.from_numpy(A.indices.astype(np.int64)),
                                   torch.from_numpy(A.data), size=A.shape).to("cuda")


def test_torch_spmv_and_zero_copy():
    torch = pytest.importorskip("torch")
    A = random_csr(80, 60, seed=9)
    T = torch_csr(A, torch)
    x = torch.from_numpy(random_dense(60)).to("cuda")
    y = loom.spmv(T, x)
    assert isinstance(y, torch.Tensor) and y.is_cuda
    np.testing.assert_allclose(y.cpu().numpy(), A @ x.cpu().numpy(), rtol=1e-12)
    M = loom.Csr(T)
    assert M.data.data.ptr == T.values().data_ptr()
    if "int64" in loom.index_types:
        assert M.indices.data.ptr == T.col_indices().data_ptr()


def test_torch_solve_and_spgemm():
    torch = pytest.importorskip("torch")
    A = poisson2d(20)
    T = torch_csr(A, torch)
    b = torch.from_numpy(random_dense(A.shape[0])).to("cuda")
    x, info = loom.solve(T, b, rtol=1e-10)
    assert info == 0 and isinstance(x, torch.Tensor) and x.is_cuda
    r = b.cpu().numpy() - A @ x.cpu().numpy()
    assert np.linalg.norm(r) <= 1e-9 * np.linalg.norm(b.cpu().numpy())
    C = loom.spgemm(T, T)
    assert C.layout == torch.sparse_csr
    expected = (A @ A).toarray()
    np.testing.assert_allclose(C.to_dense().cpu().numpy(), expected, rtol=1e-12, atol=1e-12)


def test_torch_current_stream():
    torch = pytest.importorskip("torch")
    A = random_csr(50, 50, seed=10)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        M = loom.Csr(torch_csr(A, torch))
        assert M.exec.stream == stream.cuda_stream
        y = loom.spmv(M, torch.ones(50, dtype=torch.float64, device="cuda"))
    stream.synchronize()
    np.testing.assert_allclose(y.cpu().numpy(), A @ np.ones(50), rtol=1e-12)


# ------------------------------------------------------------------------------ formats, GNN kernels, DLPack

def test_ell_sellp_on_the_device():
    A = random_csr(70, 50, seed=11)
    x = random_dense(50)
    for M in (loom.Ell(device_csr(A)), loom.Sellp(device_csr(A), slice_size=8)):
        assert not M.exec.is_host and M.nnz == A.nnz
        y = M @ cupy.asarray(x)
        assert isinstance(y, cupy.ndarray)
        np.testing.assert_allclose(cupy.asnumpy(y), A @ x, rtol=1e-12, atol=1e-12)
        back = M.to_csr()
        np.testing.assert_array_equal(cupy.asnumpy(back.data), A.data)


@pytest.mark.parametrize("order", ["C", "F"])
def test_spmm_cupy_in_the_given_layout(order):
    A = random_csr(90, 70, seed=12)
    B = random_dense((70, 9))
    C = loom.spmm(device_csr(A), cupy.asarray(B, order=order))
    assert isinstance(C, cupy.ndarray) and C.flags.f_contiguous == (order == "F")
    np.testing.assert_allclose(cupy.asnumpy(C), A @ B, rtol=1e-12, atol=1e-12)


def test_sddmm_and_fusedmm_on_cupy():
    A = random_csr(40, 30, seed=13)
    X, Y, W = random_dense((40, 4), seed=2), random_dense((30, 4), seed=3), random_dense((30, 5))
    S = loom.sddmm(device_csr(A), cupy.asarray(X), cupy.asarray(Y))
    assert isinstance(S, csp.csr_matrix)
    coo = A.tocoo()
    dots = (X @ Y.T)[coo.row, coo.col]
    expected = sp.csr_matrix((dots, (coo.row, coo.col)), shape=A.shape)
    assert abs(S.get() - expected).max() <= 1e-12
    Z = loom.fusedmm(device_csr(A), cupy.asarray(X), cupy.asarray(Y), cupy.asarray(W))
    np.testing.assert_allclose(cupy.asnumpy(Z), expected @ W, rtol=1e-12, atol=1e-12)


def test_device_results_through_dlpack_without_copy():
    A = random_csr(50, 50, seed=14)
    C = loom.Csr(device_csr(A)) @ loom.Csr(device_csr(A))
    exported = C._core._array("data")  # Loom's device memory as loom._loom.Array
    assert isinstance(exported, loom._loom.Array)
    assert exported.__dlpack_device__() == (2, 0)
    view = cupy.from_dlpack(exported)
    assert view.data.ptr == exported.__cuda_array_interface__["data"][0]
    del C
    gc.collect()
    np.testing.assert_allclose(cupy.asnumpy(view).sum(), (A @ A).data.sum(), rtol=1e-12)
    torch = pytest.importorskip("torch")
    tensor = torch.from_dlpack(exported)
    assert tensor.is_cuda and tensor.data_ptr() == view.data.ptr


def test_torch_spmm_and_the_gnn_example_on_cuda():
    torch = pytest.importorskip("torch")
    import os
    import pathlib
    import subprocess
    import sys

    A = random_csr(60, 40, seed=15)
    B = torch.from_numpy(random_dense((40, 6))).to("cuda")
    C = loom.spmm(torch_csr(A, torch), B)
    assert isinstance(C, torch.Tensor) and C.is_cuda
    np.testing.assert_allclose(C.cpu().numpy(), A @ B.cpu().numpy(), rtol=1e-12, atol=1e-12)
    example = pathlib.Path(__file__).parents[1] / "examples" / "gnn_gcn.py"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(example), "5000", "32", "--cuda"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and "agree: True" in done.stdout, done.stderr


def test_callers_stream_outlives_the_matrices_made_on_it():
    # Loom frees its own memory in stream order: a CuPy stream deleted by the caller is kept
    # (its Python object held) until the last Loom object made on it is gone.
    import weakref

    A = random_csr(100, 100, seed=16)
    stream = cupy.cuda.Stream(non_blocking=True)
    alive = weakref.ref(stream)
    with stream:
        M = loom.Csr(device_csr(A))
        C = M @ M  # memory Loom allocated on the stream
        y = loom.spmv(C, cupy.ones(100))
    stream.synchronize()
    del stream
    gc.collect()
    assert alive() is not None
    np.testing.assert_allclose(cupy.asnumpy(y), (A @ A) @ np.ones(100), rtol=1e-12)
    del M, C, y
    gc.collect()
    cupy.cuda.Device().synchronize()
    assert alive() is None
