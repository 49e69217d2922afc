// Generators build CSR arrays directly on the host: row lengths first (in parallel), a
// prefix sum, then every row filled independently (in parallel). A random row draws from its
// own counter-based stream, so the result does not depend on the thread count.
#include "loom/matrix/generate.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"

#ifdef _OPENMP
#define LOOM_HOST_PARALLEL_FOR _Pragma("omp parallel for schedule(dynamic, 1024)")
#define LOOM_HOST_PARALLEL_FOR_STATIC _Pragma("omp parallel for schedule(static)")
#else
#define LOOM_HOST_PARALLEL_FOR
#define LOOM_HOST_PARALLEL_FOR_STATIC
#endif

namespace loom::matrix {
namespace {

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same everywhere.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t state) : state_(state) {}

    /// A stream of its own for each (seed, purpose, row).
    static SplitMix64 for_row(std::uint64_t seed, std::uint64_t purpose, size_type row)
    {
        SplitMix64 mixer(seed ^ (purpose * 0xd1b54a32d192ed03ULL));
        return SplitMix64(mixer.next() ^ mix(static_cast<std::uint64_t>(row)));
    }

    std::uint64_t next()
    {
        return mix(state_ += 0x9e3779b97f4a7c15ULL);
    }
    /// Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [0, n) for n < 2^53.
    size_type below(size_type n)
    {
        return static_cast<size_type>(uniform() * static_cast<double>(n));
    }

private:
    static std::uint64_t mix(std::uint64_t z)
    {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::uint64_t state_;
};

enum Purpose : std::uint64_t {
    row_length = 1,
    row_entries = 2,
    rmat_edge = 3,
    rmat_permutation = 4,
    rmat_pair_value = 5
};

template <typename V>
V random_value(SplitMix64& rng)
{
    using R = remove_complex_t<V>;
    if constexpr (is_complex_v<V>) {
        const auto re = static_cast<R>(2 * rng.uniform() - 1);
        return V(re, static_cast<R>(2 * rng.uniform() - 1));
    } else {
        return static_cast<V>(2 * rng.uniform() - 1);
    }
}

/// k distinct sorted columns out of [0, n).
template <typename I>
void sample_columns(SplitMix64& rng, size_type k, size_type n, I* out)
{
    if (k * 4 >= n) {
        // Many of them: selection sampling (Knuth's algorithm S) walks the columns once
        // and yields them in order.
        size_type needed = k;
        for (size_type c = 0; c < n && needed > 0; ++c) {
            if (rng.below(n - c) < needed) out[k - needed--] = static_cast<I>(c);
        }
        return;
    }
    // Few: draw, sort, drop repeats, draw again for the missing ones (rarely needed).
    size_type have = 0;
    while (have < k) {
        for (auto i = have; i < k; ++i) out[i] = static_cast<I>(rng.below(n));
        std::sort(out, out + k);
        have = std::unique(out, out + k) - out;
    }
}

std::shared_ptr<const Executor> host_of(const std::shared_ptr<const Executor>& exec)
{
    return exec->is_host() ? exec : detail::host_executor();
}

template <typename V, typename I>
Csr<V, I> place_on(const std::shared_ptr<const Executor>& exec, Csr<V, I> host_matrix)
{
    if (host_matrix.executor() == exec) return host_matrix;
    return Csr<V, I>(exec, host_matrix);
}

template <typename I>
void check_fits(const char* where, const std::string& what, size_type count)
{
    if (count > std::numeric_limits<I>::max()) {
        throw NotSupported(where, what + " " + std::to_string(count) +
                                      " does not fit the index type " + type_name<I>() +
                                      " (use int64)");
    }
}

void check_size(const char* where, const std::string& what, size_type value)
{
    if (value < 0) throw BadInput(where, what + " is negative (" + std::to_string(value) + ")");
}

void check_executor(const char* where, const std::shared_ptr<const Executor>& exec)
{
    if (!exec) throw BadInput(where, "no executor given");
}

/// row_ptrs from row lengths already stored at ptrs[1..rows].
template <typename I>
void prefix_sum_lengths(I* ptrs, size_type rows)
{
    ptrs[0] = 0;
    for (size_type r = 0; r < rows; ++r) ptrs[r + 1] += ptrs[r];
}

struct Offset {
    int dz, dy, dx;
};

/// The Laplacian stencil on a grid of n^dims points; box = all neighbours of the cube,
/// else face neighbours only. Offsets in (dz, dy, dx) order give sorted columns.
template <typename V, typename I>
Csr<V, I> stencil(const char* where, const std::shared_ptr<const Executor>& exec, size_type n,
                  int dims, bool box)
{
    check_executor(where, exec);
    check_size(where, "the grid size n", n);
    std::vector<Offset> offsets;
    for (int dz = dims == 3 ? -1 : 0; dz <= (dims == 3 ? 1 : 0); ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                if (box || std::abs(dx) + std::abs(dy) + std::abs(dz) <= 1) {
                    offsets.push_back({dz, dy, dx});
                }
            }
        }
    }
    const auto points = static_cast<int>(offsets.size());
    // Beyond these sizes even int64 could not count the entries.
    if (n > (dims == 3 ? size_type{1} << 19 : size_type{1} << 29)) {
        throw NotSupported(where, "a grid with n = " + std::to_string(n) + " is too large");
    }
    const size_type nz = dims == 3 ? n : 1;
    const size_type rows = n * n * nz;
    // Every dimension loses the neighbours that fall off the grid's two faces.
    const size_type box_side = 3 * n - 2;
    size_type nnz = 0;
    if (n > 0) {
        nnz = box ? box_side * box_side * (dims == 3 ? box_side : 1)
                  : rows + 2 * dims * (n - 1) * (rows / n);
    }
    check_fits<I>(where, "the row count", rows);
    check_fits<I>(where, "the number of entries", nnz);

    Csr<V, I> A(host_of(exec), {rows, rows}, nnz);
    I* ptrs = A.row_ptrs().data();
    I* cols = A.col_idxs().data();
    V* values = A.values().data();
    const auto inside = [n](size_type coordinate, int delta) {
        return coordinate + delta >= 0 && coordinate + delta < n;
    };
    const auto for_each_neighbour = [&](size_type row, auto&& f) {
        const size_type x = row % n, y = row / n % n, z = row / (n * n);
        for (const auto& o : offsets) {
            if (inside(x, o.dx) && inside(y, o.dy) && (dims == 2 || inside(z, o.dz))) {
                f(row + (o.dz * n + o.dy) * n + o.dx, o.dx == 0 && o.dy == 0 && o.dz == 0);
            }
        }
    };
    LOOM_HOST_PARALLEL_FOR
    for (size_type row = 0; row < rows; ++row) {
        I count = 0;
        for_each_neighbour(row, [&](size_type, bool) { ++count; });
        ptrs[row + 1] = count;
    }
    prefix_sum_lengths(ptrs, rows);
    const V center = static_cast<V>(points - 1);
    LOOM_HOST_PARALLEL_FOR
    for (size_type row = 0; row < rows; ++row) {
        auto k = ptrs[row];
        for_each_neighbour(row, [&](size_type col, bool diagonal) {
            cols[k] = static_cast<I>(col);
            values[k++] = diagonal ? center : V{-1};
        });
    }
    return place_on(exec, std::move(A));
}

