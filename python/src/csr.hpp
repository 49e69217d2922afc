// loom.Csr: a CSR matrix of any built value and index type, held by Python. The C++ matrix
// is shared (solvers bound to it keep it), and may view memory that Python owns.
#pragma once

#include <variant>

#include "common.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::python {

template <typename V, typename I>
using CsrPtr = std::shared_ptr<matrix::Csr<V, I>>;

class PyCsr {
public:
    using Variant = std::variant<CsrPtr<float, int32>, CsrPtr<float, int64>,
                                 CsrPtr<double, int32>, CsrPtr<double, int64>,
                                 CsrPtr<std::complex<float>, int32>,
                                 CsrPtr<std::complex<float>, int64>,
                                 CsrPtr<std::complex<double>, int32>,
                                 CsrPtr<std::complex<double>, int64>>;

    template <typename V, typename I>
    explicit PyCsr(CsrPtr<V, I> matrix) : matrix_(std::move(matrix))
    {}

    /// Calls f(matrix) with the typed std::shared_ptr<matrix::Csr<V, I>>; f returns py::object.
    /// Only built types are ever held, so only their branches are instantiated.
    template <typename F>
    py::object visit(F&& f) const
    {
        return std::visit(
            [&](const auto& matrix) -> py::object {
                using M = typename std::decay_t<decltype(matrix)>::element_type;
                if constexpr (is_built_value<typename M::value_type>() &&
                              is_built_index<typename M::index_type>()) {
                    return f(matrix);
                } else {
                    throw std::logic_error("loom: a Csr of a type this build lacks");
                }
            },
            matrix_);
    }

    /// The matrix as Csr<V, I>; TypeError naming both types when it holds another.
    template <typename V, typename I>
    CsrPtr<V, I> as(const char* what) const
    {
        if (const auto* matrix = std::get_if<CsrPtr<V, I>>(&matrix_)) return *matrix;
        throw py::type_error(std::string(what) + " holds " + type_text() + ", expected " +
                             numpy_name(scalar_type_of<V>()) + " values and " +
                             numpy_name(scalar_type_of<I>()) + " indices");
    }

    /// "float64 values and int32 indices".
    std::string type_text() const;

private:
    Variant matrix_;
};

}  // namespace loom::python
