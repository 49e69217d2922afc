// Loom memory out, without copies: a loom._loom.Array holds Loom memory (host or device) and
// what owns it, and hands it to any consumer: NumPy through __array_interface__ (host memory
// goes out as a NumPy array whose base is the Array), CuPy / PyTorch / Numba through
// __cuda_array_interface__, and every DLPack consumer (np.from_dlpack, torch.from_dlpack,
// cupy.from_dlpack) through __dlpack__ / __dlpack_device__.
#include "common.hpp"

#include <cstdint>

#include <pybind11/stl.h>

namespace loom::python {

namespace {

// The DLPack ABI (dlpack.h, the unversioned "dltensor" capsule that every consumer takes),
// declared here: Debian ships no DLPack header, and the layout is a stable C ABI.
namespace dlpack {

enum DeviceType : std::int32_t { cpu = 1, cuda = 2 };
enum TypeCode : std::uint8_t { signed_int = 0, unsigned_int = 1, floating = 2, complex = 5, boolean = 6 };

struct Device {
    std::int32_t device_type;
    std::int32_t device_id;
};
struct DataType {
    std::uint8_t code;
    std::uint8_t bits;
    std::uint16_t lanes;
};
struct Tensor {
    void* data;
    Device device;
    std::int32_t ndim;
    DataType dtype;
    std::int64_t* shape;
    std::int64_t* strides;  ///< in elements
    std::uint64_t byte_offset;
};
struct ManagedTensor {
    Tensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(ManagedTensor* self);
};

constexpr const char* capsule_name = "dltensor";
constexpr const char* used_capsule_name = "used_dltensor";

}  // namespace dlpack

std::vector<int64> c_order_strides(const std::vector<int64>& shape, int64 item)
{
    std::vector<int64> strides(shape.size(), item);
    for (int d = int(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
    return strides;
}

/// Loom memory for Python: the Array (or the NumPy array on it) keeps `owner` alive.
struct ExportedArray {
    std::shared_ptr<const void> owner;
    std::shared_ptr<const Executor> exec;  ///< where the memory is and its values computed
    void* data;
    ScalarType type;
    std::vector<int64> shape;
    std::vector<int64> strides;  ///< in bytes

    bool on_host() const { return exec->is_host(); }
    const CudaExecutor& cuda() const { return static_cast<const CudaExecutor&>(*exec); }
    std::uintptr_t compute_stream() const
    {
        return reinterpret_cast<std::uintptr_t>(cuda().stream());
    }

    py::dict interface() const
    {
        py::dict result;
        result["shape"] = py::tuple(py::cast(shape));
        result["typestr"] = std::string("<") + type.kind + std::to_string(type.size);
        result["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(data), false);
        result["strides"] = py::tuple(py::cast(strides));
        result["version"] = 3;
        return result;
    }

    py::dict array_interface() const
    {
        if (!on_host()) throw py::attribute_error("the array is in device memory");
        return interface();
    }

    py::dict cuda_array_interface() const
    {
        if (on_host()) throw py::attribute_error("the array is in host memory");
        auto result = interface();
        // The stream the values are computed on, for the consumer to wait on (1 is the
        // array interface's name of the legacy default stream).
        result["stream"] = compute_stream() == 0 ? std::uintptr_t{1} : compute_stream();
        return result;
    }

    dlpack::Device dlpack_device() const
    {
        if (on_host()) return {dlpack::cpu, 0};
        return {dlpack::cuda, cuda().device_id()};
    }

    py::tuple dlpack_device_tuple() const
    {
        const auto device = dlpack_device();
        return py::make_tuple(device.device_type, device.device_id);
    }

    /// A "dltensor" capsule viewing the memory and holding its owner until the consumer's
    /// tensor dies. `stream` is the consumer's (DLPack's convention: None the legacy default
    /// stream, -1 no ordering wanted): when it is not the one the values are computed on, the
    /// values are waited for first.
    py::object dlpack(const py::object& stream, const py::object& /*max_version*/,
                      const py::object& dl_device, const py::object& copy) const
    {
        if (!copy.is_none() && copy.cast<bool>()) {
            throw py::buffer_error("loom arrays are exported without copies (copy=True asked)");
        }
        const auto device = dlpack_device();
        if (!dl_device.is_none()) {
            const auto wanted = dl_device.cast<std::pair<int, int>>();
            if (wanted.first != device.device_type || wanted.second != device.device_id) {
                throw py::buffer_error("loom: the array is on DLPack device (" +
                                       std::to_string(device.device_type) + ", " +
                                       std::to_string(device.device_id) + ") only");
            }
        }
        if (!on_host()) wait_for_values(stream);
        return managed_capsule(device);
    }

private:
    void wait_for_values(const py::object& stream) const
    {
        const auto consumer = stream.is_none() ? std::intptr_t{1} : stream.cast<std::intptr_t>();
        const auto producer = compute_stream() == 0 ? std::intptr_t{1} : std::intptr_t(compute_stream());
        if (consumer != -1 && consumer != producer) {
            const py::gil_scoped_release release;
            exec->synchronize();
        }
    }

    /// What a capsule's tensor owns: its shape and strides, and the memory's owner.
    struct Context {
        dlpack::ManagedTensor tensor;
        std::vector<std::int64_t> shape;
        std::vector<std::int64_t> strides;
        std::shared_ptr<const void> owner;
        std::shared_ptr<const Executor> exec;
    };

    py::object managed_capsule(dlpack::Device device) const
    {
        const auto item = int64(type.size);
        auto context = std::make_unique<Context>();
        context->shape.assign(shape.begin(), shape.end());
        for (const auto stride : strides) context->strides.push_back(stride / item);
        context->owner = owner;
        context->exec = exec;
        auto& tensor = context->tensor;
        tensor.dl_tensor = {data,
                            device,
                            std::int32_t(shape.size()),
                            {type_code(), std::uint8_t(8 * type.size), 1},
                            context->shape.data(),
                            context->strides.data(),
                            0};
        tensor.manager_ctx = context.get();
        // Consumers may call the deleter without the GIL: the owner takes it when it needs it.
        tensor.deleter = [](dlpack::ManagedTensor* self) {
            delete static_cast<Context*>(self->manager_ctx);
        };
        auto* capsule = PyCapsule_New(&tensor, dlpack::capsule_name, &delete_unconsumed);
        if (capsule == nullptr) throw py::error_already_set();
        context.release();
        return py::reinterpret_steal<py::object>(capsule);
    }

    /// A capsule no consumer took (a consumer renames it "used_dltensor") frees its tensor.
    static void delete_unconsumed(PyObject* capsule)
    {
        if (PyCapsule_IsValid(capsule, dlpack::used_capsule_name)) return;
        auto* tensor = static_cast<dlpack::ManagedTensor*>(
            PyCapsule_GetPointer(capsule, dlpack::capsule_name));
        if (tensor == nullptr) {
            PyErr_WriteUnraisable(capsule);
            return;
        }
        tensor->deleter(tensor);
    }

    std::uint8_t type_code() const
    {
        switch (type.kind) {
        case 'f': return dlpack::floating;
        case 'c': return dlpack::complex;
        case 'u': return dlpack::unsigned_int;
        case 'b': return dlpack::boolean;
        default: return dlpack::signed_int;
        }
    }
};

}  // namespace

py::object export_buffer(std::shared_ptr<const void> owner, void* data, ScalarType type,
                         std::vector<int64> shape, const Executor& exec,
                         std::vector<int64> strides)
{
    if (strides.empty()) strides = c_order_strides(shape, type.size);
    ExportedArray array{std::move(owner), exec.shared_from_this(), data, type, shape, strides};
    if (!exec.is_host()) return py::cast(std::move(array));
    // Host memory goes out as NumPy (what NumPy/SciPy users expect), its base the Array: the
    // Array keeps the memory alive and gives it to DLPack consumers too.
    const py::object base = py::cast(std::move(array));
    return py::array(py::dtype(numpy_name(type)), shape, strides, data, base);
}

void bind_exported_array(py::module_& m)
{
    py::class_<ExportedArray>(m, "Array",
                              "Loom memory (host or device) for NumPy, CuPy, PyTorch and any "
                              "DLPack consumer, kept alive while any of them views it")
        .def_property_readonly("__array_interface__", &ExportedArray::array_interface)
        .def_property_readonly("__cuda_array_interface__", &ExportedArray::cuda_array_interface)
        .def("__dlpack__", &ExportedArray::dlpack, py::kw_only(), py::arg("stream") = py::none(),
             py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
             py::arg("copy") = py::none())
        .def("__dlpack_device__", &ExportedArray::dlpack_device_tuple)
        .def_property_readonly("shape", [](const ExportedArray& a) { return py::tuple(py::cast(a.shape)); })
        .def_property_readonly("dtype", [](const ExportedArray& a) { return py::dtype(numpy_name(a.type)); });
}

}  // namespace loom::python
