// CUDA stencil SpMV.
//
// Interior: a thread per (x, y) column of the interior box, marching along z over a chunk of
// planes. Consecutive threads take consecutive x, so every load and store of a warp is
// coalesced. A thread keeps the x values of three planes (z - 1, z, z + 1) in registers,
// only those the stencil reads, and per step loads one new plane's worth: the centre and,
// for stencils that reach sideways, its in-plane neighbours, which neighbouring threads load
// as their own centres (L1 hits). So x is read from DRAM about once and y written once:
// ~16 bytes per row in double when beta is zero, against ~12 bytes per stored entry plus the
// vectors for CSR. 2D and 1D stencils (no reach along z) take one plane per step.
// Chunks of z keep enough threads in flight on boxes with few columns; each chunk reloads
// the two planes before its first one.
//
// Boundary rows: a thread per row of the boundary CSR. Interior and boundary rows are
// disjoint: the two kernels write y without synchronisation.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "base/cuda/arithmetic.cuh"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "sparse/spmv/cuda_column.cuh"
#include "sparse/spmv_stencil/kernels.hpp"

namespace loom::sparse::cuda {

using namespace loom::cuda;

namespace stencil_kernels {

constexpr const char* where = "loom::sparse::spmv (Stencil)";
constexpr int block_size = 256;
constexpr int max_points = 27;

/// f.template operator()<i>() for i = 0 .. N-1, each i a constant.
template <int N, typename F>
__device__ __forceinline__ void static_for(F&& f)
{
    [&]<int... i>(std::integer_sequence<int, i...>) {
        (f.template operator()<i>(), ...);
    }(std::make_integer_sequence<int, N>{});
}

/// Offset number o of the 3 x 3 x 3 cube, o = (dz + 1) * 9 + (dy + 1) * 3 + dx + 1.
constexpr matrix::StencilOffset cube_offset(int o) { return {o % 3 - 1, o / 3 % 3 - 1, o / 9 - 1}; }

/// Index of cube offset o among the stencil's offsets (its weight).
template <int Points>
constexpr int weight_index(int o)
{
    int index = 0;
    for (int before = 0; before < o; ++before) {
        index += matrix::in_stencil(Points, cube_offset(before));
    }
    return index;
}

/// Whether the stencil reads the column (dy, dx) = c of some plane, c = (dy + 1) * 3 + dx + 1.
template <int Points>
constexpr bool reads_column(int c)
{
    return matrix::in_stencil(Points, cube_offset(c)) ||
           matrix::in_stencil(Points, cube_offset(c + 9)) ||
           matrix::in_stencil(Points, cube_offset(c + 18));
}

template <int Points>
constexpr bool reaches_along_z()
{
    return matrix::in_stencil(Points, {0, 0, 1});
}

template <typename D>
struct Weights {
    D w[max_points];
};

/// The interior box and how its columns and planes are spread over the grid.
struct Interior {
    long long nx;  ///< the box's extents in x and y (strides of y and z)
    long long ny;
    long long x0;  ///< the interior's first point and extents
    long long y0;
    long long z0;
    long long ix;
    long long iy;
    long long z_end;
    long long z_chunk;  ///< planes per thread (blockIdx.y picks the chunk)
};

template <int Points, typename D>
__global__ void __launch_bounds__(block_size)
    interior_kernel(Interior g, Weights<D> weights, Column<D> v)
{
    const long long column = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (column >= g.ix * g.iy) return;
    const long long plane = g.nx * g.ny;
    const long long base = (g.y0 + column / g.ix) * g.nx + g.x0 + column % g.ix;
    const long long z_begin = g.z0 + blockIdx.y * g.z_chunk;
    const long long z_end = min(z_begin + g.z_chunk, g.z_end);

    // window[dz + 1][c]: x at column c = (dy + 1) * 3 + dx + 1 of plane z + dz.
    D window[3][9];
    const auto load = [&](D(&slot)[9], long long z) {
        const D* center = v.x + (z * plane + base) * v.x_stride;
        static_for<9>([&]<int c>() {
            if constexpr (reads_column<Points>(c)) {
                constexpr int dy = c / 3 - 1;
                constexpr int dx = c % 3 - 1;
                slot[c] = load_cached(center + (dy * g.nx + dx) * v.x_stride);
            }
        });
    };
    const auto row_sum = [&]() {
        D sum{};
        static_for<27>([&]<int o>() {
            if constexpr (matrix::in_stencil(Points, cube_offset(o))) {
                sum += mul(weights.w[weight_index<Points>(o)], window[o / 9][o % 9]);
            }
        });
        return sum;
    };
    if constexpr (reaches_along_z<Points>()) {
        load(window[0], z_begin - 1);
        load(window[1], z_begin);
        for (long long z = z_begin; z < z_end; ++z) {
            load(window[2], z + 1);
            v.store(z * plane + base, row_sum());
            static_for<9>([&]<int c>() {
                if constexpr (reads_column<Points>(c)) {
                    window[0][c] = window[1][c];
                    window[1][c] = window[2][c];
                }
            });
        }
    } else {
        for (long long z = z_begin; z < z_end; ++z) {
            load(window[1], z);
            v.store(z * plane + base, row_sum());
        }
    }
}

template <typename D, typename I>
__global__ void __launch_bounds__(block_size)
    boundary_kernel(long long rows, const I* ids, const I* row_ptrs, const I* cols,
                    const D* values, bool conjugate, Column<D> v)
{
    for (long long b = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; b < rows;
         b += static_cast<long long>(gridDim.x) * blockDim.x) {
        D sum{};
        for (long long e = row_ptrs[b]; e < row_ptrs[b + 1]; ++e) {
            const D a = conjugate ? loom::cuda::conj_dev(values[e]) : values[e];
            sum += mul(a, load_cached(v.x + cols[e] * v.x_stride));
        }
        v.store(ids[b], sum);
    }
}

template <int Points, typename D>
void launch_interior(const CudaExecutor& exec, const Interior& g, dim3 grid,
                     const Weights<D>& weights, const Column<D>& v)
{
    interior_kernel<Points><<<grid, block_size, 0, stream_of(exec)>>>(g, weights, v);
    check_launch(where);
}

}  // namespace stencil_kernels

using namespace stencil_kernels;

template <typename V, typename I>
void spmv_stencil(const CudaExecutor& exec, Mode mode, V alpha, const matrix::Stencil<V, I>& A,
                  const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    using D = device_type_t<V>;
    const auto op_weights = stencil_detail::op_weights(A, mode);
    Weights<D> weights{};
    for (std::size_t i = 0; i < op_weights.size(); ++i) weights.w[i] = as_device(op_weights[i]);

    const auto& box = A.box();
    const auto& first = A.interior_first();
    const auto& last = A.interior_last();
    Interior g{box.nx,  box.ny,  first.nx, first.ny, first.nz, last.nx - first.nx,
               last.ny - first.ny, last.nz, 1};
    const long long columns = g.ix > 0 && g.iy > 0 ? g.ix * g.iy : 0;
    const long long planes = last.nz - first.nz;
    dim3 grid(1, 1, 1);
    if (columns > 0 && planes > 0) {
        // Enough threads to fill the device once; more chunks only reload planes.
        const long long wanted = static_cast<long long>(exec.multiprocessor_count()) * 2048;
        const long long chunks = std::clamp(ceildiv(wanted, columns), 1LL,
                                            std::min<long long>(planes, 65535));
        g.z_chunk = ceildiv(planes, chunks);
        grid = dim3(static_cast<unsigned>(ceildiv(columns, block_size)),
                    static_cast<unsigned>(ceildiv(planes, g.z_chunk)), 1);
    }

    const auto& boundary = A.boundary();
    const D* boundary_values = as_device(stencil_detail::transposes(mode)
                                             ? A.boundary_transposed_values().data()
                                             : boundary.values().data());
    const unsigned boundary_grid = loom::cuda::grid_for(exec, boundary.rows(), block_size, 16);

    for (size_type j = 0; j < x.cols(); ++j) {
        const auto v = column(alpha, x, beta, y, j);
        if (columns > 0 && planes > 0) {
            switch (A.points()) {
            case 3: launch_interior<3>(exec, g, grid, weights, v); break;
            case 5: launch_interior<5>(exec, g, grid, weights, v); break;
            case 9: launch_interior<9>(exec, g, grid, weights, v); break;
            case 7: launch_interior<7>(exec, g, grid, weights, v); break;
            default: launch_interior<27>(exec, g, grid, weights, v); break;
            }
        }
        if (boundary.rows() > 0) {
            boundary_kernel<<<boundary_grid, block_size, 0, stream_of(exec)>>>(
                boundary.rows(), A.boundary_rows().data(), boundary.row_ptrs().data(),
                boundary.col_idxs().data(), boundary_values, stencil_detail::conjugates(mode), v);
            check_launch(where);
        }
    }
}

#define LOOM_INSTANTIATE_SPMV_STENCIL_CUDA(V, I) \
    LOOM_INSTANTIATE_SPMV_STENCIL_KERNELS(CudaExecutor, V, I)
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_STENCIL_CUDA)

}  // namespace loom::sparse::cuda
