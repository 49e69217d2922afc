// Matrix Market (and Loom's binary CSR) files in and out (loom/matrix/io.hpp).
#include <pybind11/stl.h>

#include "csr.hpp"
#include "loom/matrix/io.hpp"

namespace loom::python {
namespace {

std::shared_ptr<const Executor> or_default(const std::shared_ptr<Executor>& exec)
{
    return exec ? std::shared_ptr<const Executor>(exec) : default_host_executor();
}

PyCsr read_csr(const std::string& path, const py::dtype& dtype, const py::dtype& index_dtype,
               const std::shared_ptr<Executor>& exec)
{
    const bool binary = path.size() > 4 && path.substr(path.size() - 4) == ".bin";
    return with_value_type(type_of(dtype), "dtype", [&]<typename V>(std::type_identity<V>) {
        return with_index_type(type_of(index_dtype), "index_dtype",
                               [&]<typename I>(std::type_identity<I>) {
                                   const py::gil_scoped_release release;
                                   auto matrix = binary ? matrix::read_binary_csr<V, I>(or_default(exec), path)
                                                        : matrix::read_csr<V, I>(or_default(exec), path);
                                   return PyCsr(std::make_shared<matrix::Csr<V, I>>(std::move(matrix)));
                               });
    });
}

void write_csr(const std::string& path, const PyCsr& A, const std::string& symmetry)
{
    const auto kind = names_of(matrix::MtxSymmetry{}).parse(symmetry, "loom.io.mmwrite");
    const bool binary = path.size() > 4 && path.substr(path.size() - 4) == ".bin";
    A.visit([&](const auto& matrix) {
        const py::gil_scoped_release release;
        if (binary) {
            matrix::write_binary(path, *matrix);
        } else {
            matrix::write_mtx(path, *matrix, kind);
        }
        return py::object();
    });
}

py::object read_dense(const std::string& path, const py::dtype& dtype)
{
    return with_value_type(type_of(dtype), "dtype", [&]<typename V>(std::type_identity<V>) {
        auto dense = [&] {
            const py::gil_scoped_release release;
            return std::make_shared<matrix::Dense<V>>(
                matrix::read_dense<V>(default_host_executor(), path));
        }();
        const auto item = int64(sizeof(V));
        return export_buffer(dense, dense->data(), scalar_type_of<V>(),
                             {dense->rows(), dense->cols()}, *dense->executor(),
                             {dense->stride() * item, item});
    });
}

void write_dense(const std::string& path, const py::handle& array, const std::string& symmetry)
{
    const auto kind = names_of(matrix::MtxSymmetry{}).parse(symmetry, "loom.io.mmwrite");
    const auto buf = describe(array, "the array");
    with_value_type(buf.type, "the array", [&]<typename V>(std::type_identity<V>) {
        const auto view = dense_view<V>(buf, executor_for(buf, nullptr, "the array"), "the array",
                                        false);
        const py::gil_scoped_release release;
        matrix::write_mtx(path, view, kind);
        return 0;
    });
}

}  // namespace

void bind_io(py::module_& m)
{
    auto io = m.def_submodule("_io", "Matrix Market and binary CSR files");
    io.def("read_csr", &read_csr, py::arg("path"), py::arg("dtype"), py::arg("index_dtype"),
           py::arg("exec") = nullptr);
    io.def("write_csr", &write_csr, py::arg("path"), py::arg("A"), py::arg("symmetry"));
    io.def("read_dense", &read_dense, py::arg("path"), py::arg("dtype"));
    io.def("write_dense", &write_dense, py::arg("path"), py::arg("array"), py::arg("symmetry"));
    io.def("read_header", [](const std::string& path) {
        const auto h = matrix::read_mtx_header(path);
        py::dict d;
        d["format"] = matrix::to_string(h.format);
        d["field"] = matrix::to_string(h.field);
        d["symmetry"] = matrix::to_string(h.symmetry);
        d["shape"] = py::make_tuple(h.rows, h.cols);
        d["entries"] = h.entries;
        return d;
    });
}

}  // namespace loom::python
