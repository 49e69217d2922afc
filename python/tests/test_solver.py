"""loom.solve and the solver objects against SciPy: same solution, same iteration count (+-1)
as scipy.sparse.linalg.cg with the same Jacobi preconditioner and tolerance; results,
history, configs equal to `loom solve --config`, LinearOperators both ways."""

import inspect
import json

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import loom
from conftest import INDEX_TYPES, poisson2d, random_dense, shared_matrix

if "float64" not in loom.value_types:
    pytest.skip("the solver tests use float64", allow_module_level=True)


def scipy_jacobi_cg(A, b, rtol):
    """SciPy's CG with Jacobi and its iteration count."""
    counter = []
    M = sp.diags(1.0 / A.diagonal())
    kwargs = {"rtol": rtol} if "rtol" in inspect.signature(spla.cg).parameters else {"tol": rtol}
    x, info = spla.cg(A, b, M=M, atol=0, maxiter=10 * A.shape[0],
                      callback=lambda xk: counter.append(1), **kwargs)
    return x, info, len(counter)


def test_cg_jacobi_matches_scipy_on_poisson():
    A = poisson2d(30)
    b = random_dense(A.shape[0])
    x, info = loom.solve(A, b, solver="cg", precond="jacobi", rtol=1e-8)
    x_ref, info_ref, iterations_ref = scipy_jacobi_cg(A, b, 1e-8)
    assert info == 0 and info_ref == 0
    assert np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b) * 1.01
    np.testing.assert_allclose(x, x_ref, rtol=1e-6, atol=1e-8 * np.abs(x_ref).max())
    s = loom.solver.Cg(A, precond="jacobi", rtol=1e-8)
    s.solve(b)
    assert abs(s.result.iterations - iterations_ref) <= 1


@pytest.mark.parametrize("name", ["bcsstk01.mtx", "nos4.mtx", "gr_30_30.mtx"])
def test_real_spd_matrices_match_scipy(name):
    A = sp.csr_matrix(scipy.io.mmread(shared_matrix(name)), dtype=np.float64)
    A.indptr, A.indices = A.indptr.astype(INDEX_TYPES[0]), A.indices.astype(INDEX_TYPES[0])
    b = A @ np.ones(A.shape[0])
    x, info = loom.solve(A, b, precond="jacobi", rtol=1e-10, maxiter=20000)
    assert info == 0
    assert np.linalg.norm(b - A @ x) <= 1.01e-10 * np.linalg.norm(b)
    np.testing.assert_allclose(x, spla.spsolve(A.tocsc(), b), rtol=1e-4)


@pytest.mark.parametrize("solver", ["cg", "bicgstab", "gmres", "cgs", "fcg", "minres", "idr"])
def test_every_solver_solves(solver):
    A = poisson2d(12)
    b = random_dense(A.shape[0])
    x, info = loom.solve(A, b, solver=solver, rtol=1e-9)
    assert info == 0
    assert np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b)


def test_solver_object_reuse_result_and_history():
    A = poisson2d(16)
    s = loom.solver.Cg(A, precond="jacobi", rtol=1e-10)
    for seed in (1, 2):
        b = random_dense(A.shape[0], seed=seed)
        x = s.solve(b)
        r = s.result
        assert r.converged and r.reason == "converged" and r.info == 0
        assert r.iterations > 0 and r.residual_history.shape == (r.iterations + 1, 1)
        assert r.residual_history[-1, 0] <= 1e-10 * np.linalg.norm(b) * 1.01
        assert r.residual_history[0, 0] == pytest.approx(np.linalg.norm(b))
        assert np.linalg.norm(b - A @ x) <= 1e-9 * np.linalg.norm(b)
        assert "converged" in r.message


def test_multiple_right_hand_sides_and_x0_and_out():
    A = poisson2d(10)
    B = random_dense((A.shape[0], 3))
    s = loom.solver.Bicgstab(A, rtol=1e-10)
    X = s.solve(B)
    assert X.shape == B.shape
    assert np.linalg.norm(B - A @ X) <= 1e-8 * np.linalg.norm(B)
    x = np.empty(A.shape[0])
    exact = spla.spsolve(A.tocsc(), B[:, 0])
    s.solve(B[:, 0], x0=exact, x=x)
    assert s.result.iterations == 0


