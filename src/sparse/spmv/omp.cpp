// OpenMP SpMV.
//
// CSR, op(A) = A or conj(A): merge-path partition. Rows and nonzeros are merged into one
// sequence of rows + nnz work items, cut into equal pieces (8 per thread, handed out as
// threads free up), so that work is balanced by nonzeros even when one row holds most of
// them. A piece may start or stop inside a row: the piece that reaches a row's end writes y
// for it, and the partial sums of rows cut by a boundary ("carries") are added afterwards in
// piece order, so results depend only on the thread count, never on timing. When the
// columns are scattered far from the diagonal, x is prefetched a few nonzeros ahead. The
// partition and that verdict are cached on the matrix (Csr::plans()) per thread count.
//
// Transposed products, and every COO product (entries come in any order), scatter into y:
// y is scaled by beta first, then thread slot 0 adds into y and every other slot into a
// private buffer (rows of y x k values each), and the buffers are summed into y in slot
// order: deterministic as well.
//
// ELL and SELL-P, op(A) = A or conj(A): blocks of rows (SELL-P: slices) are walked slot by
// slot, so that their column-major storage is read contiguously.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/arithmetic.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse::omp {
namespace {

/// Below this many work items (stored entries plus rows) one thread does all the work:
/// forking a team costs more than it saves.
constexpr size_type min_parallel_work = size_type{1} << 14;

/// Rows of an ELL block: the accumulators of a block stay in L1.
constexpr size_type ell_block_rows = 128;

bool conjugates(Mode mode) { return mode == Mode::conjugate || mode == Mode::conj_transpose; }
bool transposes(Mode mode) { return mode == Mode::transpose || mode == Mode::conj_transpose; }

using loom::omp::mul;

/// Hint that *address will be read soon (a no-op where the compiler offers no prefetch).
template <typename V>
inline void prefetch(const V* address)
{
#if defined(__GNUC__)
    __builtin_prefetch(address, 0, 3);
#else
    (void)address;
#endif
}

template <bool Conj, typename V>
inline V op(const V& value)
{
    if constexpr (Conj) {
        return loom::conj(value);
    } else {
        return value;
    }
}

/// Calls body.template operator()<conj>() with the mode's conjugation as a constant.
template <typename Body>
void with_conjugation(Mode mode, Body&& body)
{
    if (conjugates(mode)) {
        body.template operator()<true>();
    } else {
        body.template operator()<false>();
    }
}

int pieces_for(const OmpExecutor& exec, size_type work)
{
    return work < min_parallel_work ? 1 : std::max(exec.num_threads(), 1);
}

/// Runs piece(p) for p in [0, pieces), spread over a team (round robin, so that a smaller
/// team than asked for still covers every piece).
template <typename Piece>
void for_each_piece(int pieces, Piece&& piece)
{
    // Even a serialized parallel region costs about a microsecond with libgomp.
    if (pieces == 1) {
        piece(0);
        return;
    }
#pragma omp parallel num_threads(pieces)
    {
        for (int p = omp_get_thread_num(); p < pieces; p += omp_get_num_threads()) piece(p);
    }
}

/// Start of piece p of `total` items cut into `pieces` near-equal pieces.
size_type piece_start(size_type total, int p, int pieces) { return total * p / pieces; }

/// y(row, j) = alpha * sum[j] (+ beta * y(row, j) unless beta is zero: y is not read then).
template <typename V>
inline void store_row(V alpha, const V* sum, V beta, V* y_row, size_type k)
{
    if (beta == V{0}) {
        for (size_type j = 0; j < k; ++j) y_row[j] = mul(alpha, sum[j]);
    } else {
        for (size_type j = 0; j < k; ++j) y_row[j] = mul(alpha, sum[j]) + mul(beta, y_row[j]);
    }
}

// ------------------------------------------------------------------ CSR plan

/// Pieces per thread of the merge path: threads take pieces as they free up, so one slowed
/// down by other work on the machine takes fewer (the sums do not depend on who takes what).
constexpr int pieces_per_thread = 8;

/// How many nonzeros ahead x is prefetched when the columns are scattered.
constexpr size_type prefetch_distance = 32;

/// What the OpenMP CSR kernels keep on a matrix, for one executor thread count.
struct CsrPlan {
    /// What it was built for: the executor's thread count and the pattern (a cheap guard
    /// against a pattern replaced through a reference kept from before plans() was cleared).
    int threads;
    const void* pattern;
    size_type pattern_rows;
    size_type pattern_nnz;
    int slots;    ///< threads that share the work (1 for small matrices)
    int pieces;   ///< merge-path pieces: slots * pieces_per_thread, or 1
    /// Piece p covers rows [rows[p], rows[p+1]) up to their ends and nonzeros
    /// [nzs[p], nzs[p+1]); nonzeros past the last row end belong to row rows[p+1].
    std::vector<size_type> rows;
    std::vector<size_type> nzs;
    bool scattered_columns;  ///< x is read far off the diagonal: prefetch it
};

/// The point where diagonal `d` (rows consumed + nonzeros consumed = d) crosses the merge
/// path of row ends and nonzero indices: the number of row ends consumed.
template <typename I>
size_type merge_path_rows(size_type d, const I* row_ptrs, size_type rows, size_type nnz)
{
    size_type lo = std::max<size_type>(d - nnz, 0);
    size_type hi = std::min(d, rows);
    while (lo < hi) {
        const size_type mid = lo + (hi - lo) / 2;
        if (row_ptrs[mid + 1] <= d - mid - 1) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// Whether A x reads x far from the diagonal, judged on up to 1024 rows spread over A. Reads
/// near it (a band, a stencil, a small x) stay in cache or are streams the hardware
/// prefetchers follow; scattered ones miss, and prefetching them by hand hides the latency.
template <typename V, typename I>
bool reads_x_scattered(const matrix::Csr<V, I>& A)
{
    constexpr size_type sampled_rows = 1024;
    constexpr double near_bytes = 1 << 20;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const double slope = A.rows() == 0 ? 0.0 : static_cast<double>(A.cols()) / A.rows();
    const size_type step = std::max<size_type>(1, A.rows() / sampled_rows);
    double distance = 0;
    size_type count = 0;
    for (size_type r = 0; r < A.rows(); r += step) {
        for (auto n = row_ptrs[r]; n < row_ptrs[r + 1]; ++n) {
            distance += std::abs(cols[n] - r * slope);
            ++count;
        }
    }
    return count > 0 && distance / count * sizeof(V) > near_bytes;
}

template <typename V, typename I>
std::shared_ptr<const CsrPlan> csr_plan(const OmpExecutor& exec, const matrix::Csr<V, I>& A)
{
    const auto still_valid = [&](const CsrPlan& plan) {
        return plan.threads == exec.num_threads() && plan.pattern == A.row_ptrs().data() &&
               plan.pattern_rows == A.rows() && plan.pattern_nnz == A.nnz();
    };
    const auto make = [&] {
        auto plan = std::make_shared<CsrPlan>();
        plan->threads = exec.num_threads();
        plan->pattern = A.row_ptrs().data();
        plan->pattern_rows = A.rows();
        plan->pattern_nnz = A.nnz();
        plan->slots = pieces_for(exec, A.rows() + A.nnz());
        plan->pieces = plan->slots == 1 ? 1 : plan->slots * pieces_per_thread;
        const size_type total = A.rows() + A.nnz();
        for (int p = 0; p <= plan->pieces; ++p) {
            const size_type d = piece_start(total, p, plan->pieces);
            const size_type rows = merge_path_rows(d, A.row_ptrs().data(), A.rows(), A.nnz());
            plan->rows.push_back(rows);
            plan->nzs.push_back(d - rows);
        }
        plan->scattered_columns = reads_x_scattered(A);
        return plan;
    };
    return A.plans().template obtain<CsrPlan>(still_valid, make);
}

// ------------------------------------------------------------- CSR, y = alpha op(A) x + beta y

/// Sum of op(A) entries [n, end) times x's first column, advancing n. With Prefetch, x is
/// prefetched prefetch_distance nonzeros ahead: the caller makes sure those exist.
template <bool Conj, bool Prefetch, typename V, typename I>
inline V dot_range(size_type& n, size_type end, const I* __restrict cols,
                   const V* __restrict values, const V* __restrict x, size_type x_stride)
{
    V sum{};
    for (; n < end; ++n) {
        if constexpr (Prefetch) {
            prefetch(x + cols[n + prefetch_distance] * x_stride);
        }
        sum += mul(op<Conj>(values[n]), x[cols[n] * x_stride]);
    }
    return sum;
}

/// Piece p for a single right-hand side; returns the carry (the sum over the nonzeros past
/// the last row end).
template <bool Conj, bool Prefetch, typename V, typename I>
V csr_piece_single(const CsrPlan& plan, int p, V alpha, const matrix::Csr<V, I>& A,
                   const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const V* xd = x.data();
    const size_type xs = x.stride();
    V* yd = y.data();
    const size_type ys = y.stride();
    const size_type prefetch_end = A.nnz() - prefetch_distance;
    const auto sum_to = [&](size_type& n, size_type end) {
        if (Prefetch && end <= prefetch_end) {
            return dot_range<Conj, true>(n, end, cols, values, xd, xs);
        }
        return dot_range<Conj, false>(n, end, cols, values, xd, xs);
    };
    const auto rows = [&](auto store) {
        size_type n = plan.nzs[p];
        for (size_type r = plan.rows[p]; r < plan.rows[p + 1]; ++r) {
            store(yd[r * ys], sum_to(n, row_ptrs[r + 1]));
        }
        return sum_to(n, plan.nzs[p + 1]);
    };
    if (beta == V{0}) {
        return rows([&](V& y_r, V sum) { y_r = mul(alpha, sum); });
    }
    return rows([&](V& y_r, V sum) { y_r = mul(alpha, sum) + mul(beta, y_r); });
}

/// Piece p for k > 1 right-hand sides, the k columns looped inside each nonzero; the carry
/// goes to carry[0 .. k).
template <bool Conj, typename V, typename I>
void csr_piece_multi(const CsrPlan& plan, int p, V alpha, const matrix::Csr<V, I>& A,
                     const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y, V* carry)
{
    const I* __restrict row_ptrs = A.row_ptrs().data();
    const I* __restrict cols = A.col_idxs().data();
    const V* __restrict values = A.values().data();
    const size_type k = x.cols();
    std::vector<V> sum(static_cast<std::size_t>(k));
    const auto accumulate = [&](size_type& n, size_type end, V* __restrict acc) {
        std::fill_n(acc, k, V{});
        for (; n < end; ++n) {
            const V a = op<Conj>(values[n]);
            const V* __restrict x_row = x.data() + cols[n] * x.stride();
            for (size_type j = 0; j < k; ++j) acc[j] += mul(a, x_row[j]);
        }
    };
    size_type n = plan.nzs[p];
    for (size_type r = plan.rows[p]; r < plan.rows[p + 1]; ++r) {
        accumulate(n, row_ptrs[r + 1], sum.data());
        store_row(alpha, sum.data(), beta, y.data() + r * y.stride(), k);
    }
    accumulate(n, plan.nzs[p + 1], carry);
}

template <bool Conj, typename V, typename I>
void csr_piece(const CsrPlan& plan, int p, V alpha, const matrix::Csr<V, I>& A,
               const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y, V* carry)
{
    if (x.cols() > 1) {
        csr_piece_multi<Conj>(plan, p, alpha, A, x, beta, y, carry);
    } else if (plan.scattered_columns) {
        *carry = csr_piece_single<Conj, true>(plan, p, alpha, A, x, beta, y);
    } else {
        *carry = csr_piece_single<Conj, false>(plan, p, alpha, A, x, beta, y);
    }
}

template <typename V, typename I>
void csr_rows(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const auto plan = csr_plan(exec, A);
    const size_type k = x.cols();
    std::vector<V> carries(static_cast<std::size_t>(plan->pieces * k));
    with_conjugation(mode, [&]<bool Conj>() {
        const auto run_piece = [&](int p) {
            csr_piece<Conj>(*plan, p, alpha, A, x, beta, y, carries.data() + p * k);
        };
        if (plan->slots == 1) {
            // Even a serialized parallel region costs about a microsecond with libgomp.
            for (int p = 0; p < plan->pieces; ++p) run_piece(p);
            return;
        }
#pragma omp parallel for schedule(dynamic, 1) num_threads(plan->slots)
        for (int p = 0; p < plan->pieces; ++p) run_piece(p);
    });
    // A row cut by piece boundaries was written by the piece reaching its end; the pieces
    // before hold its other partial sums.
    for (int p = 0; p < plan->pieces; ++p) {
        const size_type r = plan->rows[p + 1];
        if (r == A.rows()) continue;
        V* y_row = y.data() + r * y.stride();
        for (size_type j = 0; j < k; ++j) y_row[j] += mul(alpha, carries[p * k + j]);
    }
}

// ------------------------------------------------------------------ scattering products

/// Adds a * x(in, :) to out(row, :) of a rows x k block with row stride `stride`.
template <typename V>
struct ScatterTarget {
    V* out;
    size_type stride;
    const V* x;
    size_type x_stride;
    size_type k;

    void add(size_type row, size_type in, V a) const
    {
        V* __restrict o = out + row * stride;
        const V* __restrict xi = x + in * x_stride;
        for (size_type j = 0; j < k; ++j) o[j] += mul(a, xi[j]);
    }
};

/// y = beta * y + (what scatter_slot(s, target) adds to its target, summed over the thread
/// slots s in [0, slots)). Slot 0 adds into y itself, the others into zeroed private buffers
/// that are then summed into y in slot order: deterministic for a given slot count.
template <typename V, typename ScatterSlot>
void scatter(int slots, const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y,
             ScatterSlot&& scatter_slot)
{
    const size_type n = y.rows();
    const size_type k = y.cols();
    const size_type ys = y.stride();
    V* yd = y.data();
    const auto scale_y = [&](size_type r) {
        for (size_type j = 0; j < k; ++j) {
            yd[r * ys + j] = beta == V{0} ? V{0} : mul(beta, yd[r * ys + j]);
        }
    };
    if (slots == 1) {
        // Even a serialized parallel region costs about a microsecond with libgomp.
        for (size_type r = 0; r < n; ++r) scale_y(r);
        scatter_slot(0, ScatterTarget<V>{yd, ys, x.data(), x.stride(), k});
        return;
    }
    const size_type buffer_size = n * k;
    // Left uninitialized here: each buffer is zeroed by the thread that fills it.
    auto buffers = std::make_unique_for_overwrite<V[]>(
        static_cast<std::size_t>((slots - 1) * buffer_size));
#pragma omp parallel num_threads(slots)
    {
#pragma omp for schedule(static)
        for (size_type r = 0; r < n; ++r) scale_y(r);
        for (int s = omp_get_thread_num(); s < slots; s += omp_get_num_threads()) {
            if (s == 0) {
                scatter_slot(0, ScatterTarget<V>{yd, ys, x.data(), x.stride(), k});
            } else {
                V* buffer = buffers.get() + (s - 1) * buffer_size;
                std::fill_n(buffer, buffer_size, V{});
                scatter_slot(s, ScatterTarget<V>{buffer, k, x.data(), x.stride(), k});
            }
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (size_type r = 0; r < n; ++r) {
            for (size_type j = 0; j < k; ++j) {
                V sum{};
                for (int s = 1; s < slots; ++s) {
                    sum += buffers[(s - 1) * buffer_size + r * k + j];
                }
                yd[r * ys + j] += sum;
            }
        }
    }
}

template <typename V, typename I>
void csr_scatter(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
                 const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const auto plan = csr_plan(exec, A);
    // One buffer per thread slot, each covering a contiguous run of merge-path pieces.
    const int per_slot = plan->pieces / plan->slots;
    const I* row_ptrs = A.row_ptrs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    with_conjugation(mode, [&]<bool Conj>() {
        scatter(plan->slots, x, beta, y, [&](int slot, const ScatterTarget<V>& target) {
            size_type n = plan->nzs[slot * per_slot];
            const size_type n_end = plan->nzs[(slot + 1) * per_slot];
            for (size_type r = plan->rows[slot * per_slot]; n < n_end; ++r) {
                for (const size_type end = std::min<size_type>(row_ptrs[r + 1], n_end); n < end;
                     ++n) {
                    target.add(cols[n], r, mul(alpha, op<Conj>(values[n])));
                }
            }
        });
    });
}

}  // namespace

template <typename V, typename I>
void spmv_csr(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Csr<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y, const SpmvOptions&)
{
    // One kernel serves every native algorithm: the merge path is load-balanced by
    // construction and costs nothing extra on regular matrices.
    if (transposes(mode)) {
        csr_scatter(exec, mode, alpha, A, x, beta, y);
    } else {
        csr_rows(exec, mode, alpha, A, x, beta, y);
    }
}

template <typename V, typename I>
void spmv_coo(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Coo<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const int pieces = pieces_for(exec, A.nnz() + y.rows());
    const I* rows = A.row_idxs().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const I* out = transposes(mode) ? cols : rows;
    const I* in = transposes(mode) ? rows : cols;
    with_conjugation(mode, [&]<bool Conj>() {
        scatter(pieces, x, beta, y, [&](int p, const ScatterTarget<V>& target) {
            const size_type end = piece_start(A.nnz(), p + 1, pieces);
            for (size_type e = piece_start(A.nnz(), p, pieces); e < end; ++e) {
                target.add(out[e], in[e], mul(alpha, op<Conj>(values[e])));
            }
        });
    });
}

namespace {

/// Rows [first, first + count) of a column-major slot array (slot s of local row l at
/// s * stride + l), `slots` wide: y rows = alpha * op(A) x + beta * y, read slot by slot.
template <bool Conj, typename V, typename I>
void slotted_rows(const I* cols, const V* values, size_type stride, size_type slots,
                  size_type first, size_type count, V alpha, const matrix::Dense<V>& x, V beta,
                  matrix::Dense<V>& y, std::vector<V>& acc)
{
    const size_type k = x.cols();
    const size_type xs = x.stride();
    const V* xd = x.data();
    acc.assign(static_cast<std::size_t>(count * k), V{});
    for (size_type s = 0; s < slots; ++s) {
        const I* __restrict c = cols + s * stride;
        const V* __restrict v = values + s * stride;
        if (k == 1) {
            for (size_type l = 0; l < count; ++l) {
                if (c[l] != matrix::invalid_index) {
                    acc[l] += mul(op<Conj>(v[l]), xd[c[l] * xs]);
                }
            }
        } else {
            for (size_type l = 0; l < count; ++l) {
                if (c[l] == matrix::invalid_index) continue;
                const V a = op<Conj>(v[l]);
                const V* x_row = xd + c[l] * xs;
                for (size_type j = 0; j < k; ++j) acc[l * k + j] += mul(a, x_row[j]);
            }
        }
    }
    for (size_type l = 0; l < count; ++l) {
        store_row(alpha, acc.data() + l * k, beta, y.data() + (first + l) * y.stride(), k);
    }
}

/// First slice of each of `pieces` pieces of a SELL-P matrix, balanced by stored slots.
template <typename V, typename I>
std::vector<size_type> sellp_pieces(const matrix::Sellp<V, I>& A, int pieces)
{
    const size_type slices = A.num_slices();
    const I* sets = A.slice_sets().data();
    const size_type total =
        slices == 0 ? 0 : sets[slices - 1] + A.slice_lengths().data()[slices - 1];
    std::vector<size_type> first(static_cast<std::size_t>(pieces + 1), slices);
    for (int p = 0; p < pieces; ++p) {
        const auto target = static_cast<I>(piece_start(total, p, pieces));
        first[p] = std::lower_bound(sets, sets + slices, target) - sets;
    }
    return first;
}

}  // namespace

template <typename V, typename I>
void spmv_ell(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Ell<V, I>& A,
              const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const int pieces = pieces_for(exec, A.slots() + A.rows());
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const size_type stride = A.stride();
    with_conjugation(mode, [&]<bool Conj>() {
        if (transposes(mode)) {
            scatter(pieces, x, beta, y, [&](int p, const ScatterTarget<V>& target) {
                const size_type end = piece_start(A.rows(), p + 1, pieces);
                for (size_type s = 0; s < A.width(); ++s) {
                    for (size_type r = piece_start(A.rows(), p, pieces); r < end; ++r) {
                        const auto c = cols[s * stride + r];
                        if (c != matrix::invalid_index) {
                            target.add(c, r, mul(alpha, op<Conj>(values[s * stride + r])));
                        }
                    }
                }
            });
            return;
        }
        const size_type blocks = (A.rows() + ell_block_rows - 1) / ell_block_rows;
#pragma omp parallel num_threads(pieces) if (pieces > 1)
        {
            std::vector<V> acc;
#pragma omp for schedule(static)
            for (size_type b = 0; b < blocks; ++b) {
                const size_type first = b * ell_block_rows;
                const size_type count = std::min(ell_block_rows, A.rows() - first);
                slotted_rows<Conj>(cols + first, values + first, stride, A.width(), first, count,
                                   alpha, x, beta, y, acc);
            }
        }
    });
}

template <typename V, typename I>
void spmv_sellp(const OmpExecutor& exec, Mode mode, V alpha, const matrix::Sellp<V, I>& A,
                const matrix::Dense<V>& x, V beta, matrix::Dense<V>& y)
{
    const int pieces = pieces_for(exec, A.slots() + A.rows());
    const auto first_slice = sellp_pieces(A, pieces);
    const I* lengths = A.slice_lengths().data();
    const I* sets = A.slice_sets().data();
    const I* cols = A.col_idxs().data();
    const V* values = A.values().data();
    const size_type slice_size = A.slice_size();
    const auto rows_of = [&](size_type s) {
        return std::min(slice_size, A.rows() - s * slice_size);
    };
    with_conjugation(mode, [&]<bool Conj>() {
        if (transposes(mode)) {
            scatter(pieces, x, beta, y, [&](int p, const ScatterTarget<V>& target) {
                for (size_type s = first_slice[p]; s < first_slice[p + 1]; ++s) {
                    for (size_type slot = 0; slot < lengths[s]; ++slot) {
                        const size_type base = (sets[s] + slot) * slice_size;
                        for (size_type l = 0; l < rows_of(s); ++l) {
                            const auto c = cols[base + l];
                            if (c != matrix::invalid_index) {
                                target.add(c, s * slice_size + l,
                                           mul(alpha, op<Conj>(values[base + l])));
                            }
                        }
                    }
                }
            });
            return;
        }
        for_each_piece(pieces, [&](int p) {
            std::vector<V> local;
            for (size_type s = first_slice[p]; s < first_slice[p + 1]; ++s) {
                const size_type offset = sets[s] * slice_size;
                slotted_rows<Conj>(cols + offset, values + offset, slice_size, lengths[s],
                                   s * slice_size, rows_of(s), alpha, x, beta, y, local);
            }
        });
    });
}

/// The OpenMP backend has a single CSR kernel (merge-path balanced), whatever is asked for.
template <typename V, typename I>
SpmvAlgorithm choose_csr_algorithm(const OmpExecutor&, const matrix::Csr<V, I>&)
{
    return SpmvAlgorithm::row_vector;
}

#define LOOM_INSTANTIATE_SPMV_OMP(V, I) LOOM_INSTANTIATE_SPMV_KERNELS(OmpExecutor, V, I);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV_OMP)

}  // namespace loom::sparse::omp
