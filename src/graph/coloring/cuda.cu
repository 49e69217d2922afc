// CUDA coloring: the speculative algorithms of Deveci et al. with one thread per vertex of
// the worklist (VB, VBBIT, VBCS; VB, VBBIT and NB at distance 2) or per edge of the
// worklist's vertices (EB), a kernel per phase, and the worklist compacted with an atomic
// counter after every round (its size is the one value read back per round). cuSPARSE's
// csrcolor is the vendor algorithm.
//
// Colors are read with volatile loads: a neighbour colored a moment ago by another block is
// then seen at once (L1 is not coherent), which keeps clashes, and so rounds, few.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#define DISABLE_CUSPARSE_DEPRECATED  // csrcolor is deprecated, and still the vendor's coloring
#include <cusparse.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include "base/cuda/cub.cuh"
#include "base/cuda/cusparse.hpp"
#include "base/cuda/helpers.cuh"
#include "base/cuda/launch.cuh"
#include "base/instantiate.hpp"
#include "base/prefix_sum.hpp"
#include "graph/coloring/kernels.hpp"
#include "graph/coloring/sides.hpp"
#include "graph/coloring/speculative.hpp"

namespace loom::graph::cuda {

using coloring_detail::Adjacency;
using coloring_detail::ColoringRun;
using coloring_detail::Distance1;
using coloring_detail::Distance2;
using coloring_detail::window_bits;
using namespace loom::cuda;

// Named, not anonymous: nvcc's extended lambdas need an enclosing function it can name.
namespace coloring_kernels {

constexpr const char* where = "loom::graph (CUDA coloring)";

/// Fresh reads of the colors other threads write.
template <typename I>
struct DeviceColors {
    I* colors;

    __host__ __device__ I operator()(I v) const
    {
        return *static_cast<volatile const I*>(colors + v);
    }
};

/// First fit with a flag per color of a 64-color window in thread-local memory (VB).
template <typename I, typename Neighbourhood, typename ColorOf>
__device__ I first_fit_flags(const Neighbourhood& around, I u, ColorOf color_of)
{
    for (I offset = 0;; offset += window_bits) {
        bool forbidden[window_bits];
        for (int c = 0; c < window_bits; ++c) forbidden[c] = false;
        around.for_each(u, [&](I v) {
            const I c = color_of(v) - offset;
            if (c >= 0 && c < window_bits) forbidden[c] = true;
            return false;
        });
        for (int c = 0; c < window_bits; ++c) {
            if (!forbidden[c]) return offset + c;
        }
    }
}

/// items[i] = i.
template <typename I>
void fill_identity(const CudaExecutor& exec, I* items, size_type n)
{
    parallel_for(
        exec, n, [=] __device__(long long i) { items[i] = static_cast<I>(i); }, where);
}

/// The vertices still to color, compacted on the device after every round.
template <typename I>
class Worklist {
public:
    Worklist(const CudaExecutor& exec, size_type n)
        : exec_(exec),
          items_(exec.shared_from_this(), n),
          spare_(exec.shared_from_this(), n),
          counter_(exec.shared_from_this(), 1),
          size_(n)
    {
        fill_identity(exec, items_.data(), n);
    }

    size_type size() const noexcept { return size_; }
    const I* items() const noexcept { return items_.data(); }