/// A random matrix whose row r has lengths[r] entries.
template <typename V, typename I>
Csr<V, I> random_rows(const std::shared_ptr<const Executor>& exec, dim2 size,
                      const std::vector<size_type>& lengths, std::uint64_t seed, const char* where)
{
    size_type nnz = 0;
    for (auto length : lengths) nnz += length;
    check_fits<I>(where, "the row count", size.rows);
    check_fits<I>(where, "the column count", size.cols);
    check_fits<I>(where, "the number of entries", nnz);
    Csr<V, I> A(host_of(exec), size, nnz);
    I* ptrs = A.row_ptrs().data();
    I* cols = A.col_idxs().data();
    V* values = A.values().data();
    for (size_type r = 0; r < size.rows; ++r) ptrs[r + 1] = static_cast<I>(lengths[r]);
    prefix_sum_lengths(ptrs, size.rows);
    LOOM_HOST_PARALLEL_FOR
    for (size_type r = 0; r < size.rows; ++r) {
        auto rng = SplitMix64::for_row(seed, row_entries, r);
        sample_columns(rng, lengths[r], size.cols, cols + ptrs[r]);
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) values[k] = random_value<V>(rng);
    }
    return place_on(exec, std::move(A));
}

/// sum of f(i) for i in [0, n), in an order that does not depend on the thread count.
template <typename F>
double ordered_sum(size_type n, F&& f)
{
    constexpr size_type parts = 64;
    std::array<double, parts> partial{};
    LOOM_HOST_PARALLEL_FOR
    for (size_type p = 0; p < parts; ++p) {
        for (size_type i = p * n / parts; i < (p + 1) * n / parts; ++i) partial[p] += f(i);
    }
    double sum = 0;
    for (auto s : partial) sum += s;
    return sum;
}

