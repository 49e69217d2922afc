// loom.Csr and the sparse kernels on it: SpMV, SpGEMM, SpAdd, transposition.
#include "csr.hpp"

#include <chrono>

#include <pybind11/stl.h>

#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"
#include "loom/sparse/spgemm.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::python {

std::string PyCsr::type_text() const
{
    return std::visit(
        [](const auto& matrix) {
            using M = typename std::decay_t<decltype(matrix)>::element_type;
            return numpy_name(scalar_type_of<typename M::value_type>()) + " values and " +
                   numpy_name(scalar_type_of<typename M::index_type>()) + " indices";
        },
        matrix_);
}

namespace {

/// A 1-D contiguous array as a Loom view holding its Python owner; ValueError otherwise.
template <typename T>
Array<T> array_view(const Buffer& buf, const std::shared_ptr<const Executor>& exec,
                    const char* what)
{
    if (buf.shape.size() != 1) {
        throw py::value_error(std::string(what) + " must be 1-D");
    }
    if (buf.shape[0] > 1 && buf.strides[0] != int64(sizeof(T))) {
        throw py::value_error(std::string(what) + " is not contiguous");
    }
    return Array<T>::view(exec, buf.shape[0], static_cast<T*>(buf.data), hold(buf.owner));
}

/// A Csr viewing the three arrays (validated: BadInput / OutOfRange for a broken structure).
/// On `exec` when given: arrays in other memory are then copied there.
PyCsr make_csr(int64 rows, int64 cols, const py::handle& indptr, const py::handle& indices,
               const py::handle& data, const std::shared_ptr<Executor>& exec)
{
    const auto row_ptrs = describe(indptr, "indptr");
    const auto col_idxs = describe(indices, "indices");
    const auto values = describe(data, "data");
    if (row_ptrs.type != col_idxs.type) {
        throw py::type_error("indptr has dtype " + numpy_name(row_ptrs.type) + " but indices " +
                             numpy_name(col_idxs.type) + " (they must match)");
    }
    if (row_ptrs.device != col_idxs.device || row_ptrs.device != values.device) {
        throw BadInput("loom.Csr", "indptr, indices and data are not in the same memory");
    }
    if (rows < 0 || cols < 0) throw BadInput("loom.Csr", "negative shape");
    if (row_ptrs.shape.size() != 1 || row_ptrs.shape[0] != rows + 1) {
        throw DimensionMismatch("loom.Csr", "indptr must hold rows + 1 = " +
                                                std::to_string(rows + 1) + " entries");
    }
    if (col_idxs.shape.size() != 1 || values.shape.size() != 1 ||
        col_idxs.shape[0] != values.shape[0]) {
        throw DimensionMismatch("loom.Csr", "indices and data must be 1-D of one length");
    }
    // The arrays are viewed where they are, and copied by the Csr when exec is elsewhere.
    const auto source_exec = values.on_host() && !(exec && exec->is_host())
                                 ? default_host_executor()
                                 : executor_for(values, exec, "data");
    const std::shared_ptr<const Executor> target_exec = exec ? exec : source_exec;
    return with_value_type(values.type, "data", [&]<typename V>(std::type_identity<V>) {
        return with_index_type(row_ptrs.type, "indptr", [&]<typename I>(std::type_identity<I>) {
            auto rp = array_view<I>(row_ptrs, source_exec, "indptr");
            auto ci = array_view<I>(col_idxs, source_exec, "indices");
            auto vals = array_view<V>(values, source_exec, "data");
            const py::gil_scoped_release release;
            return PyCsr(std::make_shared<matrix::Csr<V, I>>(target_exec, dim2{rows, cols},
                                                             std::move(rp), std::move(ci),
                                                             std::move(vals)));
        });
    });
}

template <typename V, typename I>
py::object export_csr_array(const CsrPtr<V, I>& matrix, const char* which)
{
    const std::string name = which;
    if (name == "indptr") return export_array(matrix, matrix->row_ptrs());
    if (name == "indices") return export_array(matrix, matrix->col_idxs());
    return export_array(matrix, matrix->values());
}

py::object csr_property(const PyCsr& A, const char* which)
{
    return A.visit([&](const auto& matrix) { return export_csr_array(matrix, which); });
}

void spmv(const PyCsr& A, const py::handle& x, const py::handle& y, const py::object& alpha,
          const py::object& beta, const std::string& mode)
{
    const auto op = sparse::parse_mode(mode);
    A.visit([&](const auto& matrix) -> py::object {
        using V = typename std::decay_t<decltype(*matrix)>::value_type;
        const auto x_view = dense_operand<V>(x, matrix->executor(), "x", false);
        auto y_view = dense_operand<V>(y, matrix->executor(), "y", true);
        const auto a = scalar_as<V>(alpha, "alpha");
        const auto b = scalar_as<V>(beta, "beta");
        const py::gil_scoped_release release;
        sparse::spmv(op, a, *matrix, x_view, b, y_view);
        return {};
    });
}

/// Seconds per call of the C++ SpMV alone (views made once, `repetitions` calls in a C++
/// loop): what bench/bench_solve.py compares loom.spmv's per-call time with.
double spmv_seconds(const PyCsr& A, const py::handle& x, const py::handle& y, int repetitions)
{
    double seconds = 0;
    A.visit([&](const auto& matrix) -> py::object {
        using V = typename std::decay_t<decltype(*matrix)>::value_type;
        const auto& exec = matrix->executor();
        const auto x_view = dense_operand<V>(x, exec, "x", false);
        auto y_view = dense_operand<V>(y, exec, "y", true);
        const py::gil_scoped_release release;
        exec->synchronize();
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < repetitions; ++i) {
            sparse::spmv(sparse::Mode::none, V{1}, *matrix, x_view, V{0}, y_view);
        }
        exec->synchronize();
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return {};
    });
    return seconds / repetitions;
}