    /// Keeps the vertices u with keep(u) (a device functor).
    template <typename Keep>
    void keep_if(Keep keep)
    {
        counter_.fill(0);
        const I* items = items_.data();
        I* kept = spare_.data();
        auto* counter = reinterpret_cast<unsigned long long*>(counter_.data());
        parallel_for(
            exec_, size_,
            [=] __device__(long long i) {
                const I u = items[i];
                if (keep(u)) kept[atomicAdd(counter, 1ull)] = u;
            },
            where);
        size_ = static_cast<size_type>(detail::load_element(counter_, 0));
        items_.swap(spare_);
    }

private:
    const CudaExecutor& exec_;
    Array<I> items_;
    Array<I> spare_;
    Array<std::uint64_t> counter_;  // unsigned long long for atomicAdd, same bits
    size_type size_;
};

void check_progress(int rounds, size_type vertices)
{
    if (rounds > vertices + 1000) {
        throw NumericalError(where, "the coloring rounds did not finish (an internal error)");
    }
}

/// The largest value of f(i) over i in [0, n) (n >= 1), read back.
template <typename T, typename F>
T device_max(const CudaExecutor& exec, size_type n, F f)
{
    const auto values =
        thrust::make_transform_iterator(thrust::make_counting_iterator<long long>(0), f);
    Array<T> result(exec.shared_from_this(), 1);
    run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
        return cub::DeviceReduce::Max(temp, bytes, values, result.data(), n, stream_of(exec));
    });
    return detail::load_element(result, 0);
}

template <typename I>
struct ColorAt {
    const I* colors;
    __host__ __device__ I operator()(long long v) const { return colors[v]; }
};

template <typename I>
struct DegreeOf {
    const I* row_ptrs;
    __host__ __device__ I operator()(long long v) const { return row_ptrs[v + 1] - row_ptrs[v]; }
};

/// The number of entries of a pattern (its last row pointer, read back).
template <typename I>
size_type entries_of(const CudaExecutor& exec, Adjacency<I> pattern)
{
    I nnz = 0;
    detail::host_executor()->copy_from(exec, sizeof(I), pattern.row_ptrs + pattern.rows, &nnz);
    return nnz;
}

/// v + 1 when vertex v is uncolored or shares its color with a neighbour, else 0.
template <typename I>
struct InvalidAt {
    Adjacency<I> graph;
    const I* colors;

    __host__ __device__ long long operator()(long long v) const
    {
        const I color = colors[v];
        if (color < 0) return v + 1;
        for (I k = graph.row_ptrs[v]; k < graph.row_ptrs[v + 1]; ++k) {
            const I u = graph.cols[k];
            if (u != v && colors[u] == color) return v + 1;
        }
        return 0;
    }
};

template <typename I>
size_type count_colors(const CudaExecutor& exec, size_type n, const I* colors)
{
    return size_type{device_max<I>(exec, n, ColorAt<I>{colors})} + 1;
}

template <typename I, typename Neighbourhood>
void detect_by_vertex(const CudaExecutor& exec, Neighbourhood around, const I* items,
                      size_type size, I* colors)
{
    parallel_for(
        exec, size,
        [=] __device__(long long i) {
            const I u = items[i];
            if (coloring_detail::loses_clash(around, u, DeviceColors<I>{colors})) colors[u] = -1;
        },
        where);
}

/// NB: a thread per (net, member) entry, plus one per vertex as member of its own net.
template <typename I>
void detect_by_net(const CudaExecutor& exec, Distance2<I> around, I* colors)
{
    const long long nnz = entries_of(exec, around.members);
    const long long total = nnz + (around.self_net ? around.members.rows : 0);
    parallel_for(
        exec, total,
        [=] __device__(long long e) {
            I net;
            I w;
            if (e < nnz) {
                net = static_cast<I>(row_of_entry(around.members.row_ptrs, around.members.rows, e));
                w = around.members.cols[e];
            } else {
                net = w = static_cast<I>(e - nnz);
            }
            if (coloring_detail::loses_clash_in_net(around, net, w, DeviceColors<I>{colors})) {
                colors[w] = -1;
            }
        },
        where);
}