/// Power-law row lengths with the given mean, clipped to max_length.
std::vector<size_type> power_law_lengths(size_type rows, size_type max_length, double mean,
                                         std::uint64_t seed, double exponent)
{
    // Pareto weights w >= 1 with density ~ w^-exponent, by inversion; 1 / u when exponent
    // is 2, exact in IEEE arithmetic, so the default is bit-identical on every platform.
    if (rows == 0 || mean == 0) return std::vector<size_type>(static_cast<std::size_t>(rows), 0);
    std::vector<double> weight(static_cast<std::size_t>(rows));
    std::vector<double> jitter(static_cast<std::size_t>(rows));
    const double power = -1.0 / (exponent - 1.0);
    LOOM_HOST_PARALLEL_FOR
    for (size_type r = 0; r < rows; ++r) {
        auto rng = SplitMix64::for_row(seed, row_length, r);
        const double u = 1.0 - rng.uniform();  // in (0, 1]
        weight[r] = exponent == 2.0 ? 1.0 / u : std::pow(u, power);
        jitter[r] = rng.uniform();
    }
    // Scale so that sum(min(max_length, scale * w)) = rows * mean ("water filling"): rows
    // clipped to max_length give up mass the others make up. Each round clips more rows
    // and solves exactly for that clipped set; it stops when the set stays the same.
    const double target = mean * static_cast<double>(rows);
    const auto cap = static_cast<double>(max_length);
    if (target >= cap * static_cast<double>(rows)) {
        return std::vector<size_type>(static_cast<std::size_t>(rows), max_length);
    }
    double scale = target / ordered_sum(rows, [&](size_type r) { return weight[r]; });
    double clipped_rows = -1;
    for (int round = 0; round < 64; ++round) {
        const double clipped = ordered_sum(rows, [&](size_type r) {
            return scale * weight[r] >= cap ? 1.0 : 0.0;
        });
        if (clipped == clipped_rows) break;
        clipped_rows = clipped;
        const double free = ordered_sum(rows, [&](size_type r) {
            return scale * weight[r] >= cap ? 0.0 : weight[r];
        });
        scale = (target - clipped * cap) / free;
    }
    // Random rounding keeps the mean: E[floor(x + jitter)] = x.
    std::vector<size_type> lengths(static_cast<std::size_t>(rows));
    LOOM_HOST_PARALLEL_FOR
    for (size_type r = 0; r < rows; ++r) {
        const double length = std::floor(std::min(cap, scale * weight[r]) + jitter[r]);
        lengths[r] = std::min(max_length, static_cast<size_type>(length));
    }
    return lengths;
}

/// R-MAT edges: edge e draws its (source, target) from a stream of its own, 16 random bits
/// per level (4 levels per 64-bit draw), so the edges do not depend on the thread count.
/// At scale 22, edge factor 16 (67 M edges) this is 6 draws per edge, ~0.4 G draws.
class RmatDraw {
public:
    RmatDraw(const RmatOptions& options, int scale) : seed_(options.seed), scale_(scale)
    {
        const auto threshold = [](double p) {
            return static_cast<std::uint32_t>(std::lround(std::clamp(p, 0.0, 1.0) * 65536.0));
        };
        a_ = threshold(options.a);
        ab_ = threshold(options.a + options.b);
        abc_ = threshold(options.a + options.b + options.c);
    }

    /// Edge e as source << 32 | target.
    std::uint64_t operator()(size_type e) const
    {
        auto rng = SplitMix64::for_row(seed_, rmat_edge, e);
        std::uint32_t source = 0, target = 0;
        std::uint64_t bits = 0;
        for (int level = 0; level < scale_; ++level) {
            if (level % 4 == 0) bits = rng.next();
            const auto r = static_cast<std::uint32_t>(bits & 0xffff);
            bits >>= 16;
            // Quadrants in order top-left (a), top-right (b), bottom-left (c), bottom-right;
            // branch-free (the compared bits are random: branches were mispredicted half
            // the time and made this loop 3x slower).
            const std::uint32_t past_a = r >= a_, past_ab = r >= ab_, past_abc = r >= abc_;
            source = source << 1 | past_ab;
            target = target << 1 | (past_a ^ past_ab ^ past_abc);
        }
        return std::uint64_t{source} << 32 | target;
    }

private:
    std::uint64_t seed_;
    int scale_;
    std::uint32_t a_ = 0, ab_ = 0, abc_ = 0;
};

