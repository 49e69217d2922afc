// The module loom._loom: errors, executors and what this build contains; the kernels, solvers,
// batched calls and I/O are bound in their own files.
#include "common.hpp"

#include <optional>
#include <string>

#include <pybind11/stl.h>

namespace loom::python {

/// The Python type raised for the loom exception E (a reference kept for the process: the
/// translators outlive the module).
template <typename E>
PyObject* python_type_of = nullptr;

/// Raises `type` for E. pybind11 tries the translators registered last first: E is
/// registered after its base. (A translator is a plain function: the type is a variable.)
template <typename E>
void translate(PyObject* type)
{
    python_type_of<E> = type;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const E& e) {
            PyErr_SetString(python_type_of<E>, e.what());
        }
    });
}

/// loom.<name> for E, deriving from loom.Error and from the Python exception a Python user
/// would catch for it (python_base, or none).
template <typename E>
void bind_error(py::module_& m, const py::object& error, const char* name, PyObject* python_base)
{
    // A py::tuple on both branches: newer pybind11 types make_tuple's results apart.
    const py::tuple bases = python_base ? py::tuple(py::make_tuple(error, py::handle(python_base)))
                                        : py::tuple(py::make_tuple(error));
    PyObject* type = PyErr_NewException((std::string("loom.") + name).c_str(), bases.ptr(), nullptr);
    if (!type) throw py::error_already_set();
    m.attr(name) = py::handle(type);
    translate<E>(type);
}

void bind_errors(py::module_& m)
{
    const py::object error = py::exception<Error>(m, "Error", PyExc_RuntimeError);
    translate<Error>(error.inc_ref().ptr());
    bind_error<DimensionMismatch>(m, error, "DimensionMismatch", PyExc_ValueError);
    bind_error<BadInput>(m, error, "BadInput", PyExc_ValueError);
    bind_error<OutOfRange>(m, error, "OutOfRange", PyExc_IndexError);
    bind_error<NotCompiled>(m, error, "NotCompiled", PyExc_NotImplementedError);
    bind_error<NotSupported>(m, error, "NotSupported", PyExc_NotImplementedError);
    bind_error<NumericalError>(m, error, "NumericalError", PyExc_ArithmeticError);
    bind_error<CudaError>(m, error, "CudaError", nullptr);
    bind_error<AllocationError>(m, error, "AllocationError", PyExc_MemoryError);
    bind_error<IoError>(m, error, "IoError", PyExc_OSError);
}

void bind_executors(py::module_& m)
{
    py::class_<Executor, std::shared_ptr<Executor>>(m, "Executor",
                                                    "Where Loom's data lives and its kernels run")
        .def_property_readonly("name", &Executor::name)
        .def_property_readonly("kind",
                               [](const Executor& e) { return names_of(e.kind()).to_string(e.kind()); })
        .def_property_readonly("is_host", &Executor::is_host)
        .def_property_readonly("threads",
                               [](const Executor& e) -> py::object {
                                   if (e.kind() != ExecKind::omp) return py::none();
                                   return py::int_(static_cast<const OmpExecutor&>(e).num_threads());
                               })
        .def_property_readonly("device",
                               [](const Executor& e) -> py::object {
                                   if (e.kind() != ExecKind::cuda) return py::none();
                                   return py::int_(static_cast<const CudaExecutor&>(e).device_id());
                               })
        .def_property_readonly("stream",
                               [](const Executor& e) -> py::object {
                                   if (e.kind() != ExecKind::cuda) return py::none();
                                   return py::int_(reinterpret_cast<std::uintptr_t>(
                                       static_cast<const CudaExecutor&>(e).stream()));
                               })
        .def("synchronize", &Executor::synchronize, py::call_guard<py::gil_scoped_release>())
        .def("__repr__", [](const Executor& e) { return "loom.exec('" + e.name() + "')"; });

    // The executor classes are const in Loom; Python holds them as the non-const base.
    auto share = [](std::shared_ptr<const Executor> e) {
        return std::const_pointer_cast<Executor>(std::move(e));
    };
    m.def("_reference_exec", [share] { return share(ReferenceExecutor::create()); });
    m.def("_omp_exec", [share](int threads) { return share(OmpExecutor::create(threads)); },
          py::arg("threads") = 0);
    m.def("_cuda_exec",
          [share](int device, std::uintptr_t stream, bool on_stream) {
              return share(on_stream
                               ? CudaExecutor::create_on_stream(device, reinterpret_cast<void*>(stream))
                               : CudaExecutor::create(device));
          },
          py::arg("device") = 0, py::arg("stream") = 0, py::arg("on_stream") = false);
    m.def("_default_host_exec", [share] { return share(default_host_executor()); });
    m.def("cuda_device_count", &CudaExecutor::device_count,
          "Usable CUDA devices (0 without the CUDA backend or a device)");
    m.def("executor_names", [] { return names_of(ExecKind{}).names(); });
    m.def("_exec_kind", [](const std::string& text) -> std::optional<std::string> {
        // The name of any spelling of exec_kind_names ("ref", "CUDA"), or None.
        const auto kind = names_of(ExecKind{}).find(text);
        return kind ? std::optional<std::string>(to_string(*kind)) : std::nullopt;
    });
    m.attr("value_types") = built_value_types();
    m.attr("index_types") = built_index_types();
    m.attr("has_openmp") = bool(LOOM_HAS_OPENMP);
    m.attr("has_cuda") = bool(LOOM_HAS_CUDA);
    m.attr("version") = LOOM_VERSION;
}

}  // namespace loom::python

PYBIND11_MODULE(_loom, m)
{
    using namespace loom::python;
    m.doc() = "Loom's C++ core (the Python API is the package loom)";
    bind_errors(m);
    bind_executors(m);
    bind_exported_array(m);
    bind_sparse(m);
    bind_sparse_dense(m);
    bind_solvers(m);
    bind_batched(m);
    bind_io(m);
}
