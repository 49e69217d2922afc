// The batched dense front-level calls (loom/batched/front.hpp) on (batch, n, m) arrays, in
// place: the Python layer decides what is copied first.
#include <pybind11/stl.h>

#include "common.hpp"
#include "loom/batched/front.hpp"

namespace loom::python {
namespace {

/// A (batch, n, m) array as a BatchDense view, or a (batch, n) one as a batch of n x 1
/// columns. Rows and matrices evenly spaced, columns contiguous; ValueError otherwise.
template <typename V>
matrix::BatchDense<V> batch_view(const Buffer& buf, std::shared_ptr<const Executor> exec,
                                 const char* what)
{
    if (buf.type != scalar_type_of<V>()) {
        throw py::type_error(std::string(what) + " has dtype " + numpy_name(buf.type) +
                             ", expected " + numpy_name(scalar_type_of<V>()));
    }
    if (buf.readonly) throw py::value_error(std::string(what) + " is read-only");
    const auto item = int64(sizeof(V));
    const auto dims = buf.shape.size();
    if (dims != 2 && dims != 3) {
        throw py::value_error(std::string(what) + " must be (batch, n, m) or (batch, n)");
    }
    const int64 count = buf.shape[0], rows = buf.shape[1], cols = dims == 3 ? buf.shape[2] : 1;
    // A (batch, n) array is a batch of columns: its rows are its elements.
    int64 batch_stride = buf.strides[0], row_stride = buf.strides[1];
    int64 col_stride = dims == 3 ? buf.strides[2] : item;
    // Strides of extents 0 and 1 are never followed (NumPy gives empty arrays zero strides).
    const bool empty = count * rows * cols == 0;
    if (cols <= 1 || empty) col_stride = item;
    if (rows <= 1 || empty) row_stride = cols * item;
    if (count <= 1 || empty) batch_stride = rows * row_stride;
    if (col_stride != item || row_stride % item != 0 || batch_stride % item != 0 ||
        row_stride < cols * item || batch_stride < rows * row_stride) {
        throw py::value_error(std::string(what) +
                              " is not laid out as matrices of evenly spaced rows with "
                              "contiguous columns (pass a C-ordered copy)");
    }
    return matrix::BatchDense<V>::view(std::move(exec), count, {rows, cols}, row_stride / item,
                                       batch_stride / item, static_cast<V*>(buf.data));
}

/// What a batched call runs on: A's memory, exec when given.
struct Operand {
    Buffer buf;
    std::shared_ptr<const Executor> exec;
};

Operand operand(const py::handle& object, const std::shared_ptr<Executor>& exec, const char* what)
{
    auto buf = describe(object, what);
    auto where = executor_for(buf, exec, what);
    return {std::move(buf), std::move(where)};
}

/// Waits for a batched call's work where the caller's stream does not order it (the batch
/// views hold no keep-alive).
void finish(const Executor& exec)
{
    if (runs_on_own_stream(exec)) exec.synchronize();
}

template <typename T>
py::object owned(Array<T>&& array)
{
    auto held = std::make_shared<Array<T>>(std::move(array));
    return export_array(held, *held);
}

Array<int32> pivot_view(const py::handle& pivots, const std::shared_ptr<const Executor>& exec)
{
    const auto buf = describe(pivots, "pivots");
    if (buf.type != scalar_type_of<int32>() || buf.shape.size() != 1 ||
        (buf.shape[0] > 1 && buf.strides[0] != 4)) {
        throw py::type_error("pivots must be a contiguous 1-D int32 array (from getrf)");
    }
    return Array<int32>::view(executor_for(buf, exec, "pivots"), buf.shape[0],
                              static_cast<int32*>(buf.data));  // for the call only
}

/// Calls f(std::type_identity<V>) for A's value type.
template <typename F>
py::object with_values_of(const Operand& a, const char* what, F&& f)
{
    return with_value_type(a.buf.type, what, std::forward<F>(f));
}

blas::Uplo uplo(bool lower) { return lower ? blas::Uplo::lower : blas::Uplo::upper; }

}  // namespace

void bind_batched(py::module_& m)
{
    auto b = m.def_submodule("_batched", "front-level batched calls, in place");
    b.def("gemm", [](const py::object& alpha, const py::handle& A, const py::handle& B,
                     const py::object& beta, const py::handle& C, const std::string& op_a,
                     const std::string& op_b, const std::string& launch,
                     const std::shared_ptr<Executor>& exec) {
        const auto c = operand(C, exec, "C");
        return with_values_of(c, "C", [&]<typename V>(std::type_identity<V>) {
            const auto a = batch_view<V>(describe(A, "A"), c.exec, "A");
            const auto bb = batch_view<V>(describe(B, "B"), c.exec, "B");
            auto cc = batch_view<V>(c.buf, c.exec, "C");
            const auto x = scalar_as<V>(alpha, "alpha"), y = scalar_as<V>(beta, "beta");
            const auto oa = names_of(blas::Op{}).parse(op_a, "loom.batched.gemm");
            const auto ob = names_of(blas::Op{}).parse(op_b, "loom.batched.gemm");
            const auto how = batched::parse_launch(launch);
            const py::gil_scoped_release release;
            batched::gemm(oa, ob, x, a, bb, y, cc, how);
            finish(*c.exec);
            return py::none().cast<py::object>();
        });
    });
    b.def("getrf", [](const py::handle& A, const std::string& launch,
                      const std::shared_ptr<Executor>& exec) {
        const auto a = operand(A, exec, "A");
        return with_values_of(a, "A", [&]<typename V>(std::type_identity<V>) {
            auto aa = batch_view<V>(a.buf, a.exec, "A");
            Array<int32> pivots, info;
            {
                const py::gil_scoped_release release;
                batched::getrf(aa, pivots, info, batched::parse_launch(launch));
                finish(*a.exec);
            }
            return py::object(py::make_tuple(owned(std::move(pivots)), owned(std::move(info))));
        });
    });
    b.def("getrs", [](const py::handle& LU, const py::handle& pivots, const py::handle& B,
                      const std::string& op, const std::string& launch,
                      const std::shared_ptr<Executor>& exec) {
        const auto lu = operand(LU, exec, "LU");
        return with_values_of(lu, "LU", [&]<typename V>(std::type_identity<V>) {
            const auto factors = batch_view<V>(lu.buf, lu.exec, "LU");
            const auto piv = pivot_view(pivots, lu.exec);
            auto bb = batch_view<V>(describe(B, "B"), lu.exec, "B");
            const auto how = names_of(blas::Op{}).parse(op, "loom.batched.getrs");
            const py::gil_scoped_release release;
            batched::getrs(how, factors, piv, bb, batched::parse_launch(launch));
            finish(*lu.exec);
            return py::none().cast<py::object>();
        });
    });
    b.def("gesv", [](const py::handle& A, const py::handle& B, const std::string& launch,
                     const std::shared_ptr<Executor>& exec) {
        const auto a = operand(A, exec, "A");
        return with_values_of(a, "A", [&]<typename V>(std::type_identity<V>) {
            auto aa = batch_view<V>(a.buf, a.exec, "A");
            auto bb = batch_view<V>(describe(B, "B"), a.exec, "B");
            Array<int32> pivots, info;
            {
                const py::gil_scoped_release release;
                batched::gesv(aa, pivots, bb, info, batched::parse_launch(launch));
                finish(*a.exec);
            }
            return py::object(py::make_tuple(owned(std::move(pivots)), owned(std::move(info))));
        });
    });
    b.def("potrf", [](const py::handle& A, bool lower, const std::string& launch,
                      const std::shared_ptr<Executor>& exec) {
        const auto a = operand(A, exec, "A");
        return with_values_of(a, "A", [&]<typename V>(std::type_identity<V>) {
            auto aa = batch_view<V>(a.buf, a.exec, "A");
            Array<int32> info;
            {
                const py::gil_scoped_release release;
                batched::potrf(uplo(lower), aa, info, batched::parse_launch(launch));
                finish(*a.exec);
            }
            return owned(std::move(info));
        });
    });
    b.def("potrs", [](const py::handle& A, const py::handle& B, bool lower,
                      const std::string& launch, const std::shared_ptr<Executor>& exec) {
        const auto a = operand(A, exec, "A");
        return with_values_of(a, "A", [&]<typename V>(std::type_identity<V>) {
            const auto aa = batch_view<V>(a.buf, a.exec, "A");
            auto bb = batch_view<V>(describe(B, "B"), a.exec, "B");
            const py::gil_scoped_release release;
            batched::potrs(uplo(lower), aa, bb, batched::parse_launch(launch));
            finish(*a.exec);
            return py::none().cast<py::object>();
        });
    });
}

}  // namespace loom::python