/// Sorts keys whose set bits are all below `bits`: least significant digit first, 8 bits a
/// pass, each pass over 64 fixed parts (a histogram each, then each part scatters its keys
/// in order: stable, the same for any thread count). Scale 22, edge factor 16: 6 passes over
/// 67 M keys, where std::sort took ~6 s on one core and bucketing by row with atomics
/// (random writes into 0.3 GB) 4x longer than this.
void radix_sort(std::vector<std::uint64_t>& keys, int bits)
{
    constexpr int digit_bits = 8, radix = 1 << digit_bits;
    constexpr size_type parts = 64;
    const auto n = static_cast<size_type>(keys.size());
    std::vector<std::uint64_t> sorted(keys.size());
    std::vector<size_type> position(static_cast<std::size_t>(parts * radix));
    const auto part_begin = [n](size_type p) { return p * n / parts; };
    for (int shift = 0; shift < bits; shift += digit_bits) {
        const auto digit = [shift](std::uint64_t key) {
            return static_cast<size_type>(key >> shift & (radix - 1));
        };
        LOOM_HOST_PARALLEL_FOR_STATIC
        for (size_type p = 0; p < parts; ++p) {
            size_type* count = position.data() + p * radix;
            std::fill(count, count + radix, 0);
            for (auto i = part_begin(p); i < part_begin(p + 1); ++i) ++count[digit(keys[i])];
        }
        size_type sum = 0;
        for (size_type d = 0; d < radix; ++d) {
            for (size_type p = 0; p < parts; ++p) {
                const auto c = position[p * radix + d];
                position[p * radix + d] = sum;
                sum += c;
            }
        }
        LOOM_HOST_PARALLEL_FOR_STATIC
        for (size_type p = 0; p < parts; ++p) {
            size_type* next = position.data() + p * radix;
            for (auto i = part_begin(p); i < part_begin(p + 1); ++i) {
                sorted[next[digit(keys[i])]++] = keys[i];
            }
        }
        keys.swap(sorted);
    }
}

/// A uniformly random permutation of [0, n) (Fisher-Yates on one stream: sequential, ~0.1 s
/// for 4 M vertices, and the same on every thread count).
std::vector<std::uint32_t> random_permutation(size_type n, std::uint64_t seed)
{
    std::vector<std::uint32_t> p(static_cast<std::size_t>(n));
    std::iota(p.begin(), p.end(), std::uint32_t{0});
    auto rng = SplitMix64::for_row(seed, rmat_permutation, 0);
    for (size_type i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
    return p;
}

/// The 24 x 24 stiffness of a trilinear hexahedron of side h (Young's modulus E, Poisson
/// ratio nu) by 2x2x2 Gauss points; local node a = 4 az + 2 ay + ax at corner (ax, ay, az) h,
/// unknowns 3 a + (0, 1, 2).
std::array<double, 24 * 24> hexahedron_stiffness(double h, double E, double nu)
{
    const double lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
    const double mu = E / (2 * (1 + nu));
    double D[6][6] = {};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) D[i][j] = lambda + (i == j ? 2 * mu : 0);
        D[i + 3][i + 3] = mu;
    }
    std::array<double, 24 * 24> K{};
    const double g = 1 / std::sqrt(3.0);
    const double weight = (h / 2) * (h / 2) * (h / 2);  // det J, Gauss weights 1
    for (int point = 0; point < 8; ++point) {
        const double xi[3] = {point & 1 ? g : -g, point & 2 ? g : -g, point & 4 ? g : -g};
        double B[6][24] = {};
        for (int a = 0; a < 8; ++a) {
            const double s[3] = {a & 1 ? 1.0 : -1.0, a & 2 ? 1.0 : -1.0, a & 4 ? 1.0 : -1.0};
            double dN[3];  // d N_a / d(x, y, z) = d N_a / d xi * 2 / h
            for (int c = 0; c < 3; ++c) {
                dN[c] = s[c] / 8 * 2 / h;
                for (int o = 0; o < 3; ++o) {
                    if (o != c) dN[c] *= 1 + s[o] * xi[o];
                }
            }
            // Strains xx, yy, zz, then the engineering shears xy, yz, xz.
            B[0][3 * a] = B[3][3 * a + 1] = B[5][3 * a + 2] = dN[0];
            B[1][3 * a + 1] = B[3][3 * a] = B[4][3 * a + 2] = dN[1];
            B[2][3 * a + 2] = B[4][3 * a + 1] = B[5][3 * a] = dN[2];
        }
        for (int i = 0; i < 24; ++i) {
            for (int j = 0; j < 24; ++j) {
                double sum = 0;
                for (int p = 0; p < 6; ++p) {
                    for (int q = 0; q < 6; ++q) sum += B[p][i] * D[p][q] * B[q][j];
                }
                K[i * 24 + j] += weight * sum;
            }
        }
    }
    return K;
}

