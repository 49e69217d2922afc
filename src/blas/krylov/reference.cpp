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
void multi_conj_dot(const ReferenceExecutor&, std::span<const matrix::Dense<V>* const> x,
                    const matrix::Dense<V>& y, matrix::Dense<V>& result)
{
    const size_type k = y.cols();
    for (std::size_t v = 0; v < x.size(); ++v) {
        for (size_type j = 0; j < k; ++j) {
            V sum{};
            for (size_type i = 0; i < y.rows(); ++i) sum += loom::conj(x[v]->at(i, j)) * y.at(i, j);
            result.at(0, static_cast<size_type>(v) * k + j) = sum;
        }
    }
}

template <typename V>
void multi_axpy(const ReferenceExecutor&, const matrix::Dense<V>& alpha,
                std::span<const matrix::Dense<V>* const> x, matrix::Dense<V>& y)
{
    const size_type k = y.cols();
    for (std::size_t v = 0; v < x.size(); ++v) {
        for (size_type j = 0; j < k; ++j) {
            const V a = alpha.at(0, static_cast<size_type>(v) * k + j);
            for (size_type i = 0; i < y.rows(); ++i) y.at(i, j) += a * x[v]->at(i, j);
        }
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

template <typename V>
void bicgstab_direction_step(const ReferenceExecutor&, const BicgstabStepScalars<V>& s,
                             const matrix::Dense<V>& r, const matrix::Dense<V>& v,
                             matrix::Dense<V>& p, matrix::Dense<V>& r_tld)
{
    for (size_type j = 0; j < r.cols(); ++j) {
        const auto top = krylov::bicgstab_column_top(s, j);
        if (!top.goes_on) continue;
        const bool fresh = s.first || top.restarted;
        for (size_type i = 0; i < r.rows(); ++i) {
            if (top.restarted) r_tld.at(i, j) = r.at(i, j);
            // The unfused kernels' arithmetic: p += (-omega) v, then p = 1 r + beta p.
            p.at(i, j) = fresh ? r.at(i, j)
                               : r.at(i, j) + top.beta * (p.at(i, j) + -top.omega_prev * v.at(i, j));
        }
    }
}

template <typename V>
void bicgstab_half_step(const ReferenceExecutor&, const BicgstabStepScalars<V>& s,
                        const matrix::Dense<V>& v, matrix::Dense<V>& r)
{
    for (size_type j = 0; j < v.cols(); ++j) {
        const auto alpha = krylov::bicgstab_column_alpha(s, j);
        if (!alpha.usable) continue;
        for (size_type i = 0; i < v.rows(); ++i) r.at(i, j) += -alpha.value * v.at(i, j);
    }
}

template <typename V>
void bicgstab_final_step(const ReferenceExecutor&, const BicgstabStepScalars<V>& s,
                         const matrix::Dense<V>& p_hat, const matrix::Dense<V>& s_hat,
                         const matrix::Dense<V>& t, const matrix::Dense<V>& r_tld,
                         matrix::Dense<V>& r, matrix::Dense<V>& x)
{
    for (size_type j = 0; j < t.cols(); ++j) {
        const auto step = krylov::bicgstab_column_final(s, j);
        V rho{};
        V rr{};
        for (size_type i = 0; i < t.rows(); ++i) {
            if (step.alpha.usable) {
                // s_hat may be r itself: read before r changes.
                const V si = s_hat.at(i, j);
                x.at(i, j) += step.alpha.value * p_hat.at(i, j);
                if (step.omega.usable) {
                    x.at(i, j) += step.omega.value * si;
                    r.at(i, j) += -step.omega.value * t.at(i, j);
                }
            }
            rho += loom::conj(r_tld.at(i, j)) * r.at(i, j);
            rr += loom::conj(r.at(i, j)) * r.at(i, j);
        }
        s.rho->at(0, j) = rho;
        s.rr->at(0, j) = rr;
    }
}

template <typename V>
void normalize(const ReferenceExecutor&, const matrix::Dense<V>& squares, matrix::Dense<V>& x)
{
    for (size_type j = 0; j < x.cols(); ++j) {
        const V inv = krylov::inverse_norm(squares.at(0, j));
        for (size_type i = 0; i < x.rows(); ++i) x.at(i, j) *= inv;
    }
}

}  // namespace loom::blas::reference

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS, reference, ReferenceExecutor)
}  // namespace loom::blas