/// f(A, B) for two matrices of one type; TypeError naming both otherwise.
template <typename F>
py::object with_pair(const PyCsr& A, const PyCsr& B, F&& f)
{
    return A.visit([&](const auto& a) {
        using M = typename std::decay_t<decltype(*a)>;
        const auto b = B.as<typename M::value_type, typename M::index_type>("B");
        auto result = [&] {
            const py::gil_scoped_release release;
            return PyCsr(f(*a, *b));
        }();
        return py::cast(std::move(result));
    });
}

template <typename V, typename I>
CsrPtr<V, I> shared(matrix::Csr<V, I>&& matrix)
{
    return std::make_shared<matrix::Csr<V, I>>(std::move(matrix));
}

}  // namespace

void bind_sparse(py::module_& m)
{
    py::class_<PyCsr>(m, "_Csr", "A CSR matrix (the Python class loom.Csr derives from this)")
        .def_static("_from_arrays", &make_csr, py::arg("rows"), py::arg("cols"),
                    py::arg("indptr"), py::arg("indices"), py::arg("data"),
                    py::arg("exec") = nullptr)
        .def_property_readonly("shape",
                               [](const PyCsr& A) {
                                   return A.visit([](const auto& a) {
                                       return py::make_tuple(a->rows(), a->cols());
                                   });
                               })
        .def_property_readonly("nnz",
                               [](const PyCsr& A) {
                                   return A.visit([](const auto& a) { return py::int_(a->nnz()); });
                               })
        .def_property_readonly("dtype",
                               [](const PyCsr& A) {
                                   return A.visit([](const auto& a) -> py::object {
                                       using V = typename std::decay_t<decltype(*a)>::value_type;
                                       return py::dtype(numpy_name(scalar_type_of<V>()));
                                   });
                               })
        .def_property_readonly("index_dtype",
                               [](const PyCsr& A) {
                                   return A.visit([](const auto& a) -> py::object {
                                       using I = typename std::decay_t<decltype(*a)>::index_type;
                                       return py::dtype(numpy_name(scalar_type_of<I>()));
                                   });
                               })
        .def_property_readonly("exec",
                               [](const PyCsr& A) {
                                   return A.visit([](const auto& a) {
                                       return py::cast(std::const_pointer_cast<Executor>(
                                           a->executor()));
                                   });
                               })
        .def_property_readonly("indptr", [](const PyCsr& A) { return csr_property(A, "indptr"); },
                               "The row pointers, sharing Loom's memory (NumPy on the host)")
        .def_property_readonly("indices",
                               [](const PyCsr& A) { return csr_property(A, "indices"); })
        .def_property_readonly("data", [](const PyCsr& A) { return csr_property(A, "data"); })
        .def("_to", [](const PyCsr& A, const std::shared_ptr<Executor>& exec) {
            return A.visit([&](const auto& a) {
                using M = typename std::decay_t<decltype(*a)>;
                auto copy = [&] {
                    const py::gil_scoped_release release;
                    return PyCsr(std::make_shared<M>(exec, *a));
                }();
                return py::cast(std::move(copy));
            });
        });

    m.def("_spmv", &spmv, py::arg("A"), py::arg("x"), py::arg("y"), py::arg("alpha"),
          py::arg("beta"), py::arg("mode"));
    m.def("_spmv_seconds", &spmv_seconds, py::arg("A"), py::arg("x"), py::arg("y"),
          py::arg("repetitions"));
    m.def("_spgemm", [](const PyCsr& A, const PyCsr& B) {
        return with_pair(A, B, [](const auto& a, const auto& b) {
            return shared(sparse::spgemm(a, b));
        });
    });
    m.def("_spadd", [](const py::object& alpha, const PyCsr& A, const py::object& beta,
                       const PyCsr& B) {
        const auto za = py::cast<std::complex<double>>(alpha);
        const auto zb = py::cast<std::complex<double>>(beta);
        return with_pair(A, B, [&](const auto& a, const auto& b) {
            using V = typename std::decay_t<decltype(a)>::value_type;
            return shared(sparse::spadd(value_from<V>(za, "alpha"), a, value_from<V>(zb, "beta"), b));
        });
    });
    m.def("_transpose", [](const PyCsr& A, bool conjugate) {
        return A.visit([&](const auto& a) {
            auto result = [&] {
                const py::gil_scoped_release release;
                return PyCsr(shared(conjugate ? sparse::conj_transpose(*a) : sparse::transpose(*a)));
            }();
            return py::cast(std::move(result));
        });
    });
}

}  // namespace loom::python
