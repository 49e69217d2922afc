"""Loom from Python: sparse kernels and iterative solvers on NumPy/SciPy data (CPU) and
CuPy/PyTorch data (GPU), without copies.

    import loom, scipy.sparse as sp, numpy as np
    A = sp.random(1000, 1000, density=0.01, format="csr") + 10 * sp.eye(1000, format="csr")
    y = loom.spmv(A, np.ones(1000))                   # NumPy in, NumPy out
    H = loom.spmm(A, np.ones((1000, 16)))             # SpMM (also sddmm, fusedmm)
    C = loom.spgemm(A, A)                             # SciPy in, SciPy out
    x, info = loom.solve(A, y, solver="bicgstab", precond="jacobi", rtol=1e-10)
    s = loom.solver.Cg(A, precond="jacobi", rtol=1e-8)
    x = s.solve(y); print(s.result.iterations, s.result.residual_history[-1])

Matrices: loom.Csr views the arrays of a scipy.sparse CSR matrix, a cupyx.scipy.sparse
csr_matrix, a torch sparse CSR tensor or raw (data, indices, indptr) arrays; every function
also takes those directly. loom.Coo views COO arrays; loom.Ell and loom.Sellp are padded
formats converted from CSR. Dense operands: anything with the buffer protocol or
__cuda_array_interface__ (NumPy, CuPy, PyTorch), read and written in place; results come back
as arrays of the caller's kind; memory Loom allocates also leaves through DLPack
(np.from_dlpack / torch.from_dlpack of a result, or of a NumPy result's base) without a copy.
GPU work runs on the caller's current CuPy/PyTorch stream.
Errors: loom.Error and its subclasses (loom.BadInput, loom.DimensionMismatch, ...).
"""

import json as _json

import numpy as _np

from . import _interop, _loom
from ._loom import (
    AllocationError,
    BadInput,
    CudaError,
    DimensionMismatch,
    Error,
    Executor,
    IoError,
    NotCompiled,
    NotSupported,
    NumericalError,
    OutOfRange,
    cuda_device_count,
    has_cuda,
    has_openmp,
    index_types,
    value_types,
)

__version__ = _loom.version

__all__ = [
    "Csr", "Coo", "Ell", "Sellp", "LinearOperator", "aslinearoperator", "exec", "default_exec", "spmv", "spmm", "sddmm",
    "fusedmm", "spgemm", "spadd", "transpose", "solve", "solver", "batched", "io", "Error", "BadInput",
    "DimensionMismatch", "OutOfRange", "NotCompiled", "NotSupported", "NumericalError",
    "CudaError", "AllocationError", "IoError", "value_types", "index_types",
]

# ------------------------------------------------------------------------------ executors


def exec(kind="omp", *, threads=0, device=0, stream=None):  # noqa: A001 - loom.exec is the API
    """An executor: exec("reference"), exec("omp", threads=4), exec("cuda", device=0) (a
    stream of its own), exec("cuda", device=0, stream=s) with s a CuPy/PyTorch stream or a
    cudaStream_t as an int (Loom then queues its work on it), or "cuda:1"."""
    name, _, number = kind.partition(":")
    name = _loom._exec_kind(name)  # any spelling of the library's executor names
    if number:
        device = int(number)
    if name == "reference":
        return _loom._reference_exec()
    if name == "omp":
        return _loom._omp_exec(threads)
    if name == "cuda":
        if stream is None:
            return _loom._cuda_exec(device, 0, False)
        pointer = getattr(stream, "ptr", None)
        if pointer is None:
            pointer = getattr(stream, "cuda_stream", stream)
        return _loom._cuda_exec(device, int(pointer), True)
    raise BadInput(
        f"loom.exec: unknown executor '{kind}' (expected one of "
        + ", ".join(_loom.executor_names())
        + ", cuda:N)"
    )