/// Uncolors the losers of a round's clashes. NB's nets check their members while most
/// vertices are being colored (every net then holds some), vertices their neighbourhoods
/// once few are left.
template <typename I, typename Neighbourhood>
void detect_clashes(const CudaExecutor& exec, ColoringAlgorithm algorithm,
                    const Neighbourhood& around, const I* items, size_type size, int round,
                    I* colors)
{
    if constexpr (std::is_same_v<Neighbourhood, Distance2<I>>) {
        if (algorithm == ColoringAlgorithm::nb && round <= 2) {
            detect_by_net(exec, around, colors);
            return;
        }
    }
    detect_by_vertex(exec, around, items, size, colors);
}

/// The vertex-based algorithms: pick(u) is the color u tries (a device functor); the
/// round's clashes are found in the neighbourhood `around` (by net in NB's first rounds).
template <typename I, typename Neighbourhood, typename Pick>
ColoringRun speculate(const CudaExecutor& exec, ColoringAlgorithm algorithm,
                      const Neighbourhood& around, size_type n, I* colors, Pick pick)
{
    Array<I>::view(exec.shared_from_this(), n, colors).fill(I{coloring_detail::uncolored});
    Worklist<I> work(exec, n);
    int rounds = 0;
    while (work.size() > 0) {
        check_progress(++rounds, n);
        const I* items = work.items();
        parallel_for(
            exec, work.size(), [=] __device__(long long i) { colors[items[i]] = pick(items[i]); },
            where);
        detect_clashes(exec, algorithm, around, items, work.size(), rounds, colors);
        work.keep_if([=] __device__(I u) { return colors[u] < 0; });
    }
    return {algorithm, count_colors(exec, n, colors), rounds};
}

/// f(u, v) for every edge (u, v), v != u, of the worklist's vertices, a thread per edge.
/// offsets: size + 1 entries, the edges of the vertices before each entry.
template <typename I, typename F>
void for_each_worklist_edge(const CudaExecutor& exec, Adjacency<I> graph, const I* items,
                            size_type size, const I* offsets, long long edges, F f)
{
    parallel_for(
        exec, edges,
        [=] __device__(long long e) {
            const auto i = row_of_entry(offsets, size, e);
            const I u = items[i];
            const I v = graph.cols[graph.row_ptrs[u] + (e - offsets[i])];
            if (v != u) f(u, v);
        },
        where);
}

/// EB (see omp.cpp): the neighbour scans of a round run over edges.
template <typename I>
ColoringRun color_edge_based(const CudaExecutor& exec, Adjacency<I> graph, I* colors)
{
    const auto shared_exec = exec.shared_from_this();
    const size_type n = graph.rows;
    Array<I>::view(shared_exec, n, colors).fill(I{coloring_detail::uncolored});
    Array<std::uint64_t> forbidden_array(shared_exec, n);
    forbidden_array.fill(0);
    Array<I> window_array(shared_exec, n);
    window_array.fill(0);
    Array<I> offset_array(shared_exec, n + 1);
    // unsigned long long for atomicOr, the same bits as std::uint64_t.
    auto* forbidden = reinterpret_cast<unsigned long long*>(forbidden_array.data());
    I* window = window_array.data();
    I* offsets = offset_array.data();
    Worklist<I> work(exec, n);
    int rounds = 0;
    while (work.size() > 0) {
        check_progress(++rounds, n);
        const I* items = work.items();
        const size_type size = work.size();
        parallel_for(
            exec, size,
            [=] __device__(long long i) {
                offsets[i] = graph.row_ptrs[items[i] + 1] - graph.row_ptrs[items[i]];
            },
            where);
        loom::cuda::exclusive_prefix_sum(exec, offsets, size + 1);
        const long long edges = detail::load_element(offset_array, size);
        const DeviceColors<I> color_of{colors};
        for_each_worklist_edge(exec, graph, items, size, offsets, edges, [=] __device__(I u, I v) {
            const auto bit = coloring_detail::window_bit(color_of(v), window[u]);
            if (bit != 0) atomicOr(forbidden + u, static_cast<unsigned long long>(bit));
        });
        parallel_for(
            exec, size,
            [=] __device__(long long i) {
                const I u = items[i];
                const std::uint64_t free = ~forbidden[u];
                forbidden[u] = 0;
                if (free != 0) {
                    colors[u] = window[u] + coloring_detail::lowest_set_bit(free);
                } else {
                    window[u] += window_bits;
                }
            },
            where);
        for_each_worklist_edge(exec, graph, items, size, offsets, edges, [=] __device__(I u, I v) {
            const I own = color_of(u);
            if (own >= 0 && v < u && color_of(v) == own) colors[u] = -1;
        });
        work.keep_if([=] __device__(I u) { return colors[u] < 0; });
    }
    return {ColoringAlgorithm::eb, count_colors(exec, n, colors), rounds};
}

