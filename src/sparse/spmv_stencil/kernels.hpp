// Per-backend entry points of the stencil SpMV, declared once for every backend.
// spmv_stencil.cpp checks the arguments and dispatches; arguments arrive checked: shapes
// fit, one executor, y not overlapping x, alpha not zero, y not empty.
#pragma once

#include <vector>

#include "loom/base/executor.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/stencil.hpp"
#include "loom/sparse/spmv.hpp"
#include "base/dispatch.hpp"

namespace loom::sparse::stencil_detail {

inline bool transposes(Mode mode)
{
    return mode == Mode::transpose || mode == Mode::conj_transpose;
}
inline bool conjugates(Mode mode)
{
    return mode == Mode::conjugate || mode == Mode::conj_transpose;
}

/// The weights of op(A) per offset of A's stencil: op(A) is the stencil whose weight at
/// offset o is A's at -o for transposes (A^T(p, p + o) = A(p + o, p)), conjugated for
/// conjugating modes.
template <typename V, typename I>
std::vector<V> op_weights(const matrix::Stencil<V, I>& A, Mode mode)
{
    const auto& offsets = A.offsets();
    std::vector<V> result(offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        std::size_t from = i;
        if (transposes(mode)) {
            const matrix::StencilOffset mirrored{-offsets[i].dx, -offsets[i].dy, -offsets[i].dz};
            for (std::size_t j = 0; j < offsets.size(); ++j) {
                if (offsets[j] == mirrored) from = j;
            }
        }
        result[i] = conjugates(mode) ? loom::conj(A.weights()[from]) : A.weights()[from];
    }
    return result;
}

}  // namespace loom::sparse::stencil_detail

#define LOOM_DECLARE_SPMV_STENCIL_KERNELS(Exec)                                                \
    template <typename V, typename I>                                                          \
    void spmv_stencil(const Exec& exec, Mode mode, V alpha, const matrix::Stencil<V, I>& A,   \
                      const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)

#define LOOM_INSTANTIATE_SPMV_STENCIL_KERNELS(Exec, V, I)                                      \
    template void spmv_stencil(const Exec&, Mode, V, const matrix::Stencil<V, I>&,            \
                               const matrix::Dense<V>&, V, matrix::Dense<V>&);

LOOM_DECLARE_ON_EACH_BACKEND(loom::sparse, LOOM_DECLARE_SPMV_STENCIL_KERNELS)