def default_exec():
    """The host executor used for NumPy/SciPy data: OpenMP when built, else reference."""
    return _loom._default_host_exec()


# ------------------------------------------------------------------------------ matrices


def _array_of(which):
    """A property: the core's array `which` ("first", "second", "data") viewed as NumPy/CuPy."""
    return property(lambda self: _interop.device_array(self._core._array(which)))


class _Sparse:
    """What the sparse matrices share: a core object of the module and what it reports."""

    __slots__ = ("_core",)

    shape = property(lambda self: self._core.shape)
    nnz = property(lambda self: self._core.nnz)
    dtype = property(lambda self: self._core.dtype)
    index_dtype = property(lambda self: self._core.index_dtype)
    exec = property(lambda self: self._core.exec)
    ndim = 2

    def __repr__(self):
        return (
            f"<loom.{type(self).__name__} {self.shape[0]}x{self.shape[1]}, {self.nnz} entries, "
            f"{self.dtype}/{self.index_dtype} on {self.exec.name}>"
        )


class Csr(_Sparse):
    """A CSR matrix. Built from a SciPy/CuPy/PyTorch sparse matrix, a loom.Csr, or a tuple
    (data, indices, indptr) with shape=(rows, cols), it views their arrays without a copy
    (see loom._interop for when a copy is forced) and keeps them alive. With `exec` on other
    memory (exec=loom.exec("cuda") for a SciPy matrix) the arrays are copied there.
    copy=None copies only where forced, copy=False never (ValueError), copy=True always.
    Its indptr, indices and data share Loom's memory (NumPy on the host, CuPy on a device)."""

    __slots__ = ()

    def __init__(self, A, *, shape=None, exec=None, copy=None):  # noqa: A002
        if isinstance(A, (Coo, _Padded)):
            if copy is False:
                raise ValueError(f"a loom.{type(A).__name__} needs a conversion to CSR, "
                                 "which copy=False forbids")
            A = A.to_csr()
        if isinstance(A, Csr):
            if exec is not None or copy:
                self._core = A._core._to(exec if exec is not None else A.exec)
            else:
                self._core = A._core
            return
        rows, cols, indptr, indices, data = _interop.csr_arrays(A, shape, copy)
        self._core = _loom._Csr._from_arrays(
            rows, cols, indptr, indices, data, _interop.exec_for(data, exec),
            _interop.stream_for(data, exec)
        )

    @classmethod
    def _wrap(cls, core):
        matrix = cls.__new__(cls)
        matrix._core = core
        return matrix

    indptr = _array_of("first")
    indices = _array_of("second")
    data = _array_of("data")

    def to(self, exec):  # noqa: A002
        """A deep copy on another executor."""
        return Csr._wrap(self._core._to(exec))

    def to_scipy(self):
        """A scipy.sparse.csr_array sharing this matrix's memory (host matrices only)."""
        import scipy.sparse as sp

        if not self.exec.is_host:
            raise BadInput("loom.Csr.to_scipy: the matrix is on " + self.exec.name)
        return sp.csr_array((self.data, self.indices, self.indptr), shape=self.shape, copy=False)

    def transpose(self):
        return transpose(self)

    T = property(transpose)

    def __matmul__(self, other):
        if isinstance(other, Csr) or _interop.sparse_kind(other) is not None:
            return spgemm(self, other)
        return spmv(self, other)

    def __add__(self, other):
        return spadd(self, other)

    def __sub__(self, other):
        return spadd(self, other, beta=-1)



