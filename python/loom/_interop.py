"""How Loom meets NumPy, SciPy, CuPy and PyTorch: which library an array comes from, the
executor that reaches its memory (the caller's current CUDA stream for device arrays), output
arrays of the caller's kind, and the three arrays of a CSR matrix in any of these libraries.

Nothing here copies unless the types or the layout force it:
  * index arrays of a type this build lacks (int64 indices in an int32-only build, or
    indptr and indices of different types) are converted to the first built index type;
  * a sparse matrix in another format (COO, CSC, ...) is converted to CSR;
  * arrays that are not contiguous are copied to contiguous ones.
With copy=False these raise ValueError instead; with copy=True everything is copied.
"""

import sys

import numpy as np

from . import _loom

# ------------------------------------------------------------------------------ kinds


def kind(obj):
    """'numpy', 'cupy', 'torch', or 'other' (anything with the buffer protocol or the CUDA
    array interface)."""
    if type(obj) is np.ndarray:
        return "numpy"
    module = type(obj).__module__.partition(".")[0]
    if module in ("cupy", "cupyx"):
        return "cupy"
    if module == "torch":
        return "torch"
    if isinstance(obj, np.ndarray):
        return "numpy"
    return "other"


def on_device(obj):
    """Whether an array lives in CUDA device memory."""
    return hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, np.ndarray)


_executors = {}


def _current_stream(obj, device):
    """The caller's current stream on `device` for the library `obj` comes from (0: the
    legacy default stream)."""
    k = kind(obj)
    if k == "cupy":
        import cupy

        with cupy.cuda.Device(device):
            return cupy.cuda.get_current_stream().ptr
    if k == "torch":
        import torch

        return torch.cuda.current_stream(device).cuda_stream
    return 0


def device_of(obj):
    if hasattr(obj, "__dlpack_device__"):
        return int(obj.__dlpack_device__()[1])
    device = getattr(obj, "device", None)
    for name in ("id", "index"):
        if getattr(device, name, None) is not None:
            return int(getattr(device, name))
    return 0


def cuda_exec_for(obj):
    """The executor on the device of `obj` queuing on the caller's current stream (one per
    device and stream, kept for the life of the process)."""
    device = device_of(obj)
    stream = _current_stream(obj, device)
    key = (device, stream)
    exec_ = _executors.get(key)
    if exec_ is None:
        exec_ = _loom._cuda_exec(device, stream, True)
        _executors[key] = exec_
    return exec_


def stream_for(obj, exec_=None):
    """The Python object of the caller's current stream that a matrix made from `obj` queues
    on (None for host data or a given executor). The matrix holds it: Loom frees its own
    memory in stream order, so a CuPy stream must not be destroyed before the matrix."""
    if exec_ is not None or not on_device(obj):
        return None
    k = kind(obj)
    if k == "cupy":
        import cupy

        with cupy.cuda.Device(device_of(obj)):
            return cupy.cuda.get_current_stream()
    if k == "torch":
        import torch

        return torch.cuda.current_stream(device_of(obj))
    return None


def exec_for(obj, exec_=None):
    """`exec_` when given; else the executor of the memory `obj` is in."""
    if exec_ is not None:
        return exec_
    if on_device(obj):
        return cuda_exec_for(obj)
    return None


# ------------------------------------------------------------------------------ outputs


def as_array(x, name):
    """x itself when it is an array; a list or tuple as a NumPy array; TypeError otherwise."""
    if hasattr(x, "shape"):
        return x
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    raise TypeError(f"{name} is a {type(x).__name__}, not an array (NumPy, CuPy, PyTorch or "
                    "anything with the buffer protocol or __cuda_array_interface__)")



def order_of(array):
    """"F" for a 2-D array stored column-major (Fortran order) and not row-major, else "C"."""
    if len(array.shape) != 2:
        return "C"
    if kind(array) == "torch":
        return "F" if array.shape[1] > 1 and array.stride(1) != 1 and array.stride(0) == 1 else "C"
    flags = getattr(array, "flags", None)
    if flags is None:
        flags = np.asarray(array).flags
    return "F" if flags.f_contiguous and not flags.c_contiguous else "C"