def test_iteration_limit_gives_positive_info():
    A = poisson2d(30)
    b = random_dense(A.shape[0])
    x, info = loom.solve(A, b, rtol=1e-12, maxiter=5)
    assert info == 5


def test_atol_stops_like_scipy():
    A = poisson2d(20)
    b = random_dense(A.shape[0])
    x, info = loom.solve(A, b, rtol=0, atol=1e-3 * np.linalg.norm(b))
    assert info == 0 and np.linalg.norm(b - A @ x) <= 1.01e-3 * np.linalg.norm(b)


def test_config_dict_equal_to_the_command_line_json():
    A = poisson2d(12)
    b = random_dense(A.shape[0])
    config = {"solver": "gmres", "krylov_dim": 10,
              "preconditioner": {"type": "block-jacobi", "max_block_size": 4},
              "criteria": {"max_iters": 500, "relative_residual": 1e-9}}
    x, info = loom.solve(A, b, config=config)
    assert info == 0
    s = loom.solver.Solver(A, config=json.dumps(config))
    s.solve(b)
    assert s.result.converged


def test_bad_config_is_bad_input():
    A = poisson2d(5)
    with pytest.raises(loom.BadInput, match="max_block_size"):
        loom.solver.Cg(A, precond={"type": "block-jacobi", "max_block_size": -3})
    with pytest.raises(loom.BadInput, match="solver"):
        loom.solve(A, np.ones(25), solver="nonsense")


def test_non_square_is_an_error_and_b_untouched():
    A = sp.random(5, 4, density=0.5, format="csr")
    b = np.ones(5)
    with pytest.raises(loom.Error):
        loom.solve(A, b)
    assert np.all(b == 1)


def test_python_callable_as_loom_operator():
    A = poisson2d(12)
    calls = []

    def matvec(x):
        calls.append(x.shape)
        return A @ x

    op = loom.LinearOperator(A.shape, matvec, dtype=np.float64)
    b = random_dense(A.shape[0])
    x, info = loom.solve(op, b, rtol=1e-10)
    assert info == 0 and calls
    assert np.linalg.norm(b - A @ x) <= 1e-9 * np.linalg.norm(b)
    # A SciPy LinearOperator goes the same way.
    x2, info2 = loom.solve(spla.aslinearoperator(A), b, rtol=1e-10)
    assert info2 == 0
    np.testing.assert_allclose(x2, x, rtol=1e-8)


def test_operator_of_wrong_result_shape_is_dimension_mismatch():
    op = loom.LinearOperator((6, 6), lambda x: np.ones(5), dtype=np.float64)
    with pytest.raises(loom.DimensionMismatch):
        loom.solve(op, np.ones(6))


def test_loom_as_scipy_linear_operator():
    A = poisson2d(12)
    L = loom.aslinearoperator(A)
    x = random_dense(A.shape[0])
    np.testing.assert_allclose(L @ x, A @ x)
    np.testing.assert_allclose(L.rmatvec(x), A.T @ x)
    # A Loom solver as SciPy's preconditioner: one application solves, so CG converges at once.
    s = loom.solver.Cg(A, rtol=1e-12)
    b = random_dense(A.shape[0])
    x, info = spla.gmres(A, b, M=s.aslinearoperator(), atol=0, restart=5, maxiter=3)
    assert info == 0



def test_message_of_the_cxx_result():
    # libloom writes it (an std::ostringstream: the path that crashed under Python once).
    assert loom._loom._libloom_message_probe() == (
        "converged after 3 iterations (relative residual 1.000e-09)")
    s = loom.solver.Cg(poisson2d(8), maxiter=2)
    s.solve(np.ones(64))
    assert s.result.message.startswith("iteration limit at iteration 2 (relative residual ")