/// What automatic runs at distance 1: EB when a few vertices have many times the mean degree
/// (a thread per vertex would leave their warps waiting), VBBIT otherwise.
template <typename I>
ColoringAlgorithm automatic_distance1(const CudaExecutor& exec, Adjacency<I> graph)
{
    const auto largest = device_max<I>(exec, graph.rows, DegreeOf<I>{graph.row_ptrs});
    const double mean = double(entries_of(exec, graph)) / graph.rows;
    return largest > 256 && largest > 32 * mean ? ColoringAlgorithm::eb : ColoringAlgorithm::vbbit;
}

/// Copies n colors on the device.
template <typename I>
void copy_colors(const CudaExecutor& exec, const I* from, I* to, size_type n)
{
    LOOM_CUDA_CHECK(
        cudaMemcpyAsync(to, from, sizeof(I) * n, cudaMemcpyDeviceToDevice, stream_of(exec)), where);
}

/// Where every class starts among the vertices sorted by color (num_colors + 1 entries, read
/// back): the first position holding a color >= c, by binary search.
template <typename I>
std::vector<I> class_starts(const CudaExecutor& exec, const I* sorted_colors, size_type n,
                            size_type num_colors)
{
    Array<I> starts(exec.shared_from_this(), num_colors + 1);
    I* start = starts.data();
    parallel_for(
        exec, num_colors + 1,
        [=] __device__(long long c) {
            long long lo = 0;
            long long hi = n;
            while (lo < hi) {
                const long long mid = (lo + hi) / 2;
                if (sorted_colors[mid] < c) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            start[c] = static_cast<I>(lo);
        },
        where);
    return starts.to_host();
}

/// Iterated greedy (speculative.hpp, `recolored`) on the device: a radix sort of
/// (color, vertex) on the colors' few low bits groups the classes, which are recolored from
/// the last to the first, a launch each.
template <typename I>
size_type iterated_greedy(const CudaExecutor& exec, Adjacency<I> graph, int passes, I* colors,
                          size_type num_colors)
{
    using U = std::make_unsigned_t<I>;
    const auto shared_exec = exec.shared_from_this();
    const size_type n = graph.rows;
    const Distance1<I> around{graph};
    Array<I> keys(shared_exec, n);
    Array<I> sorted_keys(shared_exec, n);
    Array<I> vertices(shared_exec, n);
    Array<I> sorted_vertices(shared_exec, n);
    Array<I> fresh_array(shared_exec, n);
    I* fresh = fresh_array.data();
    for (int pass = 0; pass < passes && num_colors > 1; ++pass) {
        copy_colors(exec, colors, keys.data(), n);
        fill_identity(exec, vertices.data(), n);
        int bits = 1;
        while ((size_type{1} << bits) < num_colors) ++bits;
        run_cub(exec, where, [&](void* temp, std::size_t& bytes) {
            return cub::DeviceRadixSort::SortPairs(
                temp, bytes, reinterpret_cast<const U*>(keys.data()),
                reinterpret_cast<U*>(sorted_keys.data()), vertices.data(), sorted_vertices.data(),
                static_cast<long long>(n), 0, bits, stream_of(exec));
        });
        const auto starts = class_starts(exec, sorted_keys.data(), n, num_colors);
        fresh_array.fill(I{coloring_detail::uncolored});
        const I* members = sorted_vertices.data();
        for (size_type c = num_colors; c-- > 0;) {
            const I first = starts[c];
            parallel_for(
                exec, starts[c + 1] - first,
                [=] __device__(long long i) {
                    const I u = members[first + i];
                    fresh[u] = coloring_detail::recolored(around, u, static_cast<const I*>(fresh));
                },
                where);
        }
        const size_type used = count_colors(exec, n, static_cast<const I*>(fresh));
        copy_colors(exec, static_cast<const I*>(fresh), colors, n);
        const bool saved = used < num_colors;
        num_colors = used;
        if (!saved) break;
    }
    return num_colors;
}

/// A vertex's side, 2 for a vertex on an odd cycle (side -1): the largest over the graph says
/// how the bipartition went.
template <typename I>
struct SideOutcome {
    const I* sides;
    __host__ __device__ I operator()(long long v) const { return sides[v] < 0 ? 2 : sides[v]; }
};

/// Device atomics on the double cover's forest (sides.hpp): fresh loads and stores,
/// compare-and-swap.
struct DeviceAtomics {
    template <typename I>
    __device__ I load(I* at) const
    {
        return *static_cast<volatile I*>(at);
    }
    template <typename I>
    __device__ void store(I* at, I value) const
    {
        *static_cast<volatile I*>(at) = value;
    }
    template <typename I>
    __device__ bool swap_if(I* at, I expected, I desired) const
    {
        if constexpr (sizeof(I) == sizeof(int)) {
            return atomicCAS(reinterpret_cast<int*>(at), static_cast<int>(expected),
                             static_cast<int>(desired)) == static_cast<int>(expected);
        } else {
            using Word = unsigned long long;
            return atomicCAS(reinterpret_cast<Word*>(at), static_cast<Word>(expected),
                             static_cast<Word>(desired)) == static_cast<Word>(expected);
        }
    }
};

}  // namespace coloring_kernels