/// Whole-token number parsing for specs.
template <typename T>
bool parse_number(std::string_view text, T& value)
{
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc{} && ptr == text.data() + text.size();
}

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const auto end = text.find(separator, start);
        parts.push_back(text.substr(start, end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

/// The Poisson stencil of `dims` dimensions with choices[0] (faces) or choices[1] (the whole box)
/// points; BadInput for any other count.
template <typename V, typename I>
Csr<V, I> poisson(const char* where, const std::shared_ptr<const Executor>& exec, size_type n,
                  int dims, int points, const int (&choices)[2])
{
    if (points != choices[0] && points != choices[1]) {
        throw BadInput(where, "points must be " + std::to_string(choices[0]) + " or " +
                                  std::to_string(choices[1]) + ", got " + std::to_string(points));
    }
    return stencil<V, I>(where, exec, n, dims, points == choices[1]);
}

}  // namespace

template <typename V, typename I>
Csr<V, I> poisson2d(std::shared_ptr<const Executor> exec, size_type n, int points)
{
    return poisson<V, I>("loom::matrix::poisson2d", exec, n, 2, points, {5, 9});
}

template <typename V, typename I>
Csr<V, I> poisson3d(std::shared_ptr<const Executor> exec, size_type n, int points)
{
    return poisson<V, I>("loom::matrix::poisson3d", exec, n, 3, points, {7, 27});
}

template <typename V, typename I>
Csr<V, I> random_uniform(std::shared_ptr<const Executor> exec, size_type rows, size_type cols,
                         size_type nnz_per_row, std::uint64_t seed)
{
    constexpr const char* where = "loom::matrix::random_uniform";
    check_executor(where, exec);
    check_size(where, "rows", rows);
    check_size(where, "cols", cols);
    check_size(where, "nnz_per_row", nnz_per_row);
    const std::vector<size_type> lengths(static_cast<std::size_t>(rows),
                                         std::min(nnz_per_row, cols));
    return random_rows<V, I>(exec, {rows, cols}, lengths, seed, where);
}

template <typename V, typename I>
Csr<V, I> power_law(std::shared_ptr<const Executor> exec, size_type rows, double avg_nnz_per_row,
                    std::uint64_t seed, double exponent)
{
    constexpr const char* where = "loom::matrix::power_law";
    check_executor(where, exec);
    check_size(where, "rows", rows);
    if (!(avg_nnz_per_row >= 0) || avg_nnz_per_row > static_cast<double>(rows)) {
        throw BadInput(where, "avg_nnz_per_row must lie in [0, rows = " + std::to_string(rows) +
                                  "], got " + std::to_string(avg_nnz_per_row));
    }
    if (!(exponent > 1) || !std::isfinite(exponent)) {
        throw BadInput(where, "the exponent must be finite and > 1, got " +
                                  std::to_string(exponent));
    }
    return random_rows<V, I>(exec, {rows, rows},
                             power_law_lengths(rows, rows, avg_nnz_per_row, seed, exponent),
                             seed, where);
}

template <typename V, typename I>
Csr<V, I> rmat(std::shared_ptr<const Executor> exec, int scale, size_type edge_factor,
               const RmatOptions& options)
{
    constexpr const char* where = "loom::matrix::rmat";
    check_executor(where, exec);
    if (scale < 0 || scale > 31) {
        throw BadInput(where, "scale must lie in [0, 31], got " + std::to_string(scale));
    }
    check_size(where, "edge_factor", edge_factor);
    const auto probability_ok = [](double p) { return p >= 0 && p <= 1; };
    if (!probability_ok(options.a) || !probability_ok(options.b) || !probability_ok(options.c) ||
        !(options.a + options.b + options.c <= 1 + 1e-12)) {
        throw BadInput(where, "the quadrant probabilities a, b, c must be in [0, 1] with "
                              "a + b + c <= 1, got " + std::to_string(options.a) + ", " +
                              std::to_string(options.b) + ", " + std::to_string(options.c));
    }
    const size_type n = size_type{1} << scale;
    check_fits<I>(where, "the vertex count", n);
    // Entries before repeats are merged: refused up front rather than after the drawing.
    const size_type copies = options.symmetric ? 2 : 1;
    if (edge_factor > (std::numeric_limits<size_type>::max() >> (scale + 1)) / copies) {
        throw NotSupported(where, "edge_factor " + std::to_string(edge_factor) +
                                      " * 2^" + std::to_string(scale) + " edges are too many");
    }
    const size_type edges = edge_factor * n;
    check_fits<I>(where, "the number of edges drawn", edges * copies);

    // 1. Draw the edges as keys source << scale | target (and the reverse when symmetric),
    //    renumbered when asked.
    const RmatDraw draw(options, scale);
    std::vector<std::uint32_t> label;
    if (options.permute) label = random_permutation(n, options.seed);
    std::vector<std::uint64_t> keys(static_cast<std::size_t>(edges * copies));
    LOOM_HOST_PARALLEL_FOR_STATIC
    for (size_type e = 0; e < edges; ++e) {
        const auto uv = draw(e);
        std::uint64_t u = uv >> 32, v = uv & 0xffffffffu;
        if (!label.empty()) {
            u = label[u];
            v = label[v];
        }
        keys[copies * e] = u << scale | v;
        if (copies == 2) keys[2 * e + 1] = v << scale | u;
    }
    // 2. Sort (row-major order), merge repeats.
    radix_sort(keys, 2 * scale);
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    const auto nnz = static_cast<size_type>(keys.size());
    Csr<V, I> A(host_of(exec), {n, n}, nnz);
    I* ptrs = A.row_ptrs().data();
    I* cols = A.col_idxs().data();
    V* values = A.values().data();
    std::fill(ptrs, ptrs + n + 1, I{0});
    const std::uint64_t column_mask = (std::uint64_t{1} << scale) - 1;
    for (const auto key : keys) ++ptrs[(key >> scale) + 1];
    prefix_sum_lengths(ptrs, n);
    // 3. Columns and values: per row from the row's stream, or per vertex pair (equal at
    //    (i, j) and (j, i)) when symmetric.
    LOOM_HOST_PARALLEL_FOR
    for (size_type r = 0; r < n; ++r) {
        auto rng = SplitMix64::for_row(options.seed, row_entries, r);
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            const auto c = static_cast<size_type>(keys[k] & column_mask);
            cols[k] = static_cast<I>(c);
            if (options.symmetric) {
                auto pair = SplitMix64::for_row(options.seed, rmat_pair_value,
                                                std::min(r, c) * n + std::max(r, c));
                values[k] = random_value<V>(pair);
            } else {
                values[k] = random_value<V>(rng);
            }
        }
    }
    return place_on(exec, std::move(A));
}