class Coo(_Sparse):
    """A COO matrix viewing the row, col and data arrays of a SciPy/CuPy COO matrix, a torch
    sparse COO tensor (coalesced) or a tuple (data, (row, col)) with shape=(rows, cols), as
    loom.Csr does (same exec and copy rules). SpMV takes it; tocsr() converts."""

    __slots__ = ()

    def __init__(self, A, *, shape=None, exec=None, copy=None):  # noqa: A002
        if isinstance(A, Coo):
            self._core = A._core._to(exec if exec is not None else A.exec) if exec is not None or copy else A._core
            return
        rows, cols, row, col, data = _interop.coo_arrays(A, shape, copy)
        self._core = _loom._Coo._from_arrays(rows, cols, row, col, data, _interop.exec_for(data, exec),
                                             _interop.stream_for(data, exec))

    row = _array_of("first")
    col = _array_of("second")
    data = _array_of("data")

    def to_csr(self):
        """The same entries in a loom.Csr (rows sorted, duplicates kept)."""
        return Csr._wrap(_loom._to_csr(self._core))

    tocsr = to_csr

    def to_scipy(self):
        """A scipy.sparse.coo_array sharing this matrix's memory (host matrices only)."""
        import scipy.sparse as sp

        if not self.exec.is_host:
            raise BadInput("loom.Coo.to_scipy: the matrix is on " + self.exec.name)
        return sp.coo_array((self.data, (self.row, self.col)), shape=self.shape, copy=False)

    def __matmul__(self, x):
        return spmv(self, x)


class _Padded(_Sparse):
    """What loom.Ell and loom.Sellp share: made from a loom.Csr or anything loom.Csr takes
    (a conversion, so a copy: rows padded to equal slot counts), back by to_csr(), SpMV
    through them (loom.spmv, @)."""

    __slots__ = ("_nnz",)

    def _convert(self, A, exec, to_padded):  # noqa: A002
        csr = _as_csr(A, exec)
        self._core = to_padded(csr._core)
        self._nnz = csr.nnz

    nnz = property(lambda self: self._nnz, doc="stored entries (padding slots not counted)")
    slots = property(lambda self: self._core.slots, doc="stored slots, padding included")

    def to_csr(self):
        """The same entries in a loom.Csr (padding dropped)."""
        return Csr._wrap(_loom._to_csr(self._core))

    tocsr = to_csr

    def to_scipy(self):
        """A scipy.sparse.csr_array of the same entries (host matrices only)."""
        return self.to_csr().to_scipy()

    def __matmul__(self, x):
        return spmv(self, x)

    def __repr__(self):
        return (
            f"<loom.{type(self).__name__} {self.shape[0]}x{self.shape[1]}, {self.nnz} entries in "
            f"{self.slots} slots, {self.dtype}/{self.index_dtype} on {self.exec.name}>"
        )


class Ell(_Padded):
    """ELLPACK: every row holds `width` slots (the longest row's length), column-major, so
    that a GPU reads consecutive rows together. Ell(A, exec=None) converts A (a loom.Csr or
    anything loom.Csr takes) on A's executor, or on `exec`."""

    __slots__ = ()

    def __init__(self, A, *, exec=None):  # noqa: A002
        self._convert(A, exec, _loom._to_ell)

    width = property(lambda self: self._core.width)
    stride = property(lambda self: self._core.stride)


class Sellp(_Padded):
    """Sliced ELLPACK (SELL-P): slices of `slice_size` rows, each as wide as its longest row
    rounded up to a multiple of `stride_factor`. Sellp(A, slice_size=32, stride_factor=1,
    exec=None) converts A (a loom.Csr or anything loom.Csr takes)."""

    __slots__ = ()

    def __init__(self, A, *, slice_size=32, stride_factor=1, exec=None):  # noqa: A002
        self._convert(A, exec, lambda core: _loom._to_sellp(core, slice_size, stride_factor))

    slice_size = property(lambda self: self._core.slice_size)
    stride_factor = property(lambda self: self._core.stride_factor)


def _as_csr(A, exec=None):  # noqa: A002
    if type(A) is Csr and exec is None:
        return A
    if type(A) in (Coo, Ell, Sellp) and exec is None:
        return A.to_csr()
    return Csr(A, exec=exec)


def _result_like(template, core):
    return _interop.sparse_like(template, Csr._wrap(core))


