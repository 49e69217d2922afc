// Reference fused Krylov steps: plain loops, the oracle for the other backends. The updates
// are the unfused kernels' arithmetic (y += a x), the reductions sum the rows in order.
#include "base/instantiate.hpp"
#include "blas/krylov/host_step.hpp"
#include "blas/krylov/kernels.hpp"
#include "blas/krylov/step.hpp"

namespace loom::blas::reference {

template <typename V>
void conj_dot2(const ReferenceExecutor&, const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,
               matrix::Dense<V>& out1, const matrix::Dense<V>& x2, const matrix::Dense<V>& y2,
               matrix::Dense<V>& out2)
{
    for (size_type j = 0; j < x1.cols(); ++j) {
        V sum1{};
        V sum2{};
        for (size_type i = 0; i < x1.rows(); ++i) {
            sum1 += loom::conj(x1.at(i, j)) * y1.at(i, j);
            sum2 += loom::conj(x2.at(i, j)) * y2.at(i, j);
        }
        out1.at(0, j) = sum1;
        out2.at(0, j) = sum2;
    }
}

template <typename V>
void cg_residual_step(const ReferenceExecutor&, const CgStepScalars<V>& s,
                      const matrix::Dense<V>& q, matrix::Dense<V>& r)
{
    for (size_type j = 0; j < q.cols(); ++j) {
        const V gate = s.gate->at(0, j);
        const V alpha = krylov::cg_alpha(gate, s.rho_old->at(0, j), s.pq->at(0, j));
        V sum{};
        for (size_type i = 0; i < q.rows(); ++i) {
            if (gate != V{0}) r.at(i, j) += -alpha * q.at(i, j);
            sum += loom::conj(r.at(i, j)) * r.at(i, j);
        }
        s.rr->at(0, j) = sum;
    }
}

template <typename V>
void cg_direction_step(const ReferenceExecutor&, const CgStepScalars<V>& s,
                       const matrix::Dense<V>& z, matrix::Dense<V>& p, matrix::Dense<V>& x)
{
    for (size_type j = 0; j < z.cols(); ++j) {
        const auto step = krylov::cg_column_step(s, j);
        if (!step.running) continue;
        for (size_type i = 0; i < z.rows(); ++i) {
            x.at(i, j) += step.alpha * p.at(i, j);
            p.at(i, j) = step.beta == V{0} ? z.at(i, j) : z.at(i, j) + step.beta * p.at(i, j);
        }
    }
}

}  // namespace loom::blas::reference

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, reference, ReferenceExecutor)
}  // namespace loom::blas