template <typename V, typename I>
GeneratedProblem<V, I> elasticity3d(std::shared_ptr<const Executor> exec, size_type n)
{
    constexpr const char* where = "loom::matrix::elasticity3d";
    check_executor(where, exec);
    check_size(where, "the element count n", n);
    if (n > (size_type{1} << 17)) {
        throw NotSupported(where, "a grid with n = " + std::to_string(n) + " is too large");
    }
    const size_type side = n + 1;  // nodes along an edge
    const size_type nodes = n * side * side;
    const size_type rows = 3 * nodes;
    // A node couples to its 3 x 3 x 3 neighbours that are not clamped (x >= 1).
    const auto span = [](size_type at, size_type low, size_type high) {
        return std::min(at + 1, high) - std::max(at - 1, low) + 1;
    };
    const auto node_id = [&](size_type x, size_type y, size_type z) {
        return (z * side + y) * n + x - 1;
    };
    size_type nnz = 0;
    for (size_type z = 0; z < side; ++z) {
        for (size_type y = 0; y < side; ++y) {
            for (size_type x = 1; x <= n; ++x) {
                nnz += 9 * span(x, 1, n) * span(y, 0, n) * span(z, 0, n);
            }
        }
    }
    check_fits<I>(where, "the row count", rows);
    check_fits<I>(where, "the number of entries", nnz);
    const auto K = hexahedron_stiffness(n > 0 ? 1.0 / static_cast<double>(n) : 1.0, 1.0, 0.3);

    Csr<V, I> A(host_of(exec), {rows, rows}, nnz);
    I* ptrs = A.row_ptrs().data();
    I* cols = A.col_idxs().data();
    V* values = A.values().data();
    LOOM_HOST_PARALLEL_FOR
    for (size_type p = 0; p < nodes; ++p) {
        const size_type x = p % n + 1, y = p / n % side, z = p / (n * side);
        const auto length = static_cast<I>(3 * span(x, 1, n) * span(y, 0, n) * span(z, 0, n));
        for (int a = 0; a < 3; ++a) ptrs[3 * p + a + 1] = length;
    }
    prefix_sum_lengths(ptrs, rows);
    LOOM_HOST_PARALLEL_FOR
    for (size_type p = 0; p < nodes; ++p) {
        const size_type x = p % n + 1, y = p / n % side, z = p / (n * side);
        // block[neighbour (dz, dy, dx) in 0..26][a][b]: the summed element couplings.
        double block[27][3][3] = {};
        bool used[27] = {};
        for (size_type ez = z > 0 ? z - 1 : 0; ez <= std::min(z, n - 1); ++ez) {
            for (size_type ey = y > 0 ? y - 1 : 0; ey <= std::min(y, n - 1); ++ey) {
                for (size_type ex = x - 1; ex <= std::min(x, n - 1); ++ex) {
                    const auto local = [&](size_type gx, size_type gy, size_type gz) {
                        return static_cast<int>(4 * (gz - ez) + 2 * (gy - ey) + (gx - ex));
                    };
                    const int lp = local(x, y, z);
                    for (int q = 0; q < 8; ++q) {
                        const size_type gx = ex + (q & 1), gy = ey + (q >> 1 & 1),
                                        gz = ez + (q >> 2);
                        if (gx == 0) continue;  // clamped
                        const auto slot = ((gz + 1 - z) * 3 + (gy + 1 - y)) * 3 + (gx + 1 - x);
                        used[slot] = true;
                        for (int a = 0; a < 3; ++a) {
                            for (int b = 0; b < 3; ++b) {
                                block[slot][a][b] += K[(3 * lp + a) * 24 + 3 * local(gx, gy, gz) + b];
                            }
                        }
                    }
                }
            }
        }
        for (int a = 0; a < 3; ++a) {
            auto k = ptrs[3 * p + a];
            for (int slot = 0; slot < 27; ++slot) {
                if (!used[slot]) continue;
                const auto neighbour = node_id(x + slot % 3 - 1, y + slot / 3 % 3 - 1,
                                               z + slot / 9 - 1);
                for (int b = 0; b < 3; ++b) {
                    cols[k] = static_cast<I>(3 * neighbour + b);
                    values[k++] = static_cast<V>(block[slot][a][b]);
                }
            }
        }
    }
    std::vector<V> coordinates(static_cast<std::size_t>(3 * nodes));
    for (size_type p = 0; p < nodes; ++p) {
        const size_type x = p % n + 1, y = p / n % side, z = p / (n * side);
        coordinates[3 * p] = static_cast<V>(static_cast<double>(x) / n);
        coordinates[3 * p + 1] = static_cast<V>(static_cast<double>(y) / n);
        coordinates[3 * p + 2] = static_cast<V>(static_cast<double>(z) / n);
    }
    return {place_on(exec, std::move(A)), Dense<V>::from_host(exec, {nodes, 3}, coordinates), 3};
}