# ------------------------------------------------------------------------------ kernels

_formats = (Csr, Coo, Ell, Sellp)


def spmv(A, x, *, alpha=1, beta=0, y=None, mode="n"):
    """y = alpha * op(A) @ x + beta * y; op by mode: "n" (A), "t" (A^T), "c" (conj(A)),
    "h" (A^H). x is (n,) or (n, k), of A's dtype; y (given, written in place) or a new array
    of x's kind. A is a loom.Csr, Coo, Ell or Sellp (fastest: nothing to set up) or any sparse matrix
    Csr takes."""
    if not hasattr(x, "shape"):
        x = _interop.as_array(x, "x")
    core = A._core if type(A) in _formats else _as_csr(A, _interop.exec_for(x))._core
    if y is None:
        if beta != 0:
            raise ValueError("beta needs y")
        rows = core.shape[1] if _loom._mode_transposes(mode) else core.shape[0]
        y = _interop.empty_like(x, (rows,) + tuple(x.shape[1:]))
    _loom._spmv(core, x, y, alpha, beta, mode)
    return y


def spgemm(A, B):
    """A @ B of two sparse matrices of one type, as a sparse matrix of A's kind."""
    core = _loom._spgemm(_as_csr(A)._core, _as_csr(B)._core)
    return _result_like(A, core)


def spadd(A, B, *, alpha=1, beta=1):
    """alpha * A + beta * B (same shape and type), as a sparse matrix of A's kind."""
    core = _loom._spadd(alpha, _as_csr(A)._core, beta, _as_csr(B)._core)
    return _result_like(A, core)


def transpose(A, *, conjugate=False):
    """A^T (A^H with conjugate=True), rows sorted, as a sparse matrix of A's kind."""
    return _result_like(A, _loom._transpose(_as_csr(A)._core, conjugate))


def spmm(A, B, *, alpha=1, beta=0, C=None, mode="n", algorithm="automatic"):
    """C = alpha * op(A) @ B + beta * C for a dense B (op as in spmv). B is (n, k), row-major
    (C order) or column-major (Fortran order), read as it is; C (given, written in place,
    either order) or a new array of B's kind and order. algorithm: "automatic", "row_split",
    "nnz_balanced" or "vendor" (cuSPARSE). A is a loom.Csr or any sparse matrix Csr takes."""
    B = _interop.as_array(B, "B")
    core = _as_csr(A, _interop.exec_for(B))._core
    if C is None:
        if beta != 0:
            raise ValueError("beta needs C")
        rows = core.shape[1] if _loom._mode_transposes(mode) else core.shape[0]
        C = _interop.empty_like(B, (rows,) + tuple(B.shape[1:]), order=_interop.order_of(B))
    _loom._spmm(core, B, C, alpha, beta, mode, algorithm)
    return C


def sddmm(A, X, Y, *, alpha=1, beta=0, inplace=False, algorithm="automatic"):
    """The sampled product S = alpha * (X @ Y.T) o pattern(A) + beta * A: only A's stored
    entries are computed, s_ij = alpha * x_i . y_j + beta * a_ij. X is (rows, k) and Y
    (cols, k), each row-major or column-major as given. Returns a new sparse matrix of A's
    kind (A's structure, new values); with inplace=True A (a loom.Csr) is updated and
    returned, and so the arrays it views (a SciPy matrix's data, ...)."""
    X = _interop.as_array(X, "X")
    Y = _interop.as_array(Y, "Y")
    if inplace:
        if type(A) is not Csr:
            raise TypeError("sddmm(inplace=True) updates a loom.Csr; got a " + type(A).__name__)
        _loom._sddmm(alpha, X, Y, beta, A._core, algorithm)
        return A
    S = _as_csr(A, _interop.exec_for(X))
    S = S.to(S.exec)
    _loom._sddmm(alpha, X, Y, beta, S._core, algorithm)
    return _interop.sparse_like(A, S)


