// Sequential stencil SpMV, the oracle: straight from the definition of the operator (every
// point, every neighbour inside the box), without the interior/boundary split and without
// the boundary CSR that the other backends use.
#include "base/instantiate.hpp"
#include "sparse/spmv_stencil/kernels.hpp"

namespace loom::sparse::reference {

template <typename V, typename I>
void spmv_stencil(const ReferenceExecutor&, Mode mode, V alpha, const matrix::Stencil<V, I>& A,
                  const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    for (size_type i = 0; i < y.rows(); ++i) {
        for (size_type j = 0; j < y.cols(); ++j) {
            y.at(i, j) = beta == V{0} ? V{0} : beta * y.at(i, j);
        }
    }
    const auto& box = A.box();
    const bool transposed = stencil_detail::transposes(mode);
    const bool conjugated = stencil_detail::conjugates(mode);
    const auto inside = [&](size_type px, size_type py, size_type pz) {
        return px >= 0 && px < box.nx && py >= 0 && py < box.ny && pz >= 0 && pz < box.nz;
    };
    for (size_type pz = 0; pz < box.nz; ++pz) {
        for (size_type py = 0; py < box.ny; ++py) {
            for (size_type px = 0; px < box.nx; ++px) {
                const size_type p = (pz * box.ny + py) * box.nx + px;
                for (std::size_t i = 0; i < A.offsets().size(); ++i) {
                    const auto& o = A.offsets()[i];
                    if (!inside(px + o.dx, py + o.dy, pz + o.dz)) continue;
                    const size_type q = ((pz + o.dz) * box.ny + py + o.dy) * box.nx + px + o.dx;
                    // A(p, q) = weight of o; op(A) puts it at (q, p) when transposing.
                    const V a = alpha * (conjugated ? loom::conj(A.weights()[i]) : A.weights()[i]);
                    const size_type out = transposed ? q : p;
                    const size_type in = transposed ? p : q;
                    for (size_type j = 0; j < y.cols(); ++j) y.at(out, j) += a * x.at(in, j);
                }
            }
        }
    }
}

#define LOOM_INSTANTIATE_SPMV_STENCIL_REFERENCE(V, I) \
    LOOM_INSTANTIATE_SPMV_STENCIL_KERNELS(ReferenceExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_STENCIL_REFERENCE)

}  // namespace loom::sparse::reference