template <typename V, typename I>
GeneratedProblem<V, I> generate_problem(std::shared_ptr<const Executor> exec,
                                        const std::string& spec)
{
    const auto bad_spec = [&spec](const std::string& why) {
        return BadInput("loom::matrix::generate_csr",
                        "bad matrix spec '" + spec + "': " + why +
                            " (expected poisson3d:N[:7|27], poisson2d:N[:5|9], elasticity3d:N, "
                            "powerlaw:ROWS:AVG[:SEED], random:ROWS:COLS:PER_ROW[:SEED], "
                            "rmat:SCALE:EDGE_FACTOR[:SEED] or graph500:SCALE:EDGE_FACTOR[:SEED])");
    };
    const auto parts = split(spec, ':');
    const auto name = parts[0];
    const auto argument = [&](std::size_t i, auto& value, const char* what) {
        if (!parse_number(parts[i], value)) {
            throw bad_spec(std::string(what) + " '" + std::string(parts[i]) + "' is not valid");
        }
    };
    const auto expect_parts = [&](std::size_t least, std::size_t most) {
        if (parts.size() < least || parts.size() > most) {
            throw bad_spec("wrong number of fields for '" + std::string(name) + "'");
        }
    };
    if (name == "poisson2d" || name == "poisson3d") {
        expect_parts(2, 3);
        const bool three = name == "poisson3d";
        size_type n = 0;
        int points = three ? 7 : 5;
        argument(1, n, "N");
        if (parts.size() == 3) argument(2, points, "the stencil");
        if (three ? points != 7 && points != 27 : points != 5 && points != 9) {
            throw bad_spec("the stencil must have " + std::string(three ? "7 or 27" : "5 or 9") +
                           " points");
        }
        if (n < 0) throw bad_spec("N is negative");
        return {three ? poisson3d<V, I>(exec, n, points) : poisson2d<V, I>(exec, n, points), {}, 1};
    }
    if (name == "elasticity3d") {
        expect_parts(2, 2);
        size_type n = 0;
        argument(1, n, "N");
        if (n < 0) throw bad_spec("N is negative");
        return elasticity3d<V, I>(exec, n);
    }
    if (name == "powerlaw") {
        expect_parts(3, 4);
        size_type rows = 0;
        double avg = 0;
        std::uint64_t seed = default_generator_seed;
        argument(1, rows, "ROWS");
        argument(2, avg, "AVG");
        if (parts.size() == 4) argument(3, seed, "SEED");
        if (rows < 0 || !(avg >= 0) || avg > static_cast<double>(rows)) {
            throw bad_spec("ROWS must be >= 0 and AVG in [0, ROWS]");
        }
        return {power_law<V, I>(exec, rows, avg, seed), {}, 1};
    }
    if (name == "random") {
        expect_parts(4, 5);
        size_type rows = 0, cols = 0, per_row = 0;
        std::uint64_t seed = default_generator_seed;
        argument(1, rows, "ROWS");
        argument(2, cols, "COLS");
        argument(3, per_row, "PER_ROW");
        if (parts.size() == 5) argument(4, seed, "SEED");
        if (rows < 0 || cols < 0 || per_row < 0) throw bad_spec("sizes must be >= 0");
        return {random_uniform<V, I>(exec, rows, cols, per_row, seed), {}, 1};
    }
    if (name == "rmat" || name == "graph500") {
        expect_parts(3, 4);
        int scale = 0;
        size_type edge_factor = 0;
        RmatOptions options;
        argument(1, scale, "SCALE");
        argument(2, edge_factor, "EDGE_FACTOR");
        if (parts.size() == 4) argument(3, options.seed, "SEED");
        if (scale < 0 || scale > 31) throw bad_spec("SCALE must lie in [0, 31]");
        if (edge_factor < 0) throw bad_spec("EDGE_FACTOR is negative");
        options.symmetric = options.permute = name == "graph500";
        return {rmat<V, I>(exec, scale, edge_factor, options), {}, 1};
    }
    throw bad_spec("unknown generator '" + std::string(name) + "'");
}