def fusedmm(A, X, Y, W, *, edge="identity", Z=None):
    """FusedMM, an SDDMM whose values feed an SpMM at once, never stored:
    z_i = sum over stored (i, j) of A of edge(x_i . y_j, a_ij) * w_j, edge "identity"
    (x_i . y_j), "scale" (a_ij * x_i . y_j) or "sigmoid" (1 / (1 + exp(-x_i . y_j))).
    X is (rows, k), Y (cols, k), W (cols, kw), all row-major; Z (given, written in place)
    or a new (rows, kw) array of W's kind. Real value types only."""
    X, Y, W = (_interop.as_array(v, n) for v, n in ((X, "X"), (Y, "Y"), (W, "W")))
    core = _as_csr(A, _interop.exec_for(W))._core
    if Z is None:
        Z = _interop.empty_like(W, (core.shape[0],) + tuple(W.shape[1:]))
    _loom._fusedmm(edge, core, X, Y, W, Z)
    return Z


# ------------------------------------------------------------------------------ operators


class LinearOperator:
    """A Python callable y = matvec(x) as a Loom operator, so that Loom's solvers run on it:
    x arrives as (n,) or (n, k) array (a view valid during the call only) and the callable
    returns an array of the same kind. loom.LinearOperator(scipy_linear_operator) wraps a
    SciPy LinearOperator (its matmat)."""

    __slots__ = ("_core", "shape", "dtype", "_matvec")

    def __init__(self, shape=None, matvec=None, *, dtype=None, exec=None):  # noqa: A002
        if matvec is None and hasattr(shape, "matmat"):  # a SciPy LinearOperator
            operator = shape
            shape, dtype = operator.shape, operator.dtype
            matvec = _scipy_apply(operator)
        self.shape = tuple(int(n) for n in shape)
        self.dtype = _np.dtype(dtype if dtype is not None else _np.float64)
        self._matvec = matvec
        if exec is not None and not exec.is_host:
            # Loom hands device memory over as a loom._loom.Array: the callable gets CuPy arrays.
            device_matvec = matvec
            matvec = lambda x: device_matvec(_interop.device_array(x))  # noqa: E731
        self._core = _loom._Operator(self.shape[0], self.shape[1], self.dtype, matvec, exec)

    def matvec(self, x):
        return self._matvec(x)


def _scipy_apply(operator):
    def apply(x):
        return operator.matvec(x) if x.ndim == 1 else operator.matmat(x)

    return apply


def aslinearoperator(A):
    """A loom.Csr (or a solver: its solve) as a scipy.sparse.linalg.LinearOperator whose
    products run in Loom."""
    from scipy.sparse.linalg import LinearOperator as ScipyOperator

    if isinstance(A, solver.Solver):
        return ScipyOperator(A.shape, matvec=A.solve, matmat=A.solve, dtype=A.dtype)
    A = _as_csr(A)
    return ScipyOperator(
        A.shape,
        matvec=lambda x: spmv(A, x),
        rmatvec=lambda x: spmv(A, x, mode="h"),
        matmat=lambda x: spmv(A, x),
        rmatmat=lambda x: spmv(A, x, mode="h"),
        dtype=A.dtype,
    )


def _system(A, exec=None):  # noqa: A002
    """A system matrix for a solver: a loom.Csr or a loom.LinearOperator."""
    if isinstance(A, (Csr, LinearOperator)) and exec is None:
        return A
    if hasattr(A, "matmat") and not hasattr(A, "indptr"):
        return LinearOperator(A, exec=exec)
    if callable(A):
        raise TypeError("wrap a callable in loom.LinearOperator(shape, matvec, dtype=...)")
    return _as_csr(A, exec)


# ------------------------------------------------------------------------------ solvers

from . import batched, io, solver  # noqa: E402  (they use the names above)
from .solver import SolveResult, solve  # noqa: E402,F401