def empty_like(template, shape, dtype=None, order="C"):
    """An uninitialized array of the kind and device of `template`, in C or Fortran order."""
    k = kind(template)
    if k == "numpy" or k == "other" and not on_device(template):
        return np.empty(shape, dtype if dtype is not None else template.dtype, order=order)
    if k == "cupy":
        import cupy

        with cupy.cuda.Device(device_of(template)):
            return cupy.empty(shape, dtype if dtype is not None else template.dtype, order=order)
    if k == "torch":
        import torch

        if order == "F":  # the transpose of a C-ordered tensor
            return torch.empty(tuple(shape)[::-1], dtype=template.dtype, device=template.device).T
        return torch.empty(shape, dtype=template.dtype, device=template.device)
    raise TypeError(f"cannot make an output array like a {type(template).__name__}")


def zeros_like(template, shape=None):
    k = kind(template)
    shape = template.shape if shape is None else shape
    if k == "cupy":
        import cupy

        with cupy.cuda.Device(device_of(template)):
            return cupy.zeros(shape, template.dtype)
    if k == "torch":
        import torch

        return torch.zeros(shape, dtype=template.dtype, device=template.device)
    return np.zeros(shape, np.asarray(template).dtype)


def copy_of(array):
    """A C-ordered copy of the same kind."""
    k = kind(array)
    if k == "cupy":
        import cupy

        return cupy.array(array, order="C", copy=True)
    if k == "torch":
        return array.clone(memory_format=__import__("torch").contiguous_format)
    return np.array(array, order="C", copy=True)


def as_kind(array, template):
    """A Loom result (NumPy for host memory, loom._loom.Array for device memory) as an
    array of the kind of `template`, sharing its memory."""
    k = kind(template)
    if k == "torch":
        import torch

        if isinstance(array, np.ndarray):
            return torch.from_numpy(array)
        return torch.as_tensor(array, device=f"cuda:{array.__dlpack_device__()[1]}")
    if isinstance(array, np.ndarray):
        return array
    import cupy

    return cupy.asarray(array)


def device_array(array):
    """Loom memory as an array for Python: NumPy on the host, CuPy on a device (or the
    loom._loom.Array itself, readable through __cuda_array_interface__ and DLPack, without
    CuPy)."""
    if isinstance(array, np.ndarray):
        return array
    if "cupy" in sys.modules or _importable("cupy"):
        import cupy

        return cupy.asarray(array)
    return array


def _importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


# ------------------------------------------------------------------------------ sparse


def sparse_kind(A):
    """'scipy', 'cupy', 'torch' or None for a sparse matrix of one of these libraries."""
    module = type(A).__module__.partition(".")[0]
    if module == "scipy":
        return "scipy"
    if module == "cupyx":
        return "cupy"
    if module == "torch" and getattr(A, "layout", None) is not None and A.layout != __import__(
        "torch"
    ).strided:
        return "torch"
    return None


def _preferred_index():
    return np.dtype(_loom.index_types[0])


def _contiguous(array, name, copy):
    """`array` itself when 1-D and contiguous, else a contiguous copy (ValueError with
    copy=False)."""
    if kind(array) == "torch":
        if array.is_contiguous():
            return array
    elif getattr(array, "flags", None) is not None and array.flags.c_contiguous:
        return array
    if copy is False:
        raise ValueError(f"{name} is not contiguous and copy=False forbids copying it")
    return copy_of(array)


def _as_index(array, dtype, name, copy):
    if np.dtype(str(array.dtype).replace("torch.", "")) == dtype:
        return array
    if copy is False:
        raise ValueError(
            f"{name} has dtype {array.dtype} and would need a conversion to {dtype} "
            "(index types of this build: " + ", ".join(_loom.index_types) + "), which copy=False forbids"
        )
    if kind(array) == "torch":
        import torch

        return array.to(getattr(torch, dtype.name))
    return array.astype(dtype)


def _three_arrays(first, second, data, names, copy):
    """The two index arrays in one built index type and the three arrays contiguous, each
    converted or copied only where needed (always with copy=True, never with copy=False)."""
    if copy:
        first, second, data = copy_of(first), copy_of(second), copy_of(data)
    index_dtype = np.dtype(str(first.dtype).replace("torch.", ""))
    if index_dtype.name not in _loom.index_types or str(second.dtype) != str(first.dtype):
        index_dtype = _preferred_index()
    first = _contiguous(_as_index(first, index_dtype, names[0], copy), names[0], copy)
    second = _contiguous(_as_index(second, index_dtype, names[1], copy), names[1], copy)
    return first, second, _contiguous(data, "data", copy)


