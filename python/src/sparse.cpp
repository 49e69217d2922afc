// loom.Csr, loom.Coo, loom.Ell and loom.Sellp, the conversions between them, and the sparse
// kernels on them: SpMV, SpGEMM, SpAdd, transposition.
#include "csr.hpp"

#include <chrono>

#include <pybind11/stl.h>

#include "loom/matrix/convert.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"
#include "loom/sparse/spgemm.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::python {

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

/// The names a format gives its three arrays, and how many entries the first holds.
template <template <typename, typename> class Format>
struct Layout;
template <>
struct Layout<matrix::Csr> {
    static constexpr const char* name = "loom.Csr";
    static constexpr const char* first = "indptr";
    static constexpr const char* second = "indices";
    static int64 first_length(int64 rows, int64 /*nnz*/) { return rows + 1; }
    static constexpr const char* length_text = "rows + 1 = ";
    template <typename V, typename I>
    static const Array<I>& first_array(const matrix::Csr<V, I>& A) { return A.row_ptrs(); }
};
template <>
struct Layout<matrix::Coo> {
    static constexpr const char* name = "loom.Coo";
    static constexpr const char* first = "row";
    static constexpr const char* second = "col";
    static int64 first_length(int64 /*rows*/, int64 nnz) { return nnz; }
    static constexpr const char* length_text = "as many as data: ";
    template <typename V, typename I>
    static const Array<I>& first_array(const matrix::Coo<V, I>& A) { return A.row_idxs(); }
};

/// A matrix viewing its three arrays (CSR: indptr, indices, data; COO: row, col, data),
/// validated (BadInput / OutOfRange for a broken structure). On `exec` when given: arrays in
/// other memory are then copied there. `stream`: the Python stream object exec queues on
/// (CuPy/PyTorch), held while the matrix lives (holding_stream).
template <template <typename, typename> class Format>
PySparse<Format> make_sparse(int64 rows, int64 cols, const py::handle& first,
                             const py::handle& second, const py::handle& data,
                             const std::shared_ptr<Executor>& exec, const py::object& stream)
{
    using L = Layout<Format>;
    const auto a = describe(first, L::first);
    const auto b = describe(second, L::second);
    const auto values = describe(data, "data");
    if (a.type != b.type) {
        throw py::type_error(std::string(L::first) + " has dtype " + numpy_name(a.type) + " but " +
                             L::second + " " + numpy_name(b.type) + " (they must match)");
    }
    if (a.device != b.device || a.device != values.device) {
        throw BadInput(L::name, "its three arrays are not in the same memory");
    }
    if (rows < 0 || cols < 0) throw BadInput(L::name, "negative shape");
    if (b.shape.size() != 1 || values.shape.size() != 1 || b.shape[0] != values.shape[0]) {
        throw DimensionMismatch(L::name, std::string(L::second) +
                                             " and data must be 1-D of one length");
    }
    const auto length = L::first_length(rows, values.shape[0]);
    if (a.shape.size() != 1 || a.shape[0] != length) {
        throw DimensionMismatch(L::name, std::string(L::first) + " must hold " + L::length_text +
                                             std::to_string(length) + " entries");
    }
    // The arrays are viewed where they are, and copied by the matrix when exec is elsewhere.
    const auto source_exec = values.on_host() && !(exec && exec->is_host())
                                 ? default_host_executor()
                                 : executor_for(values, exec, "data");
    const auto target_exec = holding_stream(exec ? exec : source_exec, stream);
    return with_value_type(values.type, "data", [&]<typename V>(std::type_identity<V>) {
        return with_index_type(a.type, L::first, [&]<typename I>(std::type_identity<I>) {
            auto first_view = array_view<I>(a, source_exec, L::first);
            auto second_view = array_view<I>(b, source_exec, L::second);
            auto value_view = array_view<V>(values, source_exec, "data");
            const py::gil_scoped_release release;
            return PySparse<Format>(std::make_shared<Format<V, I>>(
                target_exec, dim2{rows, cols}, std::move(first_view), std::move(second_view),
                std::move(value_view)));
        });
    });
}

/// One of a matrix's arrays for Python, sharing its memory: "first" (indptr / row), "second"
/// (indices / col) or "data".
template <template <typename, typename> class Format>
py::object sparse_array(const PySparse<Format>& A, const std::string& which)
{
    return A.visit([&](const auto& matrix) {
        if (which == "first") return export_array(matrix, Layout<Format>::first_array(*matrix));
        if (which == "second") return export_array(matrix, matrix->col_idxs());
        return export_array(matrix, matrix->values());
    });
}