template <typename I>
size_type color_sides(const CudaExecutor& exec, Adjacency<I> graph, I* colors)
{
    using namespace coloring_kernels;
    const size_type n = graph.rows;
    if (!coloring_detail::cover_fits<I>(n)) return 0;
    const auto shared_exec = exec.shared_from_this();
    Array<I> parents(shared_exec, 2 * n);
    fill_identity(exec, parents.data(), 2 * n);
    const coloring_detail::CoverForest<I, DeviceAtomics> forest{
        parents.data(), static_cast<I>(n), {}};
    // A thread per stored entry (hubs of a skewed graph spread over many threads); each edge
    // once, from its smaller end (the graph is symmetric).
    parallel_for(
        exec, entries_of(exec, graph),
        [=] __device__(long long k) {
            const auto u = static_cast<I>(row_of_entry(graph.row_ptrs, graph.rows, k));
            const I v = graph.cols[k];
            if (v > u) forest.join(u, v);
        },
        where);
    parallel_for(
        exec, n, [=] __device__(long long u) { colors[u] = forest.side(static_cast<I>(u)); },
        where);
    // 0: no edges; 1: two sides; 2: an odd cycle. One reduction, no flag that every thread
    // would store to.
    const I outcome = device_max<I>(exec, n, SideOutcome<I>{colors});
    return outcome == 2 ? 0 : size_type{outcome} + 1;
}

template <typename I>
size_type recolor_distance1(const CudaExecutor& exec, Adjacency<I> graph, int passes, I* colors,
                            size_type num_colors)
{
    return coloring_kernels::iterated_greedy(exec, graph, passes, colors, num_colors);
}

