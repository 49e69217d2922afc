// Solvers from a JSON configuration (loom/solver/config.hpp) bound to a loom.Csr or to a
// Python callable wrapped as a Loom LinOp, with the outcome and residual history of each solve.
#include <variant>

#include <pybind11/stl.h>

#include "csr.hpp"
#include "loom/blas/vector.hpp"
#include "loom/log/loggers.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/solver.hpp"

namespace loom::python {
namespace {

/// A Dense as an array for Python, without a copy: (n,) for one column, else (n, k).
template <typename V>
py::object export_dense(matrix::Dense<V>& x)
{
    const auto item = int64(sizeof(V));
    if (x.cols() == 1) {
        return export_buffer({}, x.data(), scalar_type_of<V>(), {x.rows()}, *x.executor(),
                             {x.stride() * item});
    }
    return export_buffer({}, x.data(), scalar_type_of<V>(), {x.rows(), x.cols()}, *x.executor(),
                         {x.stride() * item, item});
}

/// A Python callable y = f(x) as a Loom operator of the given shape. x is handed over as a
/// view of Loom's memory that is valid during the call only; f returns an array of x's kind.
template <typename V>
class PythonOperator final : public LinOp<V> {
public:
    PythonOperator(std::shared_ptr<const Executor> exec, dim2 size, py::object matvec)
        : LinOp<V>(std::move(exec), size), matvec_(std::move(matvec))
    {}
    ~PythonOperator() override
    {
        if (!Py_IsInitialized()) {  // the interpreter is gone: leak the callable
            matvec_.release();
            return;
        }
        const py::gil_scoped_acquire gil;
        matvec_ = py::object();
    }

protected:
    void apply_impl(const matrix::Dense<V>& b, matrix::Dense<V>& x) const override
    {
        const py::gil_scoped_acquire gil;
        auto input = const_cast<matrix::Dense<V>&>(b).columns(0, b.cols());
        const py::object result = matvec_(export_dense(input));
        const auto buf = describe(result, "the operator's result");
        const bool fits = buf.shape.size() == 1 ? x.cols() == 1 && buf.shape[0] == x.rows()
                                                : buf.shape.size() == 2 &&
                                                      buf.shape[0] == x.rows() &&
                                                      buf.shape[1] == x.cols();
        if (!fits) {
            throw DimensionMismatch("loom.LinearOperator",
                                    "the Python operator returned an array of the wrong shape");
        }
        const auto values = dense_view<V>(
            buf, executor_for(buf, this->executor(), "the operator's result"),
            "the operator's result", false);
        x = values;  // copies into x's memory (a move would make x view the result instead)
    }
    void apply_impl(V alpha, const matrix::Dense<V>& b, V beta, matrix::Dense<V>& x) const override
    {
        matrix::Dense<V> product(this->executor(), x.size());
        apply_impl(b, product);
        blas::axpby(alpha, product, beta, x);
    }

private:
    py::object matvec_;
};

/// loom.LinearOperator's core: a Python callable as a Loom LinOp of one value type.
class PyOperator {
public:
    using Variant = std::variant<std::shared_ptr<PythonOperator<float>>,
                                 std::shared_ptr<PythonOperator<double>>,
                                 std::shared_ptr<PythonOperator<std::complex<float>>>,
                                 std::shared_ptr<PythonOperator<std::complex<double>>>>;

    PyOperator(int64 rows, int64 cols, const py::dtype& dtype, py::object matvec,
               const std::shared_ptr<Executor>& exec)
    {
        const std::shared_ptr<const Executor> where = exec ? exec : default_host_executor();
        with_value_type(type_of(dtype), "the operator",
                        [&]<typename V>(std::type_identity<V>) {
                            op_ = std::make_shared<PythonOperator<V>>(where, dim2{rows, cols},
                                                                      std::move(matvec));
                            return 0;
                        });
    }
    const Variant& op() const noexcept { return op_; }

private:
    Variant op_;
};

/// A generated solver of any built value type, with a convergence logger attached.
class AnySolver {
public:
    virtual ~AnySolver() = default;
    /// x = A^-1 b with x's values as the initial guess (unless the config says "zero").
    virtual void solve(const py::handle& b, const py::handle& x) = 0;
    virtual py::dict result() const = 0;
    virtual py::object dtype() const = 0;
    virtual py::tuple shape() const = 0;
    virtual std::string name() const = 0;
};

template <typename V>
class TypedSolver final : public AnySolver {
public:
    TypedSolver(std::shared_ptr<const LinOp<V>> system,
                const std::shared_ptr<const LinOpFactory<V>>& factory)
        : system_(std::move(system))
    {
        op_ = factory->generate(system_);
        solver_ = dynamic_cast<const solver::IterativeSolver<V>*>(op_.get());
        if (solver_ == nullptr) {
            throw BadInput("loom.solver", "the configuration does not describe an iterative solver");
        }
        op_->add_logger(history_);
    }

