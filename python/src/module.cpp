// The module loom._loom: errors, executors and what this build contains; the kernels, solvers,
// batched calls and I/O are bound in their own files.
#include "common.hpp"

#include <pybind11/stl.h>

namespace loom::python {

void bind_errors(py::module_& m)
{
    // loom.Error and one subclass per loom::Error subclass, each also deriving from the
    // Python exception a Python user would catch for it.
    auto error = py::exception<Error>(m, "Error", PyExc_RuntimeError);
    auto subclass = [&](const char* name, PyObject* python_base) {
        // A py::tuple on both branches: newer pybind11 types make_tuple's results apart.
        const py::tuple bases = python_base ? py::tuple(py::make_tuple(error, py::handle(python_base)))
                                            : py::tuple(py::make_tuple(error));
        auto type = py::reinterpret_steal<py::object>(
            PyErr_NewException((std::string("loom.") + name).c_str(), bases.ptr(), nullptr));
        m.attr(name) = type;
        return type;
    };
    static const auto dimension_mismatch = subclass("DimensionMismatch", PyExc_ValueError);
    static const auto bad_input = subclass("BadInput", PyExc_ValueError);
    static const auto out_of_range = subclass("OutOfRange", PyExc_IndexError);
    static const auto not_compiled = subclass("NotCompiled", PyExc_NotImplementedError);
    static const auto not_supported = subclass("NotSupported", PyExc_NotImplementedError);
    static const auto numerical = subclass("NumericalError", PyExc_ArithmeticError);
    static const auto cuda = subclass("CudaError", nullptr);
    static const auto allocation = subclass("AllocationError", PyExc_MemoryError);
    static const auto io = subclass("IoError", PyExc_OSError);
    static const py::object base = error;
    py::register_exception_translator([](std::exception_ptr p) {
        auto raise = [](const py::object& type, const Error& e) {
            PyErr_SetString(type.ptr(), e.what());
        };
        try {
            if (p) std::rethrow_exception(p);
        } catch (const DimensionMismatch& e) {
            raise(dimension_mismatch, e);
        } catch (const BadInput& e) {
            raise(bad_input, e);
        } catch (const OutOfRange& e) {
            raise(out_of_range, e);
        } catch (const NotCompiled& e) {
            raise(not_compiled, e);
        } catch (const NotSupported& e) {
            raise(not_supported, e);
        } catch (const NumericalError& e) {
            raise(numerical, e);
        } catch (const CudaError& e) {
            raise(cuda, e);
        } catch (const AllocationError& e) {
            raise(allocation, e);
        } catch (const IoError& e) {
            raise(io, e);
        } catch (const Error& e) {
            raise(base, e);
        }
    });
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
