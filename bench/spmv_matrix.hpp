// A sparse matrix in the storage format chosen on the command line (csr, coo, ell, sellp or
// auto), ready for SpMV on one executor. Shared by `loom spmv` and `loom bench spmv`.
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "loom/base/error.hpp"
#include "loom/base/names.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/sparse/spmv.hpp"

namespace loom::bench {

enum class SpmvFormat { automatic, csr, coo, ell, sellp };

LOOM_NAME_TABLE(SpmvFormat, spmv_format_names, "format",
    {SpmvFormat::automatic, "auto", "CSR, whose kernel choice adapts to the rows", {"automatic"}},
    {SpmvFormat::csr, "csr", "compressed sparse rows"},
    {SpmvFormat::coo, "coo", "coordinates"},
    {SpmvFormat::ell, "ell", "ELLPACK"},
    {SpmvFormat::sellp, "sellp", "sliced ELLPACK"},
);

/// A name of spmv_format_names; BadInput otherwise.
SpmvFormat parse_spmv_format(const std::string& text);

template <typename V, typename I>
class SpmvMatrix {
public:
    using Variant =
        std::variant<matrix::Csr<V, I>, matrix::Coo<V, I>, matrix::Ell<V, I>, matrix::Sellp<V, I>>;

    /// A copied to exec and converted there to `format`. `algorithm` picks the CSR kernel;
    /// anything but automatic with another format is BadInput. `automatic` is CSR: its
    /// kernel choice already adapts to the row lengths, and no other format has been
    /// measured to beat it on a class of matrices that could be told apart up front.
    SpmvMatrix(const matrix::Csr<V, I>& A, std::shared_ptr<const Executor> exec, SpmvFormat format,
               sparse::SpmvAlgorithm algorithm = {})
    {
        if (format == SpmvFormat::automatic) format = SpmvFormat::csr;
        if (format != SpmvFormat::csr && algorithm != sparse::SpmvAlgorithm::automatic) {
            throw BadInput("loom::bench::SpmvMatrix",
                           std::string("an SpMV algorithm applies to the csr format only, not ") +
                               to_string(format));
        }
        options_.algorithm = algorithm;
        matrix::Csr<V, I> on_exec(std::move(exec), A);
        switch (format) {
        case SpmvFormat::coo: matrix_ = matrix::to_coo(on_exec); break;
        case SpmvFormat::ell: matrix_ = matrix::to_ell(on_exec); break;
        case SpmvFormat::sellp: matrix_ = matrix::to_sellp(on_exec); break;
        default: matrix_ = std::move(on_exec); break;
        }
    }

    /// y = alpha * op(A) * x + beta * y
    void apply(sparse::Mode mode, V alpha, const matrix::Dense<V>& x, V beta,
               matrix::Dense<V>& y) const
    {
        std::visit(
            [&](const auto& A) {
                if constexpr (std::is_same_v<std::decay_t<decltype(A)>, matrix::Csr<V, I>>) {
                    sparse::spmv(mode, alpha, A, x, beta, y, options_);
                } else {
                    sparse::spmv(mode, alpha, A, x, beta, y);
                }
            },
            matrix_);
    }

    dim2 size() const
    {
        return std::visit([](const auto& A) { return A.size(); }, matrix_);
    }

    /// The variant's alternatives follow the enum's order after `automatic`.
    SpmvFormat format() const noexcept { return static_cast<SpmvFormat>(matrix_.index() + 1); }

    /// The CSR kernel in use ("automatic" resolved), meaningful for the csr format.
    sparse::SpmvAlgorithm algorithm() const
    {
        const auto* csr = std::get_if<matrix::Csr<V, I>>(&matrix_);
        if (csr && options_.algorithm == sparse::SpmvAlgorithm::automatic) {
            return sparse::choose_spmv_algorithm(*csr);
        }
        return options_.algorithm;
    }

    /// "csr/row_vector", "csr/binned", "sellp", ...
    std::string name() const
    {
        std::string name = to_string(format());
        if (format() != SpmvFormat::csr) return name;
        return name + "/" + sparse::to_string(algorithm());
    }

private:
    Variant matrix_;
    sparse::SpmvOptions options_;
};

}  // namespace loom::bench