    void solve(const py::handle& b, const py::handle& x) override
    {
        const auto b_view = dense_operand<V>(b, op_->executor(), "b", false);
        auto x_view = dense_operand<V>(x, op_->executor(), "x", true);
        const py::gil_scoped_release release;
        op_->apply(b_view, x_view);
    }

    py::dict result() const override
    {
        const auto& r = solver_->result();
        py::dict d;
        d["reason"] = stop::to_string(r.reason);
        d["detail"] = r.detail;
        d["converged"] = r.converged();
        d["iterations"] = r.iterations;
        d["residual_norms"] = r.residual_norms;
        d["initial_residual_norms"] = r.initial_residual_norms;
        d["rhs_norms"] = r.rhs_norms;
        d["restarts"] = r.restarts;
        d["seconds"] = r.seconds;
        d["message"] = r.message();
        d["residual_history"] = history_->residual_history();
        return d;
    }

    py::object dtype() const override { return py::dtype(numpy_name(scalar_type_of<V>())); }
    py::tuple shape() const override
    {
        return py::make_tuple(system_->size().rows, system_->size().cols);
    }
    std::string name() const override { return solver_->name(); }

private:
    std::shared_ptr<const LinOp<V>> system_;
    std::shared_ptr<LinOp<V>> op_;
    const solver::IterativeSolver<V>* solver_ = nullptr;
    std::shared_ptr<log::ConvergenceLogger> history_ = std::make_shared<log::ConvergenceLogger>();
};

template <typename V, typename I>
std::unique_ptr<AnySolver> make_typed(std::shared_ptr<const LinOp<V>> system,
                                      const std::string& config)
{
    const auto exec = system->executor();
    const py::gil_scoped_release release;
    const auto factory = solver::from_config<V, I>(config, exec);
    return std::make_unique<TypedSolver<V>>(std::move(system), factory);
}

/// A solver for `system` (a loom.Csr or a loom.LinearOperator's core) from a JSON config.
std::unique_ptr<AnySolver> make_solver(const py::handle& system, const std::string& config)
{
    if (py::isinstance<PyCsr>(system)) {
        std::unique_ptr<AnySolver> made;
        system.cast<const PyCsr&>().visit([&](const auto& matrix) {
            using M = typename std::decay_t<decltype(*matrix)>;
            made = make_typed<typename M::value_type, typename M::index_type>(matrix, config);
            return py::object();
        });
        return made;
    }
    if (py::isinstance<PyOperator>(system)) {
        return std::visit(
            [&](const auto& op) -> std::unique_ptr<AnySolver> {
                using V = typename std::decay_t<decltype(*op)>::value_type;
                if constexpr (is_built_value<V>()) {
                    return make_typed<V, default_index>(op, config);
                } else {
                    throw std::logic_error("loom: an operator of a type this build lacks");
                }
            },
            system.cast<const PyOperator&>().op());
    }
    throw py::type_error("the system matrix must be a loom.Csr or a loom.LinearOperator");
}

}  // namespace

void bind_solvers(py::module_& m)
{
    py::class_<PyOperator>(m, "_Operator", "A Python callable as a Loom operator")
        .def(py::init<int64, int64, const py::dtype&, py::object, const std::shared_ptr<Executor>&>(),
             py::arg("rows"), py::arg("cols"), py::arg("dtype"), py::arg("matvec"),
             py::arg("exec") = nullptr);
    py::class_<AnySolver>(m, "_Solver", "A generated iterative solver")
        .def(py::init(&make_solver), py::arg("system"), py::arg("config"))
        .def("solve", &AnySolver::solve, py::arg("b"), py::arg("x"))
        .def_property_readonly("result", &AnySolver::result)
        .def_property_readonly("dtype", &AnySolver::dtype)
        .def_property_readonly("shape", &AnySolver::shape)
        .def_property_readonly("name", &AnySolver::name);
    // For python/tools/diagnose_runtime.py: the C++ SolveResult::message() (an
    // std::ostringstream in libloom; it crashed on a machine where libloom's static libstdc++
    // merged its locale ids with SciPy's shared one) of a converged one-column solve, to
    // find out in a child process whether libloom's iostreams work beside the libraries
    // imported before it.
    m.def("_libloom_message_probe", [] {
        solver::SolveResult r;
        r.reason = stop::Reason::converged;
        r.iterations = 3;
        r.columns = {stop::ColumnStatus{stop::Reason::converged, 3, ""}};
        r.residual_norms = {1e-9};
        r.rhs_norms = {1};
        return r.message();
    });
    auto names = [](const auto& table) { return table.names(); };
    m.attr("solver_names") = names(names_of(solver::SolverKind{}));
    m.attr("preconditioner_names") = names(names_of(solver::PreconditionerKind{}));
}

}  // namespace loom::python
