// What every part of the module shares: the value and index types this build of Loom has, the
// description of a Python array (NumPy, anything with the buffer protocol or
// __array_interface__ on the host; __cuda_array_interface__ on a device) and Loom views of it
// that keep the Python owner alive, and the export of Loom memory back to Python.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/config.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::python {

namespace py = pybind11;

// ------------------------------------------------------------------------------- types

template <typename V>
constexpr bool is_built_value()
{
    if constexpr (std::is_same_v<V, float>) return LOOM_HAS_FLOAT;
    if constexpr (std::is_same_v<V, double>) return LOOM_HAS_DOUBLE;
    if constexpr (std::is_same_v<V, std::complex<float>>) return LOOM_HAS_COMPLEX_FLOAT_;
    if constexpr (std::is_same_v<V, std::complex<double>>) return LOOM_HAS_COMPLEX_DOUBLE_;
    return false;
}

template <typename I>
constexpr bool is_built_index()
{
    if constexpr (std::is_same_v<I, int32>) return LOOM_HAS_INT32;
    if constexpr (std::is_same_v<I, int64>) return LOOM_HAS_INT64;
    return false;
}

/// A scalar type as NumPy and the array interfaces spell it: kind ('f', 'c', 'i', 'u', ...)
/// and size in bytes.
struct ScalarType {
    char kind = 0;
    int size = 0;
    bool operator==(const ScalarType&) const = default;
};

template <typename T>
constexpr ScalarType scalar_type_of()
{
    if constexpr (is_complex_v<T>) return {'c', int(sizeof(T))};
    else if constexpr (std::is_floating_point_v<T>) return {'f', int(sizeof(T))};
    else return {'i', int(sizeof(T))};
}

/// The scalar type of a NumPy dtype.
inline ScalarType type_of(const py::dtype& dtype) { return {dtype.kind(), int(dtype.itemsize())}; }

/// "float64", "complex128", "int32" (NumPy's names).
std::string numpy_name(ScalarType type);

/// The value types and index types of this build, by their NumPy names.
std::vector<std::string> built_value_types();
std::vector<std::string> built_index_types();

/// TypeError naming the built types.
[[noreturn]] void throw_unsupported_value(ScalarType type, const std::string& what);
[[noreturn]] void throw_unsupported_index(ScalarType type, const std::string& what);

/// Calls f(std::type_identity<V>{}) with the built value type V that `type` names.
template <typename F>
decltype(auto) with_value_type(ScalarType type, const std::string& what, F&& f)
{
    if constexpr (LOOM_HAS_FLOAT) {
        if (type == scalar_type_of<float>()) return f(std::type_identity<float>{});
    }
    if constexpr (LOOM_HAS_DOUBLE) {
        if (type == scalar_type_of<double>()) return f(std::type_identity<double>{});
    }
    if constexpr (LOOM_HAS_COMPLEX_FLOAT_) {
        if (type == scalar_type_of<std::complex<float>>()) {
            return f(std::type_identity<std::complex<float>>{});
        }
    }
    if constexpr (LOOM_HAS_COMPLEX_DOUBLE_) {
        if (type == scalar_type_of<std::complex<double>>()) {
            return f(std::type_identity<std::complex<double>>{});
        }
    }
    throw_unsupported_value(type, what);
}

/// Calls f(std::type_identity<I>{}) with the built index type I that `type` names.
template <typename F>
decltype(auto) with_index_type(ScalarType type, const std::string& what, F&& f)
{
    if constexpr (LOOM_HAS_INT32) {
        if (type == scalar_type_of<int32>()) return f(std::type_identity<int32>{});
    }
    if constexpr (LOOM_HAS_INT64) {
        if (type == scalar_type_of<int64>()) return f(std::type_identity<int64>{});
    }
    throw_unsupported_index(type, what);
}

/// The index type of operators that have none of their own (a Python callable as a LinOp).
using default_index = std::conditional_t<LOOM_HAS_INT32, int32, int64>;

/// A complex number as V; TypeError for a non-zero imaginary part with real V. Needs no GIL.
template <typename V>
V value_from(std::complex<double> z, const char* what)
{
    if constexpr (is_complex_v<V>) {
        return V(z);
    } else {
        if (z.imag() != 0) {
            throw py::type_error(std::string(what) + " is complex but the values are real");
        }
        return V(z.real());
    }
}

/// A Python scalar (int, float, complex) as V.
template <typename V>
V scalar_as(const py::handle& value, const char* what)
{
    return value_from<V>(py::cast<std::complex<double>>(value), what);
}

// ------------------------------------------------------------------------------- buffers

/// Where an array's memory is and how its elements are laid out.
struct Buffer {
    void* data = nullptr;
    bool readonly = false;
    ScalarType type;
    std::vector<int64> shape;
    std::vector<int64> strides;  ///< in bytes
    int device = -1;             ///< -1: host memory; else the CUDA device
    py::object owner;            ///< what keeps the memory alive

    bool on_host() const noexcept { return device < 0; }
    int64 size() const noexcept
    {
        int64 n = 1;
        for (auto s : shape) n *= s;
        return n;
    }
};

/// Describes `object` without copying: a NumPy array (or anything np.asarray views: the buffer
/// protocol, __array_interface__, a CPU torch tensor), or an object with
/// __cuda_array_interface__ (CuPy, a CUDA torch tensor, Numba). TypeError for anything else.
Buffer describe(const py::handle& object, const char* what);