template <typename Holder>
void spmv(const Holder& A, const py::handle& x, const py::handle& y, const py::object& alpha,
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

template <typename M>
std::shared_ptr<M> shared(M&& matrix)
{
    return std::make_shared<M>(std::move(matrix));
}

/// The matrix convert(*a) of A's type, held as Result (a PySparse), computed without the GIL.
template <typename Result, typename Holder, typename F>
py::object converted(const Holder& A, F&& convert)
{
    return A.visit([&](const auto& a) {
        auto result = [&] {
            const py::gil_scoped_release release;
            return Result(shared(convert(*a)));
        }();
        return py::cast(std::move(result));
    });
}

/// The properties every format shares: shape, dtype, index_dtype, exec, and _to (a deep copy
/// on another executor).
template <template <typename, typename> class Format>
py::class_<PySparse<Format>> bind_holder(py::module_& m, const char* name)
{
    using Holder = PySparse<Format>;
    py::class_<Holder> holder(m, name, "A sparse matrix (the Python class of its format holds it)");
    holder
        .def_property_readonly("shape",
                               [](const Holder& A) {
                                   return A.visit([](const auto& a) {
                                       return py::make_tuple(a->rows(), a->cols());
                                   });
                               })
        .def_property_readonly("dtype",
                               [](const Holder& A) {
                                   return A.visit([](const auto& a) -> py::object {
                                       using V = typename std::decay_t<decltype(*a)>::value_type;
                                       return py::dtype(numpy_name(scalar_type_of<V>()));
                                   });
                               })
        .def_property_readonly("index_dtype",
                               [](const Holder& A) {
                                   return A.visit([](const auto& a) -> py::object {
                                       using I = typename std::decay_t<decltype(*a)>::index_type;
                                       return py::dtype(numpy_name(scalar_type_of<I>()));
                                   });
                               })
        .def_property_readonly("exec",
                               [](const Holder& A) {
                                   return A.visit([](const auto& a) {
                                       return py::cast(std::const_pointer_cast<Executor>(
                                           a->executor()));
                                   });
                               })
        .def("_to", [](const Holder& A, const std::shared_ptr<Executor>& exec) {
            return converted<Holder>(A, [&](const auto& a) {
                return std::decay_t<decltype(a)>(exec, a);
            });
        });
    return holder;
}

/// loom.Csr's and loom.Coo's core: made from three arrays, which it shares with Python.
template <template <typename, typename> class Format>
void bind_format(py::module_& m, const char* name)
{
    using Holder = PySparse<Format>;
    bind_holder<Format>(m, name)
        .def_static("_from_arrays", &make_sparse<Format>, py::arg("rows"), py::arg("cols"),
                    py::arg("first"), py::arg("second"), py::arg("data"),
                    py::arg("exec") = nullptr, py::arg("stream") = py::none())
        .def_property_readonly("nnz",
                               [](const Holder& A) {
                                   return A.visit([](const auto& a) { return py::int_(a->nnz()); });
                               })
        .def("_array", &sparse_array<Format>, py::arg("which"),
             "\"first\" (indptr / row), \"second\" (indices / col) or \"data\", sharing "
             "Loom's memory (NumPy on the host)");
}

/// A size_type property of the matrix a PySparse holds (width, stride, slots, ...).
template <typename Holder, typename F>
auto size_property(F&& get)
{
    return [get](const Holder& A) {
        return A.visit([&](const auto& a) { return py::int_(get(*a)); });
    };
}

/// loom.Ell's and loom.Sellp's core: made from a loom.Csr (a conversion: padded slots).
void bind_padded_formats(py::module_& m)
{
    bind_holder<matrix::Ell>(m, "_Ell")
        .def_property_readonly("width", size_property<PyEll>([](const auto& a) { return a.width(); }))
        .def_property_readonly("stride", size_property<PyEll>([](const auto& a) { return a.stride(); }))
        .def_property_readonly("slots", size_property<PyEll>([](const auto& a) { return a.slots(); }));
    bind_holder<matrix::Sellp>(m, "_Sellp")
        .def_property_readonly("slice_size",
                               size_property<PySellp>([](const auto& a) { return a.slice_size(); }))
        .def_property_readonly("stride_factor",
                               size_property<PySellp>([](const auto& a) { return a.stride_factor(); }))
        .def_property_readonly("slots", size_property<PySellp>([](const auto& a) { return a.slots(); }));
    m.def("_to_ell", [](const PyCsr& A) {
        return converted<PyEll>(A, [](const auto& a) { return matrix::to_ell(a); });
    });
    m.def("_to_sellp", [](const PyCsr& A, size_type slice_size, size_type stride_factor) {
        return converted<PySellp>(A, [&](const auto& a) {
            return matrix::to_sellp(a, slice_size, stride_factor);
        });
    }, py::arg("A"), py::arg("slice_size"), py::arg("stride_factor"));
    m.def("_to_csr", [](const PyEll& A) {
        return converted<PyCsr>(A, [](const auto& a) { return matrix::to_csr(a); });
    });
    m.def("_to_csr", [](const PySellp& A) {
        return converted<PyCsr>(A, [](const auto& a) { return matrix::to_csr(a); });
    });
    m.def("_to_csr", [](const PyCoo& A) {
        return converted<PyCsr>(A, [](const auto& a) { return matrix::to_csr(a); });
    });
}

}  // namespace

void bind_sparse(py::module_& m)
{
    bind_format<matrix::Csr>(m, "_Csr");
    bind_format<matrix::Coo>(m, "_Coo");
    bind_padded_formats(m);
    m.def("_spmv", &spmv<PyCsr>, py::arg("A"), py::arg("x"), py::arg("y"), py::arg("alpha"),
          py::arg("beta"), py::arg("mode"));
    m.def("_spmv", &spmv<PyCoo>, py::arg("A"), py::arg("x"), py::arg("y"), py::arg("alpha"),
          py::arg("beta"), py::arg("mode"));
    m.def("_spmv", &spmv<PyEll>, py::arg("A"), py::arg("x"), py::arg("y"), py::arg("alpha"),
          py::arg("beta"), py::arg("mode"));
    m.def("_spmv", &spmv<PySellp>, py::arg("A"), py::arg("x"), py::arg("y"), py::arg("alpha"),
          py::arg("beta"), py::arg("mode"));
    // Whether a spelling of sparse::mode_names (any case, aliases too) transposes A: the shape
    // of the result Python allocates before the call. BadInput for an unknown mode.
    m.def(
        "_mode_transposes",
        [](const std::string& mode) {
            const auto op = sparse::parse_mode(mode);
            return op == sparse::Mode::transpose || op == sparse::Mode::conj_transpose;
        },
        py::arg("mode"));
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
        return converted<PyCsr>(A, [&](const auto& a) {
            return conjugate ? sparse::conj_transpose(a) : sparse::transpose(a);
        });
    });
}

}  // namespace loom::python