template <typename V, typename I>
Csr<V, I> generate_csr(std::shared_ptr<const Executor> exec, const std::string& spec)
{
    return generate_problem<V, I>(std::move(exec), spec).A;
}

#define LOOM_INSTANTIATE_GENERATORS(V, I)                                                     \
    template Csr<V, I> poisson2d<V, I>(std::shared_ptr<const Executor>, size_type, int);      \
    template Csr<V, I> poisson3d<V, I>(std::shared_ptr<const Executor>, size_type, int);      \
    template Csr<V, I> random_uniform<V, I>(std::shared_ptr<const Executor>, size_type,       \
                                            size_type, size_type, std::uint64_t);             \
    template Csr<V, I> power_law<V, I>(std::shared_ptr<const Executor>, size_type, double,    \
                                       std::uint64_t, double);                                \
    template Csr<V, I> rmat<V, I>(std::shared_ptr<const Executor>, int, size_type,            \
                                  const RmatOptions&);                                        \
    template GeneratedProblem<V, I> elasticity3d<V, I>(std::shared_ptr<const Executor>,        \
                                                       size_type);                            \
    template GeneratedProblem<V, I> generate_problem<V, I>(std::shared_ptr<const Executor>,    \
                                                           const std::string&);               \
    template Csr<V, I> generate_csr<V, I>(std::shared_ptr<const Executor>, const std::string&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_GENERATORS)

}  // namespace loom::matrix
