// OpenMP stencil SpMV. Interior: the lines along x of the interior box are split over the
// threads; each line is accumulated offset by offset into a buffer of the thread's (unit
// stride in x, weights as scalars: the loops vectorize), then written to y once. Boundary
// rows: the boundary CSR, rows split over the threads. Interior and boundary rows are
// disjoint, so both loops write y without synchronisation, in one parallel region.
#include <algorithm>
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/arithmetic.hpp"
#include "sparse/spmv_stencil/kernels.hpp"

namespace loom::sparse::omp {
namespace {

using loom::omp::mul;

template <typename V>
inline V combine(V alpha, const V& sum, V beta, const V& old)
{
    return beta == V{0} ? mul(alpha, sum) : mul(alpha, sum) + mul(beta, old);
}

}  // namespace

template <typename V, typename I>
void spmv_stencil(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Stencil<V, I>& A,
                  const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const auto weights = stencil_detail::op_weights(A, mode);
    const auto& box = A.box();
    const auto& first = A.interior_first();
    const auto& last = A.interior_last();
    const size_type points = static_cast<size_type>(weights.size());
    std::vector<size_type> deltas;
    for (const auto& o : A.offsets()) deltas.push_back((o.dz * box.ny + o.dy) * box.nx + o.dx);
    const size_type k = x.cols();
    const size_type xs = x.stride();
    const size_type ys = y.stride();
    const V* xd = x.data();
    V* yd = y.data();

    const size_type line = last.nx - first.nx;
    const size_type lines_y = last.ny - first.ny;
    const size_type lines = line > 0 && lines_y > 0 && last.nz > first.nz
                                ? lines_y * (last.nz - first.nz)
                                : 0;
    const auto& boundary = A.boundary();
    const I* rows = A.boundary_rows().data();
    const I* row_ptrs = boundary.row_ptrs().data();
    const I* cols = boundary.col_idxs().data();
    const bool conjugated = stencil_detail::conjugates(mode);
    const V* values = stencil_detail::transposes(mode) ? A.boundary_transposed_values().data()
                                                       : boundary.values().data();
    // One parallel region for both parts (they write disjoint rows of y): a single fork and
    // join per product.
#pragma omp parallel num_threads(exec.num_threads())
    {
        std::vector<V> acc(static_cast<std::size_t>(std::max<size_type>(line, 0)));
#pragma omp for schedule(static) nowait
        for (size_type l = 0; l < lines; ++l) {
            const size_type pz = first.nz + l / lines_y;
            const size_type py = first.ny + l % lines_y;
            const size_type p0 = (pz * box.ny + py) * box.nx + first.nx;
            for (size_type j = 0; j < k; ++j) {
                std::fill(acc.begin(), acc.end(), V{});
                for (size_type i = 0; i < points; ++i) {
                    const V w = weights[i];
                    const V* in = xd + (p0 + deltas[i]) * xs + j;
                    if (xs == 1) {
                        for (size_type t = 0; t < line; ++t) acc[t] += mul(w, in[t]);
                    } else {
                        for (size_type t = 0; t < line; ++t) acc[t] += mul(w, in[t * xs]);
                    }
                }
                V* out = yd + p0 * ys + j;
                for (size_type t = 0; t < line; ++t) {
                    out[t * ys] = combine(alpha, acc[t], beta, out[t * ys]);
                }
            }
        }
#pragma omp for schedule(static)
        for (size_type b = 0; b < boundary.rows(); ++b) {
            const size_type p = rows[b];
            for (size_type j = 0; j < k; ++j) {
                V sum{};
                for (auto e = row_ptrs[b]; e < row_ptrs[b + 1]; ++e) {
                    const V a = conjugated ? loom::conj(values[e]) : values[e];
                    sum += mul(a, xd[cols[e] * xs + j]);
                }
                yd[p * ys + j] = combine(alpha, sum, beta, yd[p * ys + j]);
            }
        }
    }
}

#define LOOM_INSTANTIATE_SPMV_STENCIL_OMP(V, I) \
    LOOM_INSTANTIATE_SPMV_STENCIL_KERNELS(OmpExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_STENCIL_OMP)

}  // namespace loom::sparse::omp