template <typename I>
ColoringRun color_distance1(const CudaExecutor& exec, ColoringAlgorithm algorithm,
                            Adjacency<I> graph, I* colors)
{
    using namespace coloring_kernels;
    if (algorithm == ColoringAlgorithm::automatic) algorithm = automatic_distance1(exec, graph);
    const Distance1<I> around{graph};
    const DeviceColors<I> color_of{colors};
    switch (algorithm) {
    case ColoringAlgorithm::eb: return color_edge_based(exec, graph, colors);
    case ColoringAlgorithm::vb:
        return speculate(exec, algorithm, around, graph.rows, colors,
                         [=] __device__(I u) { return first_fit_flags(around, u, color_of); });
    case ColoringAlgorithm::vbcs: {
        // The window of a vertex's last color: it resumes there after losing a clash.
        Array<I> start_array(exec.shared_from_this(), graph.rows);
        start_array.fill(0);
        I* start = start_array.data();
        return speculate(exec, algorithm, around, graph.rows, colors, [=] __device__(I u) {
            const I c = coloring_detail::first_fit_bits(around, u, start[u], color_of);
            start[u] = c / window_bits * window_bits;
            return c;
        });
    }
    default:  // vbbit
        return speculate(exec, ColoringAlgorithm::vbbit, around, graph.rows, colors,
                         [=] __device__(I u) {
                             return coloring_detail::first_fit_bits(around, u, I{0}, color_of);
                         });
    }
}

template <typename I>
ColoringRun color_distance2(const CudaExecutor& exec, ColoringAlgorithm algorithm,
                            Adjacency<I> nets, Adjacency<I> members, bool self_net, I* colors)
{
    using namespace coloring_kernels;
    const Distance2<I> around{nets, members, self_net};
    const DeviceColors<I> color_of{colors};
    const auto bits = [=] __device__(I u) {
        return coloring_detail::first_fit_bits(around, u, I{0}, color_of);
    };
    switch (algorithm) {
    case ColoringAlgorithm::vb:
        return speculate(exec, algorithm, around, nets.rows, colors,
                         [=] __device__(I u) { return first_fit_flags(around, u, color_of); });
    case ColoringAlgorithm::vbbit:
        return speculate(exec, algorithm, around, nets.rows, colors, bits);
    default:  // nb, and what automatic picks
        return speculate(exec, ColoringAlgorithm::nb, around, nets.rows, colors, bits);
    }
}

