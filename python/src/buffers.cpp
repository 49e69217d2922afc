// Python arrays in: the array interfaces read without copies, and the host and device
// executors that reach their memory.
#include "common.hpp"

namespace loom::python {

std::string numpy_name(ScalarType type)
{
    switch (type.kind) {
    case 'f': return "float" + std::to_string(8 * type.size);
    case 'c': return "complex" + std::to_string(8 * type.size);
    case 'i': return "int" + std::to_string(8 * type.size);
    case 'u': return "uint" + std::to_string(8 * type.size);
    case 'b': return "bool";
    default: return std::string("'") + type.kind + std::to_string(type.size) + "'";
    }
}

namespace {

template <typename... T>
std::vector<std::string> names_of_built(bool (&&built)[sizeof...(T)])
{
    std::vector<std::string> names;
    std::size_t i = 0;
    ((built[i++] ? names.push_back(numpy_name(scalar_type_of<T>())) : void()), ...);
    return names;
}

std::string joined(const std::vector<std::string>& names)
{
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

}  // namespace

std::vector<std::string> built_value_types()
{
    return names_of_built<float, double, std::complex<float>, std::complex<double>>(
        {LOOM_HAS_FLOAT, LOOM_HAS_DOUBLE, LOOM_HAS_COMPLEX_FLOAT_, LOOM_HAS_COMPLEX_DOUBLE_});
}

std::vector<std::string> built_index_types()
{
    return names_of_built<int32, int64>({LOOM_HAS_INT32, LOOM_HAS_INT64});
}

void throw_unsupported_value(ScalarType type, const std::string& what)
{
    throw py::type_error(what + " has dtype " + numpy_name(type) +
                         ", which this build of Loom does not provide (value types: " +
                         joined(built_value_types()) + ")");
}

void throw_unsupported_index(ScalarType type, const std::string& what)
{
    throw py::type_error(what + " has dtype " + numpy_name(type) +
                         ", which this build of Loom does not provide (index types: " +
                         joined(built_index_types()) + ")");
}

namespace {

/// "<f8" / "|i4" of the array interfaces (native byte order only).
ScalarType parse_typestr(const std::string& typestr, const char* what)
{
    const bool little = [] {
        const std::uint16_t one = 1;
        return *reinterpret_cast<const std::uint8_t*>(&one) == 1;
    }();
    if (typestr.size() < 3 || (typestr[0] == (little ? '>' : '<'))) {
        throw py::type_error(std::string(what) + " has typestr '" + typestr +
                             "' (not a native-byte-order number)");
    }
    return {typestr[1], std::stoi(typestr.substr(2))};
}

Buffer describe_numpy(const py::array& array)
{
    Buffer buf;
    buf.data = const_cast<void*>(array.data());
    buf.readonly = !array.writeable();
    buf.type = type_of(array.dtype());
    buf.shape.assign(array.shape(), array.shape() + array.ndim());
    buf.strides.assign(array.strides(), array.strides() + array.ndim());
    buf.owner = py::reinterpret_borrow<py::object>(array);
    return buf;
}

/// The CUDA device of an object with __cuda_array_interface__: __dlpack_device__() (CuPy,
/// torch), else its .device.id (CuPy) or .device.index (torch), else 0.
int cuda_device_of(const py::handle& object)
{
    if (py::hasattr(object, "__dlpack_device__")) {
        const auto device = object.attr("__dlpack_device__")().cast<py::tuple>();
        return device[1].cast<int>();
    }
    if (py::hasattr(object, "device")) {
        const auto device = object.attr("device");
        for (const char* name : {"id", "index"}) {
            if (py::hasattr(device, name) && !device.attr(name).is_none()) {
                return device.attr(name).cast<int>();
            }
        }
    }
    return 0;
}

Buffer describe_cuda(const py::handle& object, const char* what)
{
    const auto cai = object.attr("__cuda_array_interface__").cast<py::dict>();
    Buffer buf;
    const auto data = cai["data"].cast<py::tuple>();
    buf.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
    buf.readonly = data[1].cast<bool>();
    buf.type = parse_typestr(cai["typestr"].cast<std::string>(), what);
    for (const auto extent : cai["shape"].cast<py::tuple>()) buf.shape.push_back(extent.cast<int64>());
    if (cai.contains("strides") && !cai["strides"].is_none()) {
        for (const auto stride : cai["strides"].cast<py::tuple>()) {
            buf.strides.push_back(stride.cast<int64>());
        }
    } else {  // C order
        buf.strides.assign(buf.shape.size(), buf.type.size);
        for (int d = int(buf.shape.size()) - 2; d >= 0; --d) {
            buf.strides[d] = buf.strides[d + 1] * buf.shape[d + 1];
        }
    }
    buf.device = cuda_device_of(object);
    buf.owner = py::reinterpret_borrow<py::object>(object);
    return buf;
}

}  // namespace

Buffer describe(const py::handle& object, const char* what)
{
    if (py::isinstance<py::array>(object)) return describe_numpy(py::reinterpret_borrow<py::array>(object));
    if (py::hasattr(object, "__cuda_array_interface__")) return describe_cuda(object, what);
    if (py::hasattr(object, "__dlpack__") && py::hasattr(object, "__dlpack_device__")) {
        // DLPack only (JAX, ...): imported by NumPy (host) or CuPy (CUDA), without a copy; the
        // imported array holds the producer's capsule.
        const int device_type = object.attr("__dlpack_device__")().cast<py::tuple>()[0].cast<int>();
        constexpr int dlpack_cpu = 1, dlpack_cuda = 2;
        if (device_type == dlpack_cpu) {
            return describe_numpy(py::module_::import("numpy").attr("from_dlpack")(object));
        }
        if (device_type == dlpack_cuda) {
            return describe_cuda(py::module_::import("cupy").attr("from_dlpack")(object), what);
        }
    }
    if (PyObject_CheckBuffer(object.ptr()) || py::hasattr(object, "__array_interface__") ||
        py::hasattr(object, "__array__")) {
        // np.asarray views these (a CPU torch tensor through __array__) without a copy.
        return describe_numpy(py::module_::import("numpy").attr("asarray")(object));
    }
    throw py::type_error(std::string(what) + " is a " +
                         py::str(py::type::of(object).attr("__name__")).cast<std::string>() +
                         ", not an array (NumPy, CuPy, PyTorch or anything with the buffer "
                         "protocol or __cuda_array_interface__)");
}

std::shared_ptr<const void> hold(py::object object)
{
    return std::shared_ptr<const void>(new py::object(std::move(object)), [](const py::object* p) {
        // A holder released after the interpreter has finished leaks what it held.
        if (!Py_IsInitialized()) return;
        const py::gil_scoped_acquire gil;
        delete p;
    });
}

std::shared_ptr<const Executor> holding_stream(std::shared_ptr<const Executor> exec,
                                               py::object stream)
{
    if (stream.is_none() || !exec) return exec;
    // The executor is released before the stream: members die in reverse order.
    struct Held {
        std::shared_ptr<const void> stream;
        std::shared_ptr<const Executor> exec;
    };
    auto held = std::make_shared<Held>(Held{hold(std::move(stream)), std::move(exec)});
    const auto* raw = held->exec.get();
    return std::shared_ptr<const Executor>(std::move(held), raw);
}

bool runs_on_own_stream(const Executor& exec) noexcept
{
    return !exec.is_host() && static_cast<const CudaExecutor&>(exec).owns_stream();
}

std::shared_ptr<const Executor> default_host_executor()
{
    static const std::shared_ptr<const Executor> exec =
        OmpExecutor::available() ? std::shared_ptr<const Executor>(OmpExecutor::create())
                                 : std::shared_ptr<const Executor>(ReferenceExecutor::create());
    return exec;
}

std::shared_ptr<const Executor> executor_for(const Buffer& buf,
                                             const std::shared_ptr<const Executor>& exec,
                                             const char* what)
{
    if (buf.on_host()) {
        if (!exec) return default_host_executor();
        if (exec->is_host()) return exec;
    } else if (exec && exec->kind() == ExecKind::cuda &&
               static_cast<const CudaExecutor&>(*exec).device_id() == buf.device) {
        return exec;
    }
    const auto where = buf.on_host() ? std::string("host memory")
                                     : "memory of CUDA device " + std::to_string(buf.device);
    throw BadInput("loom (Python)", std::string(what) + " is in " + where +
                                        ", which executor " + (exec ? exec->name() : "(none)") +
                                        " does not run on");
}

}  // namespace loom::python
