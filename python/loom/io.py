"""Matrix Market files (and Loom's binary CSR format, *.bin) in and out.

    A = loom.io.mmread("bcsstk01.mtx")          # a scipy.sparse.csr_array sharing Loom's memory
    A = loom.io.read_csr("bcsstk01.mtx")        # a loom.Csr (exec=loom.exec("cuda") for the GPU)
    loom.io.mmwrite("out.mtx", A, symmetry="symmetric")
"""

import numpy as np

from . import _interop, _loom

_io = _loom._io


def read_header(path):
    """The banner and size line: {"format", "field", "symmetry", "shape", "entries"}."""
    return _io.read_header(str(path))


def _default_dtype(header):
    complex_ = header["field"] == "complex"
    for name in (("complex128", "complex64") if complex_ else ("float64", "float32")):
        if name in _loom.value_types:
            return np.dtype(name)
    raise TypeError(f"this build of Loom has no {'complex' if complex_ else 'real'} value type")


def read_csr(path, dtype=None, index_dtype=None, *, exec=None):  # noqa: A002
    """A loom.Csr (columns sorted in every row; symmetric files expanded). dtype defaults to
    float64 (complex128 for complex files), index_dtype to the first built index type."""
    from . import Csr

    path = str(path)
    if dtype is None:
        dtype = _default_dtype(read_header(path)) if not path.endswith(".bin") else np.float64
    index_dtype = np.dtype(index_dtype if index_dtype is not None else _loom.index_types[0])
    return Csr._wrap(_io.read_csr(path, np.dtype(dtype), index_dtype, exec))


def read_dense(path, dtype=None):
    """A NumPy array (rows, cols) from an array (or coordinate) file."""
    path = str(path)
    return _io.read_dense(path, np.dtype(dtype) if dtype is not None else _default_dtype(read_header(path)))


def mmread(path, dtype=None):
    """Like scipy.io.mmread, but a coordinate file gives a scipy.sparse.csr_array (sharing
    Loom's memory) and an array file a NumPy array."""
    path = str(path)
    if read_header(path)["format"] == "array":
        return read_dense(path, dtype)
    return read_csr(path, dtype).to_scipy()


def mmwrite(path, A, symmetry="general"):
    """Writes a sparse matrix (loom.Csr, SciPy, ...; a .bin path: the binary format) or a
    2-D array. With a symmetry other than general the matrix must have it; only its lower
    triangle is written."""
    from . import Csr, _as_csr

    path = str(path)
    if isinstance(A, Csr) or _interop.sparse_kind(A) is not None:
        _io.write_csr(path, _as_csr(A)._core, symmetry)
    else:
        _io.write_dense(path, A, symmetry)