#define LOOM_COLORING_CUSPARSE(call) \
    ::loom::cuda::check_cusparse((call), #call, "loom::graph::color (cuSPARSE csrcolor)")

ColoringRun color_vendor(const CudaExecutor& exec, Adjacency<int32> graph, int32* colors)
{
    using namespace coloring_kernels;
    const auto shared_exec = exec.shared_from_this();
    const auto nnz = entries_of(exec, graph);
    if (nnz == 0) {
        // No edges: one color. csrcolor is not asked (it has left such graphs uncolored).
        parallel_for(
            exec, graph.rows, [=] __device__(long long v) { colors[v] = 0; }, where);
        return {ColoringAlgorithm::vendor, graph.rows > 0 ? 1 : 0, 0};
    }
    // csrcolor reads values it does not use for the coloring; ones stand in for them.
    Array<float> values(shared_exec, nnz);
    values.fill(1.0f);
    Array<int32> reordering(shared_exec, graph.rows);
    cusparseMatDescr_t descr = nullptr;
    cusparseColorInfo_t info = nullptr;
    LOOM_COLORING_CUSPARSE(LOOM_VENDOR(cusparseCreateMatDescr)(&descr));
    const auto release = [&] {
        if (info != nullptr) LOOM_VENDOR(cusparseDestroyColorInfo)(info);
        LOOM_VENDOR(cusparseDestroyMatDescr)(descr);
    };
    try {
        const auto handle = static_cast<cusparseHandle_t>(exec.cusparse_handle());
        cusparsePointerMode_t mode = CUSPARSE_POINTER_MODE_HOST;
        LOOM_COLORING_CUSPARSE(LOOM_VENDOR(cusparseGetPointerMode)(handle, &mode));
        LOOM_COLORING_CUSPARSE(
            LOOM_VENDOR(cusparseSetPointerMode)(handle, CUSPARSE_POINTER_MODE_HOST));
        LOOM_COLORING_CUSPARSE(LOOM_VENDOR(cusparseCreateColorInfo)(&info));
        const float fraction = 1.0f;
        int ncolors = 0;
        const auto status = LOOM_VENDOR(cusparseScsrcolor)(
            handle, static_cast<int>(graph.rows), static_cast<int>(nnz), descr, values.data(),
            graph.row_ptrs, graph.cols, &fraction, &ncolors, colors, reordering.data(), info);
        // The handle is the executor's: give the other families back the mode they expect.
        LOOM_VENDOR(cusparseSetPointerMode)(handle, mode);
        LOOM_COLORING_CUSPARSE(status);
    } catch (...) {
        release();
        throw;
    }
    release();
    exec.synchronize();
    // cuSPARSE's coloring is checked, never trusted: on some graphs (isolated vertices) it
    // leaves vertices uncolored, and a peer's wrong answer must not pass for a coloring.
    if (graph.rows > 0) {
        const auto invalid =
            device_max<long long>(exec, graph.rows, InvalidAt<int32>{graph, colors});
        if (invalid > 0) {
            throw NumericalError("loom::graph::color (cuSPARSE csrcolor)",
                                 "cuSPARSE returned an invalid coloring: vertex " +
                                     std::to_string(invalid - 1) +
                                     " is uncolored or shares its color with a neighbour; "
                                     "use a native algorithm");
        }
    }
    return {ColoringAlgorithm::vendor, count_colors(exec, graph.rows, colors), 0};
}

namespace coloring_kernels {

/// A pattern in arrays of its own.
struct OwnedGraph {
    size_type rows;
    Array<int32> row_ptrs;
    Array<int32> cols;

    Adjacency<int32> adjacency() const { return {rows, row_ptrs.data(), cols.data()}; }
};

/// The graph without its self-loops (which csrcolor need not see).
OwnedGraph without_self_loops(const CudaExecutor& exec, Adjacency<int32> graph)
{
    OwnedGraph result{graph.rows, Array<int32>(exec.shared_from_this(), graph.rows + 1), {}};
    int32* ptrs = result.row_ptrs.data();
    parallel_for(
        exec, graph.rows + 1,
        [=] __device__(long long r) {
            int32 kept = 0;
            if (r < graph.rows) {
                for (int32 k = graph.row_ptrs[r]; k < graph.row_ptrs[r + 1]; ++k) {
                    kept += graph.cols[k] != r;
                }
            }
            ptrs[r] = kept;
        },
        where);
    loom::cuda::exclusive_prefix_sum(exec, ptrs, graph.rows + 1);
    result.cols =
        Array<int32>(exec.shared_from_this(), detail::load_element(result.row_ptrs, graph.rows));
    int32* out = result.cols.data();
    parallel_for(
        exec, graph.rows,
        [=] __device__(long long r) {
            int32 at = ptrs[r];
            for (int32 k = graph.row_ptrs[r]; k < graph.row_ptrs[r + 1]; ++k) {
                if (graph.cols[k] != r) out[at++] = graph.cols[k];
            }
        },
        where);
    return result;
}

}  // namespace coloring_kernels

ColoringRun color_vendor_without_self_loops(const CudaExecutor& exec, Adjacency<int32> graph,
                                            int32* colors)
{
    const auto loopless = coloring_kernels::without_self_loops(exec, graph);
    return color_vendor(exec, loopless.adjacency(), colors);
}

#define LOOM_INSTANTIATE(I) LOOM_INSTANTIATE_COLORING_KERNELS(CudaExecutor, I)
LOOM_FOR_EACH_INDEX_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::graph::cuda
