// Per-backend entry points of the fused Krylov steps (include/loom/blas/vector.hpp),
// declared once for every backend. krylov.cpp checks arguments and dispatches: vectors of
// one shape, every scalar row 1 x k, one executor.
#pragma once

#include <span>

#include "loom/base/executor.hpp"
#include "loom/blas/vector.hpp"
#include "loom/matrix/dense.hpp"
#include "base/dispatch.hpp"

#define LOOM_DECLARE_BLAS_KRYLOV_KERNELS(Exec)                                                \
    template <typename V>                                                                     \
    void conj_dot2(const Exec& exec, const matrix::Dense<V>& x1, const matrix::Dense<V>& y1,  \
                   matrix::Dense<V>& out1, const matrix::Dense<V>& x2,                        \
                   const matrix::Dense<V>& y2, matrix::Dense<V>& out2);                       \
    template <typename V>                                                                     \
    void multi_conj_dot(const Exec& exec, std::span<const matrix::Dense<V>* const> x,         \
                        const matrix::Dense<V>& y, matrix::Dense<V>& result);                 \
    template <typename V>                                                                     \
    void multi_axpy(const Exec& exec, const matrix::Dense<V>& alpha,                          \
                    std::span<const matrix::Dense<V>* const> x, matrix::Dense<V>& y);         \
    template <typename V>                                                                     \
    void cg_residual_step(const Exec& exec, const CgStepScalars<V>& s,                        \
                          const matrix::Dense<V>& q, matrix::Dense<V>& r);                    \
    template <typename V>                                                                     \
    void cg_direction_step(const Exec& exec, const CgStepScalars<V>& s,                       \
                           const matrix::Dense<V>& z, matrix::Dense<V>& p,                    \
                           matrix::Dense<V>& x);                                      \
    template <typename V>                                                                     \
    void bicgstab_direction_step(const Exec& exec, const BicgstabStepScalars<V>& s,           \
                                 const matrix::Dense<V>& r, const matrix::Dense<V>& v,        \
                                 matrix::Dense<V>& p, matrix::Dense<V>& r_tld);               \
    template <typename V>                                                                     \
    void bicgstab_half_step(const Exec& exec, const BicgstabStepScalars<V>& s,                \
                            const matrix::Dense<V>& v, matrix::Dense<V>& r);                  \
    template <typename V>                                                                     \
    void bicgstab_final_step(const Exec& exec, const BicgstabStepScalars<V>& s,               \
                             const matrix::Dense<V>& p_hat, const matrix::Dense<V>& s_hat,    \
                             const matrix::Dense<V>& t, const matrix::Dense<V>& r_tld,        \
                             matrix::Dense<V>& r, matrix::Dense<V>& x);                \
    template <typename V>                                                                     \
    void normalize(const Exec& exec, const matrix::Dense<V>& squares, matrix::Dense<V>& x)

#define LOOM_INSTANTIATE_BLAS_KRYLOV_KERNELS(ns, Exec, V)                                     \
    template void ns::conj_dot2(const Exec&, const matrix::Dense<V>&, const matrix::Dense<V>&, \
                                matrix::Dense<V>&, const matrix::Dense<V>&,                    \
                                const matrix::Dense<V>&, matrix::Dense<V>&);                   \
    template void ns::multi_conj_dot(const Exec&, std::span<const matrix::Dense<V>* const>,   \
                                     const matrix::Dense<V>&, matrix::Dense<V>&);             \
    template void ns::multi_axpy(const Exec&, const matrix::Dense<V>&,                        \
                                 std::span<const matrix::Dense<V>* const>, matrix::Dense<V>&); \
    template void ns::cg_residual_step(const Exec&, const CgStepScalars<V>&,                  \
                                       const matrix::Dense<V>&, matrix::Dense<V>&);            \
    template void ns::cg_direction_step(const Exec&, const CgStepScalars<V>&,                 \
                                        const matrix::Dense<V>&, matrix::Dense<V>&,            \
                                        matrix::Dense<V>&);                                    \
    template void ns::bicgstab_direction_step(const Exec&, const BicgstabStepScalars<V>&,     \
                                              const matrix::Dense<V>&, const matrix::Dense<V>&, \
                                              matrix::Dense<V>&, matrix::Dense<V>&);           \
    template void ns::bicgstab_half_step(const Exec&, const BicgstabStepScalars<V>&,          \
                                         const matrix::Dense<V>&, matrix::Dense<V>&);          \
    template void ns::bicgstab_final_step(const Exec&, const BicgstabStepScalars<V>&,         \
                                          const matrix::Dense<V>&, const matrix::Dense<V>&,    \
                                          const matrix::Dense<V>&, const matrix::Dense<V>&,    \
                                          matrix::Dense<V>&, matrix::Dense<V>&);              \
    template void ns::normalize(const Exec&, const matrix::Dense<V>&, matrix::Dense<V>&);

LOOM_DECLARE_ON_EACH_BACKEND(loom::blas, LOOM_DECLARE_BLAS_KRYLOV_KERNELS)