/// A shared_ptr that holds `object` and releases it with the GIL held: the keep-alive of a
/// Loom view of memory that Python owns.
std::shared_ptr<const void> hold(py::object object);

/// The executor that sees buf's memory: `exec` when given and in the same memory (host or that
/// device), else the default host executor for host memory; BadInput otherwise.
std::shared_ptr<const Executor> executor_for(const Buffer& buf,
                                             const std::shared_ptr<const Executor>& exec,
                                             const char* what);

/// exec, holding `stream` (the Python object of the caller's stream it queues on; None:
/// exec itself) as long as any Loom object made with the result lives: Loom frees its own
/// memory in stream order, so the stream must outlive every Loom object that allocated on it.
std::shared_ptr<const Executor> holding_stream(std::shared_ptr<const Executor> exec,
                                               py::object stream);

/// Whether work queued on exec may outlive a call without being ordered with the caller's
/// own work: a CUDA executor with a stream of its own (not the caller's current stream).
bool runs_on_own_stream(const Executor& exec) noexcept;

/// A 1-D array (n) as an n x 1 Dense, a 2-D one (n, k) as n x k, viewed without a copy when
/// its rows are evenly spaced and its columns contiguous; otherwise ValueError saying why.
/// TypeError when its dtype is not V. For the operands of one call: the caller's reference
/// keeps the array alive meanwhile, and work on the caller's stream stays ordered with the
/// caller's use of the memory after it. Only on an executor with its own stream does the
/// view hold the Python owner, and releasing it waits for that stream.
template <typename V>
matrix::Dense<V> dense_view(const Buffer& buf, std::shared_ptr<const Executor> exec,
                            const char* what, bool writable)
{
    if (buf.type != scalar_type_of<V>()) {
        throw py::type_error(std::string(what) + " has dtype " + numpy_name(buf.type) +
                             ", expected " + numpy_name(scalar_type_of<V>()) +
                             " (the operator's value type)");
    }
    if (writable && buf.readonly) {
        throw py::value_error(std::string(what) + " is read-only");
    }
    const auto item = int64(sizeof(V));
    int64 rows = 0, cols = 1, row_stride = 0, col_stride = item;
    if (buf.shape.size() == 1) {
        rows = buf.shape[0];
        row_stride = buf.strides[0];
    } else if (buf.shape.size() == 2) {
        rows = buf.shape[0];
        cols = buf.shape[1];
        row_stride = buf.strides[0];
        col_stride = buf.strides[1];
    } else {
        throw py::value_error(std::string(what) + " must be 1-D or 2-D, got " +
                              std::to_string(buf.shape.size()) + " dimensions");
    }
    // Strides of extents 0 and 1 are never followed: any value will do (NumPy gives empty
    // arrays zero strides).
    if (cols <= 1 || rows == 0) col_stride = item;
    if (rows <= 1 || cols == 0) row_stride = cols * item;
    if (col_stride != item || row_stride % item != 0 || row_stride < cols * item) {
        throw py::value_error(std::string(what) +
                              " is not contiguous along its columns with evenly spaced rows "
                              "(pass np.ascontiguousarray(...) or a C-ordered copy)");
    }
    auto keep_alive = runs_on_own_stream(*exec) ? hold(buf.owner) : nullptr;
    return matrix::Dense<V>::view(std::move(exec), {rows, cols}, row_stride / item,
                                  static_cast<V*>(buf.data), std::move(keep_alive));
}

/// The operand `object` of a call on exec as a Dense view (describe, executor_for, dense_view).
template <typename V>
matrix::Dense<V> dense_operand(const py::handle& object,
                               const std::shared_ptr<const Executor>& exec, const char* what,
                               bool writable)
{
    const auto buf = describe(object, what);
    return dense_view<V>(buf, executor_for(buf, exec, what), what, writable);
}

// ------------------------------------------------------------------------------- export

/// A view of the array at `data` (C order, or the given strides in bytes) for Python, holding
/// `owner` while it lives: a NumPy array for host memory (its base a loom._loom.Array), or a
/// loom._loom.Array for device memory (__cuda_array_interface__ and DLPack, for cupy.asarray,
/// torch.as_tensor, torch.from_dlpack). Both give the memory to DLPack consumers.
py::object export_buffer(std::shared_ptr<const void> owner, void* data, ScalarType type,
                         std::vector<int64> shape, const Executor& exec,
                         std::vector<int64> strides = {});

template <typename T>
py::object export_array(std::shared_ptr<const void> owner, const Array<T>& array)
{
    return export_buffer(std::move(owner), const_cast<T*>(array.data()), scalar_type_of<T>(),
                         {array.size()}, *array.executor());
}

/// The process-wide host executor of the module (OpenMP when built, else reference).
std::shared_ptr<const Executor> default_host_executor();

// ------------------------------------------------------------------------------- binding

void bind_exported_array(py::module_& m);
void bind_errors(py::module_& m);
void bind_executors(py::module_& m);
void bind_sparse(py::module_& m);
void bind_sparse_dense(py::module_& m);
void bind_solvers(py::module_& m);
void bind_batched(py::module_& m);
void bind_io(py::module_& m);

}  // namespace loom::python
