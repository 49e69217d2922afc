// Argument checks and backend dispatch of the fused Krylov steps.
#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "blas/krylov/kernels.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"

namespace loom::blas {
namespace {

template <typename V>
void check_vector(const char* where, const matrix::Dense<V>& first, const matrix::Dense<V>& v,
                  const char* name)
{
    if (v.size() != first.size()) {
        throw DimensionMismatch(where, name, v.size(), "the first vector", first.size(),
                                "the vectors of a step must have one shape");
    }
    if (!v.executor() || !first.executor() || !v.executor()->same_memory_as(*first.executor())) {
        throw BadInput(where, std::string(name) + " lives on another executor than the first vector");
    }
}

/// A scalar row of a step: present, 1 x (columns of the vectors), on their executor.
template <typename V>
void check_scalars(const char* where, const matrix::Dense<V>& vectors, const matrix::Dense<V>* s,
                   const char* name)
{
    if (!s) throw BadInput(where, std::string(name) + " is not given");
    if (s->rows() != 1 || s->cols() != vectors.cols()) {
        throw DimensionMismatch(where, name, s->size(), "the vectors", vectors.size(),
                                "a step's scalars are 1 x (columns of the vectors)");
    }
    if (!s->executor() || !s->executor()->same_memory_as(*vectors.executor())) {
        throw BadInput(where, std::string(name) + " lives on another executor than the vectors");
    }
}

}  // namespace

template <typename V>
void conj_dot2(const matrix::Dense<V>& x1, const matrix::Dense<V>& y1, matrix::Dense<V>& out1,
               const matrix::Dense<V>& x2, const matrix::Dense<V>& y2, matrix::Dense<V>& out2)
{
    constexpr const char* where = "loom::blas::conj_dot2";
    check_vector(where, x1, y1, "y1");
    check_vector(where, x1, x2, "x2");
    check_vector(where, x1, y2, "y2");
    check_scalars(where, x1, &out1, "out1");
    check_scalars(where, x1, &out2, "out2");
    LOOM_RUN_KERNEL(where, *x1.executor(), conj_dot2, x1, y1, out1, x2, y2, out2);
}

template <typename V>
void cg_residual_step(const CgStepScalars<V>& s, const matrix::Dense<V>& q, matrix::Dense<V>& r)
{
    constexpr const char* where = "loom::blas::cg_residual_step";
    check_vector(where, q, r, "r");
    check_scalars(where, q, s.gate, "gate");
    check_scalars(where, q, s.rho_old, "rho_old");
    check_scalars(where, q, s.pq, "pq");
    check_scalars<V>(where, q, s.rr, "rr");
    LOOM_RUN_KERNEL(where, *q.executor(), cg_residual_step, s, q, r);
}

template <typename V>
void cg_direction_step(const CgStepScalars<V>& s, const matrix::Dense<V>& z, matrix::Dense<V>& p,
                       matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::blas::cg_direction_step";
    check_vector(where, z, p, "p");
    check_vector(where, z, x, "x");
    check_scalars(where, z, s.gate, "gate");
    check_scalars(where, z, s.rho_old, "rho_old");
    check_scalars(where, z, s.pq, "pq");
    check_scalars<V>(where, z, s.rr, "rr");
    check_scalars(where, z, s.rho_new, "rho_new");
    if (s.qz) check_scalars(where, z, s.qz, "qz");
    check_scalars(where, z, s.threshold, "threshold");
    check_scalars<V>(where, z, s.gate_new, "gate_new");
    LOOM_RUN_KERNEL(where, *z.executor(), cg_direction_step, s, z, p, x);
}

/// The rows of a BiCGSTAB step that every step reads: present, 1 x k, on the vectors' executor.
template <typename V>
void check_bicgstab_scalars(const char* where, const matrix::Dense<V>& vectors,
                            const BicgstabStepScalars<V>& s)
{
    check_scalars(where, vectors, s.gate_prev, "gate_prev");
    check_scalars(where, vectors, s.rho_prev, "rho_prev");
    check_scalars(where, vectors, s.rr_prev, "rr_prev");
    check_scalars(where, vectors, s.rho_old_prev, "rho_old_prev");
    check_scalars(where, vectors, s.sigma_prev, "sigma_prev");
    check_scalars(where, vectors, s.tt_prev, "tt_prev");
    check_scalars(where, vectors, s.ts_prev, "ts_prev");
    check_scalars(where, vectors, s.restarts_prev, "restarts_prev");
    check_scalars(where, vectors, s.threshold, "threshold");
    check_scalars<V>(where, vectors, s.gate, "gate");
    check_scalars<V>(where, vectors, s.rho_old, "rho_old");
    check_scalars<V>(where, vectors, s.restarts, "restarts");
}

template <typename V>
void bicgstab_direction_step(const BicgstabStepScalars<V>& s, const matrix::Dense<V>& r,
                             const matrix::Dense<V>& v, matrix::Dense<V>& p,
                             matrix::Dense<V>& r_tld)
{
    constexpr const char* where = "loom::blas::bicgstab_direction_step";
    check_vector(where, r, v, "v");
    check_vector(where, r, p, "p");
    check_vector(where, r, r_tld, "r_tld");
    check_bicgstab_scalars(where, r, s);
    LOOM_RUN_KERNEL(where, *r.executor(), bicgstab_direction_step, s, r, v, p, r_tld);
}

template <typename V>
void bicgstab_half_step(const BicgstabStepScalars<V>& s, const matrix::Dense<V>& v,
                        matrix::Dense<V>& r)
{
    constexpr const char* where = "loom::blas::bicgstab_half_step";
    check_vector(where, v, r, "r");
    check_scalars<V>(where, v, s.gate, "gate");
    check_scalars<V>(where, v, s.rho_old, "rho_old");
    check_scalars(where, v, s.sigma, "sigma");
    check_scalars<V>(where, v, s.gate_half, "gate_half");
    LOOM_RUN_KERNEL(where, *v.executor(), bicgstab_half_step, s, v, r);
}

template <typename V>
void bicgstab_final_step(const BicgstabStepScalars<V>& s, const matrix::Dense<V>& p_hat,
                         const matrix::Dense<V>& s_hat, const matrix::Dense<V>& t,
                         const matrix::Dense<V>& r_tld, matrix::Dense<V>& r, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::blas::bicgstab_final_step";
    check_vector(where, t, p_hat, "p_hat");
    check_vector(where, t, s_hat, "s_hat");
    check_vector(where, t, r_tld, "r_tld");
    check_vector(where, t, r, "r");
    check_vector(where, t, x, "x");
    check_scalars<V>(where, t, s.gate_half, "gate_half");
    check_scalars<V>(where, t, s.rho_old, "rho_old");
    check_scalars(where, t, s.sigma, "sigma");
    check_scalars(where, t, s.tt, "tt");
    check_scalars(where, t, s.ts, "ts");
    check_scalars<V>(where, t, s.rho, "rho");
    check_scalars<V>(where, t, s.rr, "rr");
    LOOM_RUN_KERNEL(where, *t.executor(), bicgstab_final_step, s, p_hat, s_hat, t, r_tld, r, x);
}

template <typename V>
void normalize(const matrix::Dense<V>& squares, matrix::Dense<V>& x)
{
    constexpr const char* where = "loom::blas::normalize";
    check_scalars(where, x, &squares, "squares");
    LOOM_RUN_KERNEL(where, *x.executor(), normalize, squares, x);
}

#define LOOM_INSTANTIATE_BLAS_KRYLOV(V)                                                       \
    template void conj_dot2(const matrix::Dense<V>&, const matrix::Dense<V>&,                 \
                            matrix::Dense<V>&, const matrix::Dense<V>&,                        \
                            const matrix::Dense<V>&, matrix::Dense<V>&);                       \
    template void cg_residual_step(const CgStepScalars<V>&, const matrix::Dense<V>&,           \
                                   matrix::Dense<V>&);                                         \
    template void cg_direction_step(const CgStepScalars<V>&, const matrix::Dense<V>&,          \
                                    matrix::Dense<V>&, matrix::Dense<V>&);                 \
    template void bicgstab_direction_step(const BicgstabStepScalars<V>&,                       \
                                          const matrix::Dense<V>&, const matrix::Dense<V>&,    \
                                          matrix::Dense<V>&, matrix::Dense<V>&);               \
    template void bicgstab_half_step(const BicgstabStepScalars<V>&, const matrix::Dense<V>&,   \
                                     matrix::Dense<V>&);                                       \
    template void bicgstab_final_step(const BicgstabStepScalars<V>&, const matrix::Dense<V>&,  \
                                      const matrix::Dense<V>&, const matrix::Dense<V>&,        \
                                      const matrix::Dense<V>&, matrix::Dense<V>&,              \
                                      matrix::Dense<V>&);                                      \
    template void normalize(const matrix::Dense<V>&, matrix::Dense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BLAS_KRYLOV)

}  // namespace loom::blas
