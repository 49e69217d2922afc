// Argument checks and backend dispatch of the fused Krylov steps.
#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "blas/krylov/kernels.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "sparse/spmv/checks.hpp"

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

/// A multi-vector operation's coefficient or result row: 1 x (count k), on y's executor.
template <typename V>
void check_multi_row(const char* where, const matrix::Dense<V>& y, size_type count,
                     const matrix::Dense<V>& row, const char* name)
{
    if (row.rows() != 1 || row.cols() != count * y.cols()) {
        throw DimensionMismatch(where, name, row.size(), "1 x (vectors * columns of y)",
                                dim2{1, count * y.cols()},
                                "one value per vector and column (" + std::to_string(count) +
                                    " vectors)");
    }
    if (!row.executor() || !y.executor() || !row.executor()->same_memory_as(*y.executor())) {
        throw BadInput(where, std::string(name) + " lives on another executor than y");
    }
}

/// Every x_i present and shaped as y, on y's executor; with `disjoint`, none shares memory
/// with y (an update of y reads them all).
template <typename V>
void check_multi_vectors(const char* where, std::span<const matrix::Dense<V>* const> x,
                         const matrix::Dense<V>& y, bool disjoint)
{
    for (std::size_t i = 0; i < x.size(); ++i) {
        const auto name = "x[" + std::to_string(i) + "]";
        if (!x[i]) throw BadInput(where, name + " is null");
        if (x[i]->size() != y.size()) {
            throw DimensionMismatch(where, name.c_str(), x[i]->size(), "y", y.size(),
                                    "every vector must have y's shape");
        }
        if (!x[i]->executor() || !y.executor() ||
            !x[i]->executor()->same_memory_as(*y.executor())) {
            throw BadInput(where, name + " lives on another executor than y");
        }
        if (disjoint && sparse::spmv_checks::overlap(*x[i], y)) {
            throw BadInput(where, name + " shares elements with y, which the update writes");
        }
    }
}

}  // namespace

template <typename V>
void multi_conj_dot(std::span<const matrix::Dense<V>* const> x, const matrix::Dense<V>& y,
                    matrix::Dense<V>& result)
{
    constexpr const char* where = "loom::blas::multi_conj_dot";
    check_multi_vectors(where, x, y, false);
    check_multi_row(where, y, static_cast<size_type>(x.size()), result, "result");
    if (x.empty()) return;
    LOOM_RUN_KERNEL(where, *y.executor(), multi_conj_dot, x, y, result);
}

template <typename V>
void multi_axpy(const matrix::Dense<V>& alpha, std::span<const matrix::Dense<V>* const> x,
                matrix::Dense<V>& y)
{
    constexpr const char* where = "loom::blas::multi_axpy";
    check_multi_vectors(where, x, y, true);
    check_multi_row(where, y, static_cast<size_type>(x.size()), alpha, "alpha");
    if (x.empty() || y.size().count() == 0) return;
    LOOM_RUN_KERNEL(where, *y.executor(), multi_axpy, alpha, x, y);
}

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
    template void multi_conj_dot(std::span<const matrix::Dense<V>* const>,                    \
                                 const matrix::Dense<V>&, matrix::Dense<V>&);                 \
    template void multi_axpy(const matrix::Dense<V>&, std::span<const matrix::Dense<V>* const>, \
                             matrix::Dense<V>&);                                              \
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