def _converted(A, needed, convert, why, copy):
    """convert() where needed (A where not); ValueError "<why>, which copy=False forbids" where
    copy=False forbids it."""
    if not needed:
        return A
    if copy is False:
        raise ValueError(f"{why}, which copy=False forbids")
    return convert()


def csr_arrays(A, shape, copy):
    """(rows, cols, indptr, indices, data) of a SciPy, CuPy or PyTorch sparse matrix, or of a
    SciPy-style tuple (data, indices, indptr) with `shape`; converted only where needed."""
    sk = sparse_kind(A)
    if sk == "scipy" or sk == "cupy":
        A = _converted(A, A.format != "csr", A.tocsr, f"a {A.format} matrix needs a conversion to CSR", copy)
        rows, cols = A.shape
        indptr, indices, data = A.indptr, A.indices, A.data
    elif sk == "torch":
        import torch

        A = _converted(A, A.layout != torch.sparse_csr, A.to_sparse_csr,
                       "a non-CSR torch tensor needs a conversion", copy)
        rows, cols = A.shape
        indptr, indices, data = A.crow_indices(), A.col_indices(), A.values()
    elif isinstance(A, tuple) and len(A) == 3:
        if shape is None:
            raise ValueError("a (data, indices, indptr) tuple needs shape=(rows, cols)")
        data, indices, indptr = A
        rows, cols = shape
    else:
        raise TypeError(
            f"cannot make a loom.Csr from a {type(A).__name__} (expected a SciPy, CuPy or "
            "PyTorch sparse matrix, a loom.Csr, or a (data, indices, indptr) tuple with shape)"
        )
    return (int(rows), int(cols)) + _three_arrays(indptr, indices, data, ("indptr", "indices"), copy)


def coo_arrays(A, shape, copy):
    """(rows, cols, row, col, data) of a SciPy/CuPy COO matrix, a torch sparse COO tensor or a
    tuple (data, (row, col)) with `shape`; converted only where needed (as csr_arrays)."""
    sk = sparse_kind(A)
    if sk == "scipy" or sk == "cupy":
        A = _converted(A, A.format != "coo", A.tocoo, f"a {A.format} matrix needs a conversion to COO", copy)
        rows, cols = A.shape
        row, col, data = A.row, A.col, A.data
    elif sk == "torch":
        A = _converted(A, not A.is_coalesced(), A.coalesce,
                       "an uncoalesced torch tensor needs coalescing", copy)
        rows, cols = A.shape
        indices = A.indices()
        row, col, data = indices[0], indices[1], A.values()
    elif isinstance(A, tuple) and len(A) == 2 and len(A[1]) == 2:
        if shape is None:
            raise ValueError("a (data, (row, col)) tuple needs shape=(rows, cols)")
        data, (row, col) = A
        rows, cols = shape
    else:
        raise TypeError(
            f"cannot make a loom.Coo from a {type(A).__name__} (expected a SciPy, CuPy or "
            "PyTorch COO matrix, a loom.Coo, or a (data, (row, col)) tuple with shape)"
        )
    return (int(rows), int(cols)) + _three_arrays(row, col, data, ("row", "col"), copy)


def sparse_like(template, csr):
    """A loom.Csr result as a sparse matrix of the library `template` comes from, sharing
    Loom's memory (a loom.Csr for anything else)."""
    sk = sparse_kind(template)
    if sk == "scipy":
        import scipy.sparse as sp

        # SciPy's sparse arrays (csr_array, ...) give csr_array, its matrices csr_matrix.
        is_array = getattr(template, "_is_array", False) or isinstance(template, getattr(sp, "sparray", ()))
        kind_ = sp.csr_array if is_array else sp.csr_matrix
        return kind_((csr.data, csr.indices, csr.indptr), shape=csr.shape, copy=False)
    if sk == "cupy":
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix((csr.data, csr.indices, csr.indptr), shape=csr.shape, copy=False)
    if sk == "torch":
        import torch

        parts = [as_kind(csr._core._array(a), template) for a in ("first", "second", "data")]
        return torch.sparse_csr_tensor(*parts, size=csr.shape)
    return csr
