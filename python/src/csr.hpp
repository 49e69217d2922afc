// loom.Csr, loom.Coo, loom.Ell and loom.Sellp: a sparse matrix of any built value and index
// type, held by Python.
// The C++ matrix is shared (solvers bound to it keep it), and may view memory that Python
// owns.
#pragma once

#include <variant>

#include "common.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"

namespace loom::python {

template <template <typename, typename> class Format>
class PySparse {
public:
    template <typename V, typename I>
    using Ptr = std::shared_ptr<Format<V, I>>;
    using Variant = std::variant<Ptr<float, int32>, Ptr<float, int64>, Ptr<double, int32>,
                                 Ptr<double, int64>, Ptr<std::complex<float>, int32>,
                                 Ptr<std::complex<float>, int64>, Ptr<std::complex<double>, int32>,
                                 Ptr<std::complex<double>, int64>>;

    template <typename V, typename I>
    explicit PySparse(Ptr<V, I> matrix) : matrix_(std::move(matrix))
    {}

    /// Calls f(matrix) with the typed std::shared_ptr<Format<V, I>>; f returns py::object.
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
                    throw std::logic_error("loom: a matrix of a type this build lacks");
                }
            },
            matrix_);
    }

    /// The matrix as Format<V, I>; TypeError naming both types when it holds another.
    template <typename V, typename I>
    Ptr<V, I> as(const char* what) const
    {
        if (const auto* matrix = std::get_if<Ptr<V, I>>(&matrix_)) return *matrix;
        throw py::type_error(std::string(what) + " holds " + type_text() + ", expected " +
                             numpy_name(scalar_type_of<V>()) + " values and " +
                             numpy_name(scalar_type_of<I>()) + " indices");
    }

    /// "float64 values and int32 indices".
    std::string type_text() const
    {
        return std::visit(
            [](const auto& matrix) {
                using M = typename std::decay_t<decltype(matrix)>::element_type;
                return numpy_name(scalar_type_of<typename M::value_type>()) + " values and " +
                       numpy_name(scalar_type_of<typename M::index_type>()) + " indices";
            },
            matrix_);
    }

private:
    Variant matrix_;
};

using PyCsr = PySparse<matrix::Csr>;
using PyCoo = PySparse<matrix::Coo>;
using PyEll = PySparse<matrix::Ell>;
using PySellp = PySparse<matrix::Sellp>;

template <typename V, typename I>
using CsrPtr = PyCsr::Ptr<V, I>;

}  // namespace loom::python
