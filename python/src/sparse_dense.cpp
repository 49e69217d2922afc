// The kernels that pair a sparse matrix with dense matrices: SpMM, SDDMM and FusedMM (the
// graph-neural-network kernels), their dense operands row-major or column-major as given.
#include "csr.hpp"

#include <pybind11/stl.h>

#include "loom/sparse/fusedmm.hpp"
#include "loom/sparse/sddmm.hpp"
#include "loom/sparse/spmm.hpp"

namespace loom::python {

namespace {

/// A dense operand viewed in its own layout.
template <typename V>
struct LaidOut {
    matrix::Dense<V> dense;
    sparse::DenseLayout layout;
};

/// Whether a 2-D array has contiguous columns and not contiguous rows (Fortran order): the
/// Dense that views it is its transpose.
bool is_col_major(const Buffer& buf)
{
    if (buf.shape.size() != 2 || buf.shape[1] <= 1) return false;
    const auto item = int64(buf.type.size);
    return buf.strides[1] != item && (buf.shape[0] <= 1 || buf.strides[0] == item);
}

Buffer transposed(Buffer buf)
{
    std::swap(buf.shape[0], buf.shape[1]);
    std::swap(buf.strides[0], buf.strides[1]);
    return buf;
}

/// The operand `object` as row-major Dense (C order, or rows evenly spaced) or, for a
/// Fortran-ordered 2-D array, as the Dense of its transpose marked col_major. No copy.
template <typename V>
LaidOut<V> laid_out_operand(const py::handle& object, const std::shared_ptr<const Executor>& exec,
                            const char* what, bool writable)
{
    const auto buf = describe(object, what);
    const auto target = executor_for(buf, exec, what);
    if (is_col_major(buf)) {
        return {dense_view<V>(transposed(buf), target, what, writable),
                sparse::DenseLayout::col_major};
    }
    return {dense_view<V>(buf, target, what, writable), sparse::DenseLayout::row_major};
}

template <typename M>
using value_of = typename std::decay_t<M>::element_type::value_type;

void spmm(const PyCsr& A, const py::handle& B, const py::handle& C, const py::object& alpha,
          const py::object& beta, const std::string& mode, const std::string& algorithm)
{
    const auto op = sparse::parse_mode(mode);
    sparse::SpmmOptions options;
    options.algorithm = sparse::parse_spmm_algorithm(algorithm);
    A.visit([&](const auto& matrix) -> py::object {
        using V = value_of<decltype(matrix)>;
        const auto b = laid_out_operand<V>(B, matrix->executor(), "B", false);
        auto c = laid_out_operand<V>(C, matrix->executor(), "C", true);
        options.b_layout = b.layout;
        options.c_layout = c.layout;
        const auto a = scalar_as<V>(alpha, "alpha");
        const auto s = scalar_as<V>(beta, "beta");
        const py::gil_scoped_release release;
        sparse::spmm(op, a, *matrix, b.dense, s, c.dense, options);
        return {};
    });
}

void sddmm(const py::object& alpha, const py::handle& X, const py::handle& Y,
           const py::object& beta, const PyCsr& S, const std::string& algorithm)
{
    sparse::SddmmOptions options;
    options.algorithm = sparse::parse_sddmm_algorithm(algorithm);
    S.visit([&](const auto& matrix) -> py::object {
        using V = value_of<decltype(matrix)>;
        const auto x = laid_out_operand<V>(X, matrix->executor(), "X", false);
        const auto y = laid_out_operand<V>(Y, matrix->executor(), "Y", false);
        options.x_layout = x.layout;
        options.y_layout = y.layout;
        const auto a = scalar_as<V>(alpha, "alpha");
        const auto b = scalar_as<V>(beta, "beta");
        const py::gil_scoped_release release;
        // The matrix is shared with Python, which sees the new values: it is updated in place.
        sparse::sddmm(a, x.dense, y.dense, b, *matrix, options);
        return {};
    });
}

void fusedmm(const std::string& edge, const PyCsr& A, const py::handle& X, const py::handle& Y,
             const py::handle& W, const py::handle& Z)
{
    const auto op = sparse::parse_edge_op(edge);
    A.visit([&](const auto& matrix) -> py::object {
        using V = value_of<decltype(matrix)>;
        if constexpr (is_complex_v<V>) {
            // Loom builds FusedMM for real types only: its sigmoid has no complex meaning.
            throw py::type_error("loom.fusedmm: the matrix has dtype " +
                                 numpy_name(scalar_type_of<V>()) + " (real value types only)");
        } else {
            const auto& exec = matrix->executor();
            const auto x = dense_operand<V>(X, exec, "X", false);
            const auto y = dense_operand<V>(Y, exec, "Y", false);
            const auto w = dense_operand<V>(W, exec, "W", false);
            auto z = dense_operand<V>(Z, exec, "Z", true);
            const py::gil_scoped_release release;
            sparse::fusedmm(op, *matrix, x, y, w, z);
            return {};
        }
    });
}

}  // namespace

void bind_sparse_dense(py::module_& m)
{
    m.def("_spmm", &spmm, py::arg("A"), py::arg("B"), py::arg("C"), py::arg("alpha"),
          py::arg("beta"), py::arg("mode"), py::arg("algorithm"));
    m.def("_sddmm", &sddmm, py::arg("alpha"), py::arg("X"), py::arg("Y"), py::arg("beta"),
          py::arg("S"), py::arg("algorithm"));
    m.def("_fusedmm", &fusedmm, py::arg("edge"), py::arg("A"), py::arg("X"), py::arg("Y"),
          py::arg("W"), py::arg("Z"));
    m.attr("spmm_algorithms") = names_of(sparse::SpmmAlgorithm{}).names();
    m.attr("sddmm_algorithms") = names_of(sparse::SddmmAlgorithm{}).names();
    m.attr("edge_ops") = names_of(sparse::EdgeOp{}).names();
}

}  // namespace loom::python
