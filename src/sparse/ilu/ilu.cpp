// Incomplete factorizations: argument checks, the symbolic phase (on the host: the pattern is
// read back once), the diagonal-shift retries and backend dispatch (include/loom/sparse/ilu.hpp).
#include "loom/sparse/ilu.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "loom/sparse/sptrsv.hpp"
#include "sparse/analyzed_operands.hpp"
#include "sparse/ilu/kernels.hpp"
#include "sparse/ilu/profile.hpp"
#include "sparse/ilu/state.hpp"
#include "sparse/ilu/threshold_search.hpp"
#include "sparse/sptrsv/levels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* symbolic_where = "loom::sparse::ilu_symbolic";
constexpr const char* numeric_where = "loom::sparse::ilu_numeric";

/// OpenMP: a level with fewer rows than this per thread runs chained on one thread (a row of
/// a factorization costs more than a row of a triangular solve, so fewer than SpTRSV's 32).
constexpr size_type omp_thin_rows_per_thread = 8;
/// Shift retries before a factorization is declared impossible: 2^60 times the first shift.
constexpr int max_shift_attempts = 60;

/// A pattern on the host: row pointers and sorted, distinct columns.
template <typename I>
struct HostPattern {
    std::vector<I> ptrs{0};
    std::vector<I> cols;

    I rows() const { return static_cast<I>(ptrs.size()) - 1; }
    void push_row(const std::vector<I>& row)
    {
        cols.insert(cols.end(), row.begin(), row.end());
        ptrs.push_back(static_cast<I>(cols.size()));
    }
};

/// A zero matrix on `pattern`, in exec's memory. The pattern is valid by construction (sorted
/// rows, columns in range): no validate() pass and no host vector of zeros, which with
/// from_host were ~8% of an ILU(0) preconditioner's setup on one thread (perf, add32).
template <typename V, typename I>
matrix::Csr<V, I> zero_matrix(const std::shared_ptr<const Executor>& exec, size_type n,
                              const HostPattern<I>& pattern)
{
    matrix::Csr<V, I> M(exec, dim2{n, n});
    M.row_ptrs() = Array<I>(exec, pattern.ptrs);
    M.col_idxs() = Array<I>(exec, pattern.cols);
    M.values() = Array<V>(exec, static_cast<size_type>(pattern.cols.size()));
    M.values().fill(V{0});
    return M;
}

/// The pattern the factorization starts from: A's (ILU) or that of its lower triangle and
/// its mirror (IC), with every diagonal entry.
template <typename I>
HostPattern<I> base_pattern(size_type n, const std::vector<I>& ptrs, const std::vector<I>& cols,
                            bool cholesky)
{
    // Built in one array (counted, placed, then each row sorted and compacted), not a vector
    // per row: those small allocations were a large part of IC(0)'s setup.
    const auto for_each_entry = [&](auto&& place) {
        for (I r = 0; r < static_cast<I>(n); ++r) {
            place(r, r);
            for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
                const I c = cols[k];
                if (!cholesky) {
                    place(r, c);
                } else if (c < r) {
                    place(r, c);
                    place(c, r);
                }
            }
        }
    };
    std::vector<I> starts(n + 1, 0);
    for_each_entry([&](I r, I) { ++starts[r + 1]; });
    for (size_type r = 0; r < n; ++r) starts[r + 1] += starts[r];
    std::vector<I> entries(starts[n]);
    std::vector<I> next(starts.begin(), starts.end() - 1);
    for_each_entry([&](I r, I c) { entries[next[r]++] = c; });
    HostPattern<I> pattern;
    pattern.ptrs.reserve(n + 1);
    pattern.cols.reserve(entries.size());
    for (size_type r = 0; r < n; ++r) {
        const auto begin = entries.begin() + starts[r];
        const auto end = entries.begin() + starts[r + 1];
        std::sort(begin, end);
        pattern.cols.insert(pattern.cols.end(), begin, std::unique(begin, end));
        pattern.ptrs.push_back(static_cast<I>(pattern.cols.size()));
    }
    return pattern;
}

/// ILU(k)'s pattern by level of fill: an entry of A has level 0; eliminating row k from row i
/// makes (i, j) of level lev(i, k) + lev(k, j) + 1, kept when at most k_max. Symmetric
/// patterns stay symmetric, so IC(k) runs the same on its symmetric base.
template <typename I>
HostPattern<I> level_of_fill(const HostPattern<I>& base, int k_max)
{
    const auto n = base.rows();
    std::vector<int> level(n, INT_MAX);
    std::vector<std::vector<std::pair<I, int>>> upper(n);
    HostPattern<I> pattern;
    std::vector<I> row_cols;
    for (I i = 0; i < n; ++i) {
        std::set<I> row(base.cols.begin() + base.ptrs[i], base.cols.begin() + base.ptrs[i + 1]);
        for (const I j : row) level[j] = 0;
        // Columns inserted lie beyond the k that made them, so the walk meets them later.
        for (auto it = row.begin(); it != row.end() && *it < i; ++it) {
            const I k = *it;
            for (const auto& [j, level_kj] : upper[k]) {
                const int fill = level[k] + level_kj + 1;
                if (fill > k_max) continue;
                if (level[j] == INT_MAX) row.insert(j);
                level[j] = std::min(level[j], fill);
            }
        }
        row_cols.assign(row.begin(), row.end());
        pattern.push_row(row_cols);
        for (const I j : row_cols) {
            if (j > i) upper[i].emplace_back(j, level[j]);
            level[j] = INT_MAX;
        }
    }
    return pattern;
}

/// Each row's diagonal position in a pattern that has every diagonal entry.
template <typename I>
std::vector<I> diagonal_positions(const HostPattern<I>& f)
{
    std::vector<I> diag(f.rows());
    for (I i = 0; i < f.rows(); ++i) {
        const auto begin = f.cols.begin() + f.ptrs[i];
        diag[i] = static_cast<I>(std::lower_bound(begin, f.cols.begin() + f.ptrs[i + 1], i) -
                                 f.cols.begin());
    }
    return diag;
}

/// Position of (r, c) in f, or -1.
template <typename I>
I position(const HostPattern<I>& f, I r, I c)
{
    const auto begin = f.cols.begin() + f.ptrs[r];
    const auto end = f.cols.begin() + f.ptrs[r + 1];
    const auto at = std::lower_bound(begin, end, c);
    return at != end && *at == c ? static_cast<I>(at - f.cols.begin()) : I{-1};
}

/// For every entry (j, i < j) of f below the diagonal, the position of its mirror (i, j), or
/// -1 (elsewhere -1). Where f is symmetric (IC), the entries (j, i) met in increasing row j
/// are row i's entries right of its diagonal in their order: one cursor a row finds each
/// without a search (a binary search per entry, position(), was a quarter of IC(0)'s setup
/// on bcsstk08, one thread); any other mirror is looked up.
template <typename I>
std::vector<I> mirror_positions(const HostPattern<I>& f)
{
    std::vector<I> mirror(f.cols.size(), I{-1});
    std::vector<I> cursor(static_cast<std::size_t>(f.rows()));
    for (I i = 0; i < f.rows(); ++i) {
        auto p = f.ptrs[i];
        while (p < f.ptrs[i + 1] && f.cols[p] <= i) ++p;
        cursor[i] = p;
    }
    for (I j = 0; j < f.rows(); ++j) {
        for (auto p = f.ptrs[j]; p < f.ptrs[j + 1] && f.cols[p] < j; ++p) {
            const I i = f.cols[p];
            mirror[p] = cursor[i] < f.ptrs[i + 1] && f.cols[cursor[i]] == j ? cursor[i]++
                                                                            : position(f, i, j);
        }
    }
    return mirror;
}

/// For every entry of F, the entries of A that make it (rows.hpp: assemble_row): ILU takes
/// A's entries inside F; IC takes the lower triangle and its conjugated mirror.
template <typename I>
void gather_lists(const HostPattern<I>& f, const std::vector<I>& a_ptrs,
                  const std::vector<I>& a_cols, bool cholesky, std::vector<I>& gather_ptrs,
                  std::vector<I>& sources)
{
    // Row r of F in a dense map (column -> position) and, for IC, the mirrors: no search per
    // entry of A (two binary searches each were most of IC(0)'s analysis on bcsstk08).
    std::vector<I> at(static_cast<std::size_t>(f.rows()), I{-1});
    const auto mirror = cholesky ? mirror_positions(f) : std::vector<I>{};
    std::vector<std::pair<I, I>> links;  // (entry of F, source)
    for (I r = 0; r < f.rows(); ++r) {
        for (auto p = f.ptrs[r]; p < f.ptrs[r + 1]; ++p) at[f.cols[p]] = p;
        for (auto k = a_ptrs[r]; k < a_ptrs[r + 1]; ++k) {
            const I c = a_cols[k];
            if (cholesky && c > r) continue;
            const I p = at[c];
            if (p >= 0) links.emplace_back(p, k);
            if (cholesky && c < r) {
                if (const I q = p >= 0 ? mirror[p] : position(f, c, r); q >= 0) {
                    links.emplace_back(q, -k - 1);
                }
            }
        }
        for (auto p = f.ptrs[r]; p < f.ptrs[r + 1]; ++p) at[f.cols[p]] = I{-1};
    }
    // Grouped by entry of F with a counting sort, which keeps each entry's sources in the
    // order found (a stable sort of the links was the largest cost of IC(0)'s setup).
    gather_ptrs.assign(f.cols.size() + 1, 0);
    for (const auto& link : links) ++gather_ptrs[link.first + 1];
    for (size_type p = 0; p < static_cast<size_type>(f.cols.size()); ++p) {
        gather_ptrs[p + 1] += gather_ptrs[p];
    }
    std::vector<I> next(gather_ptrs.begin(), gather_ptrs.end() - 1);
    sources.resize(links.size());
    for (const auto& [p, s] : links) sources[next[p]++] = s;
}

/// The search's parameters; `entries`: A's (ILU) or its lower triangle's (IC) entries, whose
/// fill_limit multiple, less the diagonal, is the budget.
detail::ThresholdParams threshold_params(const IluOptions& options, size_type entries, size_type n)
{
    const auto allowed = static_cast<size_type>(std::floor(options.fill_limit * entries));
    return {options.steps, allowed > n ? allowed - n : 0, options.drop_tolerance,
            is_cholesky(options.kind)};
}

/// ParILUT / ParICT's pattern by the reference's host search, from A gathered onto the base
/// pattern on the host.
template <typename V, typename I>
HostPattern<I> host_threshold_pattern(const ReferenceExecutor& exec, const HostPattern<I>& base,
                                      const matrix::Csr<V, I>& A, const std::vector<I>& a_ptrs,
                                      const std::vector<I>& a_cols, const IluOptions& options)
{
    const bool cholesky = is_cholesky(options.kind);
    const auto diag = diagonal_positions(base);
    std::vector<I> gather_ptrs, sources;
    gather_lists(base, a_ptrs, a_cols, cholesky, gather_ptrs, sources);
    const auto a = A.values().to_host();
    const detail::FactorPattern<I> view{static_cast<size_type>(base.rows()),
                                        static_cast<size_type>(base.cols.size()),
                                        base.ptrs.data(), base.cols.data(), diag.data()};
    std::vector<V> a_f(base.cols.size());
    for (I i = 0; i < base.rows(); ++i) {
        detail::assemble_row(view, i, a.data(), gather_ptrs.data(), sources.data(),
                             static_cast<const V*>(nullptr), V{}, a_f.data());
    }
    const auto n = static_cast<size_type>(base.rows());
    // IC's base pattern is symmetric with every diagonal entry: (nnz + n) / 2 on and below it.
    const auto entries = cholesky ? (base.cols.size() + n) / 2 : A.nnz();
    HostPattern<I> pattern;
    reference::ilu_threshold_pattern(exec, view, a_f.data(), threshold_params(options, entries, n),
                                     pattern.ptrs, pattern.cols);
    return pattern;
}

/// ParILUT / ParICT's pattern by the reference's host search, or F's base or level-of-fill
/// pattern, on the host (the reference's symbolic phase).
template <typename V, typename I>
HostPattern<I> host_factor_pattern(const Executor& exec, const matrix::Csr<V, I>& A,
                                   const std::vector<I>& a_ptrs, const std::vector<I>& a_cols,
                                   const IluOptions& options)
{
    auto base = base_pattern(A.rows(), a_ptrs, a_cols, is_cholesky(options.kind));
    switch (options.kind) {
    case IluKind::parilut:
    case IluKind::parict:  // on the reference only (analyses_on_host)
        return host_threshold_pattern(dynamic_cast<const ReferenceExecutor&>(exec), base, A,
                                      a_ptrs, a_cols, options);
    case IluKind::iluk:
    case IluKind::ick: return level_of_fill(base, options.level);
    default: return base;
    }
}

// clang-format off
/// Runs omp::kernel(e, args...) or cuda::kernel(e, args...) on exec and returns its `Result`:
/// the symbolic steps OpenMP and CUDA run in their own memory (the reference runs the host's).
#define LOOM_ILU_ON_EXECUTOR(Result, exec, kernel, ...)                                        \
    (exec).run(::loom::detail::overloaded{                                                     \
        [&](const ::loom::ReferenceExecutor&) -> Result {                                      \
            throw NotSupported(symbolic_where, "the reference analyses on the host");          \
        },                                                                                     \
        [&]([[maybe_unused]] const ::loom::OmpExecutor& e) -> Result {                         \
            LOOM_OMP_CALL(symbolic_where, return omp::kernel(e, __VA_ARGS__));                 \
        },                                                                                     \
        [&]([[maybe_unused]] const ::loom::CudaExecutor& e) -> Result {                        \
            LOOM_CUDA_CALL(symbolic_where, return cuda::kernel(e, __VA_ARGS__));               \
        }})
// clang-format on

/// F's pattern in the executor's memory (OpenMP, CUDA): A's (IC: its lower triangle's and the
/// mirror's) with every diagonal entry by SpAdd, grown by the threshold search
/// (threshold_unified.hpp); ILU(k)'s level of fill is host code (a set per row), uploaded.
template <typename V, typename I>
matrix::Csr<V, I> executor_factor_pattern(const matrix::Csr<V, I>& A, const IluOptions& options,
                                          detail::IluProfile& profile)
{
    const auto& exec = *A.executor();
    const bool cholesky = is_cholesky(options.kind);
    const auto n = A.rows();
    if (options.kind == IluKind::iluk || options.kind == IluKind::ick) {
        const auto a_ptrs = A.row_ptrs().to_host();
        const auto a_cols = A.col_idxs().to_host();
        return zero_matrix<V>(A.executor(), n,
                              level_of_fill(base_pattern(n, a_ptrs, a_cols, cholesky), options.level));
    }
    using Csr = matrix::Csr<V, I>;
    Csr a_base = LOOM_ILU_ON_EXECUTOR(Csr, exec, ilu_threshold_base, A, cholesky);
    profile.lap("base pattern");
    if (options.kind != IluKind::parilut && options.kind != IluKind::parict) return a_base;
    const auto entries = cholesky ? (a_base.nnz() + n) / 2 : A.nnz();
    const auto params = threshold_params(options, entries, n);
    Csr f = LOOM_ILU_ON_EXECUTOR(Csr, exec, ilu_threshold_search, a_base, params);
    profile.lap("threshold search");
    return f;
}

/// L's and U's patterns from F's, and where each entry of F goes in them. ILU: L is F's
/// strictly lower part and a unit diagonal, U its upper part; IC (F symmetric): L is F's
/// lower part, and entry (i, j >= i) of F goes to (j, i) of L.
template <typename I>
void split_pattern(const HostPattern<I>& f, bool cholesky, HostPattern<I>& l, HostPattern<I>& u,
                   std::vector<I>& l_index, std::vector<I>& u_index)
{
    const auto nnz = f.cols.size();
    l_index.assign(nnz, -1);
    u_index.assign(nnz, -1);
    // Room for both at once: growing them row by row copied them over and over.
    const auto rows = static_cast<std::size_t>(f.rows());
    l.ptrs.reserve(rows + 1);
    u.ptrs.reserve(rows + 1);
    l.cols.reserve(cholesky ? (nnz + rows) / 2 : nnz);
    if (!cholesky) u.cols.reserve(nnz);
    std::vector<I> l_row, u_row;
    for (I i = 0; i < f.rows(); ++i) {
        l_row.clear();
        u_row.clear();
        for (auto p = f.ptrs[i]; p < f.ptrs[i + 1]; ++p) {
            const I j = f.cols[p];
            if (j <= i) {
                if (!cholesky || j < i) l_index[p] = static_cast<I>(l.cols.size() + l_row.size());
                l_row.push_back(j);
            }
            if (j >= i && !cholesky) {
                u_index[p] = static_cast<I>(u.cols.size() + u_row.size());
                u_row.push_back(j);
            }
        }
        l.push_row(l_row);
        if (!cholesky) u.push_row(u_row);
    }
    if (!cholesky) return;
    // l_index so far holds, for entries below the diagonal, their own place in L; entry
    // (i, j > i) goes where its mirror (j, i) went.
    const auto mirror = mirror_positions(f);
    for (I j = 0; j < f.rows(); ++j) {
        for (auto p = f.ptrs[j]; p < f.ptrs[j + 1]; ++p) {
            const I i = f.cols[p];
            if (i == j) {
                l_index[p] = l.ptrs[j + 1] - 1;
            } else if (i < j) {
                if (mirror[p] >= 0) l_index[mirror[p]] = l_index[p];
                l_index[p] = -1;
            }
        }
    }
}

/// Whether the kind factors on A's own pattern (ILU(0), ParILU): then, when A's rows are
/// sorted without duplicates and hold every diagonal entry (sorted_with_every_diagonal), as
/// most matrices come, F is A's pattern and each entry of F is gathered from the entry of A at
/// its place: the symbolic phase needs no pattern of its own.
bool takes_own_pattern(IluKind kind) { return kind == IluKind::ilu0 || kind == IluKind::parilu; }

template <typename I>
bool sorted_with_every_diagonal(const std::vector<I>& ptrs, const std::vector<I>& cols)
{
    const auto n = static_cast<I>(ptrs.size()) - 1;
    for (I r = 0; r < n; ++r) {
        bool diagonal = false;
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) {
            if (k > ptrs[r] && !(cols[k - 1] < cols[k])) return false;
            diagonal = diagonal || cols[k] == r;
        }
        if (!diagonal) return false;
    }
    return true;
}

/// The analysis from F's pattern and gather lists on the host: its diagonal and the split into
/// L's and U's patterns, all moved to the executor.
template <typename V, typename I>
void store_host_analysis(const HostPattern<I>& f, const std::vector<I>& gather_ptrs,
                         const std::vector<I>& sources, bool cholesky,
                         detail::IluState<V, I>& state, matrix::Csr<V, I>& L,
                         matrix::Csr<V, I>& U)
{
    const auto& memory = state.exec;
    const auto n = static_cast<size_type>(f.rows());
    state.row_ptrs = Array<I>(memory, f.ptrs);
    state.col_idxs = Array<I>(memory, f.cols);
    state.diag = Array<I>(memory, diagonal_positions(f));
    state.gather_ptrs = Array<I>(memory, gather_ptrs);
    state.sources = Array<I>(memory, sources);
    HostPattern<I> l_pattern, u_pattern;
    std::vector<I> l_index, u_index;
    split_pattern(f, cholesky, l_pattern, u_pattern, l_index, u_index);
    state.l_index = Array<I>(memory, l_index);
    state.u_index = Array<I>(memory, u_index);
    L = zero_matrix<V>(memory, n, l_pattern);
    if (!cholesky) U = zero_matrix<V>(memory, n, u_pattern);
}

/// F on A's own pattern (takes_own_pattern), for any executor in host memory: the gather
/// lists are the identity. On small matrices the executor analysis' passes (SpAdd for the base
/// pattern, the gather lists by count / scan / place) were most of an ILU(0) setup.
template <typename V, typename I>
void own_pattern_analysis(std::vector<I> a_ptrs, std::vector<I> a_cols,
                          detail::IluState<V, I>& state, matrix::Csr<V, I>& L,
                          matrix::Csr<V, I>& U)
{
    const auto nnz = static_cast<I>(a_cols.size());
    std::vector<I> gather_ptrs(nnz + 1), sources(nnz);
    for (I k = 0; k < nnz; ++k) gather_ptrs[k] = sources[k] = k;
    gather_ptrs[nnz] = nnz;
    HostPattern<I> f;
    f.ptrs = std::move(a_ptrs);
    f.cols = std::move(a_cols);
    store_host_analysis(f, gather_ptrs, sources, false, state, L, U);
}

/// own_pattern_analysis where it applies (then true), for an executor in host memory.
template <typename V, typename I>
bool own_pattern_analysis(const matrix::Csr<V, I>& A, const IluOptions& options,
                          detail::IluState<V, I>& state, matrix::Csr<V, I>& L,
                          matrix::Csr<V, I>& U)
{
    if (!takes_own_pattern(options.kind)) return false;
    auto a_ptrs = A.row_ptrs().to_host();
    auto a_cols = A.col_idxs().to_host();
    if (!sorted_with_every_diagonal(a_ptrs, a_cols)) return false;
    own_pattern_analysis(std::move(a_ptrs), std::move(a_cols), state, L, U);
    return true;
}

/// Whether the symbolic phase runs host_analysis: on the reference, and on one OpenMP thread
/// for the kinds without a threshold search, where its flat passes cost about half the
/// executor analysis' (SpAdd for the base pattern, count / scan / place for the gather lists):
/// IC(0) of nos3 0.35 against 0.75 ms, of bcsstk08 0.6 against 1.0 ms.
bool analyses_on_host(const Executor& exec, const IluOptions& options)
{
    if (exec.kind() == ExecKind::reference) return true;
    const auto* omp = dynamic_cast<const OmpExecutor*>(&exec);
    return omp && omp->num_threads() == 1 && options.kind != IluKind::parilut &&
           options.kind != IluKind::parict;
}

/// The analysis on the host (the pattern is read back once): F's pattern, its diagonal, the
/// gather lists, and the split into L's and U's patterns.
template <typename V, typename I>
void host_analysis(const Executor& exec, const matrix::Csr<V, I>& A,
                   const IluOptions& options, detail::IluState<V, I>& state,
                   matrix::Csr<V, I>& L, matrix::Csr<V, I>& U)
{
    const bool cholesky = is_cholesky(options.kind);
    auto a_ptrs = A.row_ptrs().to_host();
    auto a_cols = A.col_idxs().to_host();
    if (takes_own_pattern(options.kind) && sorted_with_every_diagonal(a_ptrs, a_cols)) {
        own_pattern_analysis(std::move(a_ptrs), std::move(a_cols), state, L, U);
        return;
    }
    const auto f = host_factor_pattern(exec, A, a_ptrs, a_cols, options);
    std::vector<I> gather_ptrs, sources;
    gather_lists(f, a_ptrs, a_cols, cholesky, gather_ptrs, sources);
    store_host_analysis(f, gather_ptrs, sources, cholesky, state, L, U);
}

/// The same in the executor's memory (OpenMP, CUDA: analysis_unified.hpp): nothing of the
/// pattern comes back (but ILU(k)'s level of fill, host code).
template <typename V, typename I>
void executor_analysis(const matrix::Csr<V, I>& A, const IluOptions& options,
                       detail::IluState<V, I>& state, matrix::Csr<V, I>& L,
                       matrix::Csr<V, I>& U, detail::IluProfile& profile)
{
    using Analysis = detail::FactorAnalysis<V, I>;
    auto f = executor_factor_pattern(A, options, profile);
    auto analysis = LOOM_ILU_ON_EXECUTOR(Analysis, *state.exec, ilu_analyse, A, f,
                                         is_cholesky(options.kind));
    state.row_ptrs = std::move(f.row_ptrs());
    state.col_idxs = std::move(f.col_idxs());
    state.diag = std::move(analysis.diag);
    state.gather_ptrs = std::move(analysis.gather_ptrs);
    state.sources = std::move(analysis.sources);
    state.l_index = std::move(analysis.l_index);
    state.u_index = std::move(analysis.u_index);
    L = std::move(analysis.l);
    U = std::move(analysis.u);
}

/// The level schedule of F's rows (row i waits on the rows of its strictly lower entries: L's
/// dependencies) by SpTRSV's schedule-only analysis of L (sptrsv_levels: on the device for
/// CUDA, which reads back only the level pointers; no copy of L, no diagonal check); on
/// OpenMP thin levels chained by the factorization's own width, on CUDA the levels cut into
/// blocks.
template <typename V, typename I>
void schedule_rows(const matrix::Csr<V, I>& L, detail::IluState<V, I>& state,
                   detail::IluProfile& profile)
{
    if (L.rows() == 0) return;  // no levels
    auto levels = sptrsv_levels(L, {.uplo = blas::Uplo::lower});
    profile.lap("levels: sptrsv_levels");
    const auto& exec = *state.exec;
    auto& schedule = state.schedule;
    schedule.order = std::move(levels.level_rows);
    schedule.level_ptrs = std::move(levels.level_ptrs);
    schedule.host_level_ptrs = schedule.level_ptrs.to_host();
    if (exec.kind() != ExecKind::cuda) schedule.host_order = schedule.order.to_host();
    const auto* omp = dynamic_cast<const OmpExecutor*>(&exec);
    detail::group_stages(schedule,
                         omp ? omp_thin_rows_per_thread * std::max(omp->num_threads(), 1) : 0);
    if (exec.kind() == ExecKind::cuda) {
        LOOM_CUDA_CALL(symbolic_where,
                       cuda::ilu_level_blocks(dynamic_cast<const CudaExecutor&>(exec),
                                              state.pattern(), schedule));
    }
}

void check_options(const IluOptions& options)
{
    const auto fail = [](const std::string& what) { throw BadInput(symbolic_where, what); };
    if (options.level < 0) fail("IluOptions::level must be >= 0");
    if (options.sweeps < 0) fail("IluOptions::sweeps must be >= 0");
    if (options.steps < 0) fail("IluOptions::steps must be >= 0");
    if (!(options.fill_limit > 0)) fail("IluOptions::fill_limit must be > 0");
    if (!(options.drop_tolerance >= 0)) fail("IluOptions::drop_tolerance must be >= 0");
    if (!(options.initial_shift > 0)) fail("IluOptions::initial_shift must be > 0");
}

/// NotSupported unless cuSPARSE's csrilu02 can run this factorization.
template <typename I>
void check_vendor(const Executor& exec, const IluOptions& options)
{
    const auto fail = [](const std::string& what) {
        throw NotSupported(symbolic_where, "IluAlgorithm::vendor (cuSPARSE csrilu02) " + what);
    };
    if (exec.kind() != ExecKind::cuda) fail("runs on CUDA executors only; A lives on " + exec.name());
    if (options.kind != IluKind::ilu0) {
        fail(std::string("computes ILU(0) only, not ") + to_string(options.kind));
    }
    if (sizeof(I) != sizeof(int32)) fail("takes 32-bit indices only");
}

/// Whether the numeric phase eliminates row by row in level order (the other kinds sweep,
/// every entry at once, and need no level schedule).
bool by_elimination(IluKind kind)
{
    return kind == IluKind::ilu0 || kind == IluKind::iluk || kind == IluKind::ic0 ||
           kind == IluKind::ick;
}

bool may_shift(const IluOptions& options)
{
    return options.diagonal_shift == DiagonalShift::on ||
           (options.diagonal_shift == DiagonalShift::automatic && is_cholesky(options.kind));
}

/// r_i = the largest |a_ij| of row i (the scale of row i's shift), on exec.
template <typename V, typename I>
Array<V> shift_scale(const std::shared_ptr<const Executor>& exec, const matrix::Csr<V, I>& A)
{
    const auto ptrs = A.row_ptrs().to_host();
    const auto values = A.values().to_host();
    std::vector<V> scale(A.rows(), V{1});
    for (size_type r = 0; r < A.rows(); ++r) {
        remove_complex_t<V> largest = 0;
        for (auto k = ptrs[r]; k < ptrs[r + 1]; ++k) largest = std::max(largest, std::abs(values[k]));
        if (largest > 0) scale[r] = V{largest};
    }
    return Array<V>(exec, scale);
}

/// F's values for A + shift * diag(scale) (scale: nullptr for none); the first row whose
/// pivot broke, or n.
template <typename V, typename I>
size_type factor_values(const detail::IluState<V, I>& state, const IluOptions& options,
                        const matrix::Csr<V, I>& A, const V* scale, double shift,
                        Array<V>& values)
{
    const auto& exec = *state.exec;
    const auto f = state.pattern();
    const auto nnz = static_cast<size_type>(state.col_idxs.size());
    detail::IluProfile profile(exec, "numeric");
    const detail::Assembly<V, I> assembly{A.values().const_data(), state.gather_ptrs.const_data(),
                                          state.sources.const_data(), scale,
                                          static_cast<V>(shift)};
    const bool cholesky = is_cholesky(options.kind);
    if (by_elimination(options.kind) && options.algorithm == IluAlgorithm::native) {
        // The elimination assembles its rows and checks the pivots as it goes (CUDA: all in
        // one launch).
        const auto bad = LOOM_RUN_KERNEL(numeric_where, exec, ilu_factorize, f, state.schedule,
                                         assembly, cholesky, values.data());
        profile.lap("assemble, factorize, pivot check");
        return bad;
    }
    Array<V> a_f(state.exec, nnz);
    LOOM_RUN_KERNEL(numeric_where, exec, ilu_assemble, f, assembly.a, assembly.gather_ptrs,
                    assembly.sources, assembly.scale, assembly.shift, a_f.data());
    profile.lap("assemble");
    size_type vendor_zero_pivot = f.n;
    if (options.algorithm == IluAlgorithm::vendor) {
        values = Array<V>(state.exec, a_f);
        LOOM_CUDA_CALL(numeric_where, vendor_zero_pivot = cuda::ilu_vendor_factorize(
                                          dynamic_cast<const CudaExecutor&>(exec), state.vendor,
                                          f, values.data()));
    } else {
        LOOM_RUN_KERNEL(numeric_where, exec, ilu_initial_guess, f, a_f.const_data(),
                        values.data());
        Array<V> next(state.exec, nnz);
        for (int s = 0; s < options.sweeps; ++s) {
            LOOM_RUN_KERNEL(numeric_where, exec, ilu_sweep, f, a_f.const_data(),
                            values.const_data(), next.data());
            std::swap(values, next);
        }
    }
    profile.lap("factorize");
    const auto bad = std::min(
        vendor_zero_pivot, LOOM_RUN_KERNEL(numeric_where, exec, ilu_first_bad_pivot, f,
                                           a_f.const_data(), values.const_data(), cholesky));
    profile.lap("pivot check");
    return bad;
}

/// Runs factor(scale, shift) (returning the first row whose pivot broke, or n) with shift 0,
/// then, where the options allow it, with shifts from initial_shift doubling until the pivots
/// hold; returns the shift used. NumericalError naming the row when none helps.
template <typename V, typename I, typename Factor>
double with_shifts(const detail::IluState<V, I>& state, const IluOptions& options,
                   const matrix::Csr<V, I>& A, Factor&& factor)
{
    const bool cholesky = is_cholesky(options.kind);
    Array<V> scale;
    double shift = 0;
    for (int attempt = 0;; ++attempt) {
        const auto bad = factor(std::as_const(scale), shift);
        if (bad == A.rows()) return shift;
        if (!may_shift(options) || attempt == max_shift_attempts) {
            throw NumericalError(
                numeric_where,
                "row " + std::to_string(bad) + " has a zero, tiny" +
                    (cholesky ? ", non-positive" : "") + " or non-finite pivot" +
                    (may_shift(options) ? " even with the largest diagonal shift tried"
                                        : " (IluOptions::diagonal_shift = on shifts the diagonal)"));
        }
        if (shift == 0) scale = shift_scale(state.exec, A);
        shift = shift == 0 ? options.initial_shift : 2 * shift;
    }
}

/// ILUT's p: L and U each keep fill_limit * nnz(A) / (2n) entries a row, so that the factors
/// keep about fill_limit * nnz(A) entries, as ParILUT's budget.
size_type ilut_per_row(const IluOptions& options, size_type nnz, size_type n)
{
    const double per_row = options.fill_limit * static_cast<double>(nnz) /
                           (2.0 * static_cast<double>(std::max<size_type>(n, 1)));
    return std::max<size_type>(1, static_cast<size_type>(std::ceil(per_row)));
}

/// A on the host, as ILUT reads it (it computes there for every executor).
template <typename V, typename I>
struct HostCopy {
    std::vector<I> ptrs, cols;
    std::vector<V> vals, scale;

    explicit HostCopy(const matrix::Csr<V, I>& A)
        : ptrs(A.row_ptrs().to_host()), cols(A.col_idxs().to_host()), vals(A.values().to_host())
    {
    }
    detail::IlutInput<V, I> input(double shift) const
    {
        return {static_cast<size_type>(ptrs.size()) - 1, ptrs.data(), cols.data(), vals.data(),
                shift > 0 ? scale.data() : nullptr, static_cast<V>(shift)};
    }
};

/// ILUT's symbolic phase: the elimination with dropping on the host, its decisions kept; L and
/// U on A's executor.
template <typename V, typename I>
void ilut_analysis(const matrix::Csr<V, I>& A, const IluOptions& options,
                   detail::IluState<V, I>& state, matrix::Csr<V, I>& L, matrix::Csr<V, I>& U)
{
    HostCopy<V, I> a(A);
    auto& ilut = state.ilut;
    ilut = detail::ilut_pattern(a.input(0), ilut_per_row(options, A.nnz(), A.rows()),
                                options.drop_tolerance, state.ilut_factors);
    state.ilut_a_values = std::move(a.vals);
    const dim2 size{A.rows(), A.rows()};
    L = matrix::Csr<V, I>::from_host(state.exec, size, ilut.l_ptrs, ilut.l_cols,
                                     std::vector<V>(ilut.l_cols.size()));
    U = matrix::Csr<V, I>::from_host(state.exec, size, ilut.u_ptrs, ilut.u_cols,
                                     std::vector<V>(ilut.u_cols.size()));
}

/// The first row of U whose diagonal is not finite, or n (ilut_values' answer).
template <typename V, typename I>
size_type first_non_finite_pivot(const detail::IlutPattern<I>& pattern,
                                 const detail::IlutValues<V>& factors)
{
    const auto n = static_cast<size_type>(pattern.u_ptrs.size()) - 1;
    for (size_type i = 0; i < n; ++i) {
        const double m = static_cast<double>(std::abs(factors.u[pattern.u_ptrs[i]]));
        if (!(m <= std::numeric_limits<double>::max())) return i;
    }
    return n;
}

/// ILUT's numeric phase: the recorded elimination on the host, the factors copied to L and U.
template <typename V, typename I>
void ilut_numeric(detail::IluState<V, I>& state, const IluOptions& options,
                  const matrix::Csr<V, I>& A, matrix::Csr<V, I>& L, matrix::Csr<V, I>& U)
{
    HostCopy<V, I> a(A);
    detail::IlutValues<V> factors;
    state.shift = with_shifts(state, options, A, [&](const Array<V>& scale, double shift) {
        if (shift == 0 && a.vals == state.ilut_a_values) {
            // The symbolic phase's values: the elimination would repeat it number for number
            // (half of an ILUT setup).
            factors = state.ilut_factors;
            return first_non_finite_pivot(state.ilut, factors);
        }
        if (shift > 0 && a.scale.empty()) a.scale = scale.to_host();
        return detail::ilut_values(a.input(shift), state.ilut, options.drop_tolerance, factors);
    });
    state.replaced_pivots = factors.replaced_pivots;
    L.values() = Array<V>(state.exec, factors.l);
    U.values() = Array<V>(state.exec, factors.u);
}

}  // namespace

IluKind parse_ilu_kind(const std::string& text)
{
    return names_of(IluKind{}).parse(text, "loom::sparse::parse_ilu_kind");
}

bool is_cholesky(IluKind kind) noexcept
{
    return kind == IluKind::ic0 || kind == IluKind::ick || kind == IluKind::paric ||
           kind == IluKind::parict;
}

template <typename V, typename I>
size_type IluHandle<V, I>::l_nnz() const
{
    return this->analysis("loom::sparse::IluHandle::l_nnz").l_nnz;
}

template <typename V, typename I>
size_type IluHandle<V, I>::u_nnz() const
{
    return this->analysis("loom::sparse::IluHandle::u_nnz").u_nnz;
}

template <typename V, typename I>
size_type IluHandle<V, I>::levels() const
{
    return this->analysis("loom::sparse::IluHandle::levels").schedule.levels();
}

template <typename V, typename I>
double IluHandle<V, I>::shift() const
{
    return this->analysis("loom::sparse::IluHandle::shift").shift;
}

template <typename V, typename I>
SptrsvLevels<I> IluHandle<V, I>::lower_levels() const
{
    const auto& state = this->analysis("loom::sparse::IluHandle::lower_levels");
    const auto& schedule = state.schedule;
    if (schedule.levels() == 0) return {};
    return {Array<I>(state.exec, schedule.level_ptrs), Array<I>(state.exec, schedule.order)};
}

template <typename V, typename I>
SptrsvLevels<I> IluHandle<V, I>::reversed_levels() const
{
    constexpr const char* where = "loom::sparse::IluHandle::reversed_levels";
    const auto& state = this->analysis(where);
    const auto& schedule = state.schedule;
    const auto levels = schedule.levels();
    if (levels == 0) return {};
    const auto& ptrs = schedule.host_level_ptrs;
    std::vector<I> reversed(levels + 1, 0);
    for (size_type l = 0; l < levels; ++l) {
        reversed[l + 1] = reversed[l] + (ptrs[levels - l] - ptrs[levels - l - 1]);
    }
    SptrsvLevels<I> out{Array<I>(state.exec, reversed),
                        Array<I>(state.exec, static_cast<size_type>(ptrs.back()))};
    if (state.exec->kind() == ExecKind::cuda) {
        LOOM_CUDA_CALL(where, cuda::ilu_reversed_levels(
                                  dynamic_cast<const CudaExecutor&>(*state.exec), schedule,
                                  out.level_ptrs.const_data(), out.level_rows.data()));
        return out;
    }
    std::vector<I> order(ptrs.back());
    for (size_type l = 0; l < levels; ++l) {
        std::copy(schedule.host_order.begin() + ptrs[l], schedule.host_order.begin() + ptrs[l + 1],
                  order.begin() + reversed[levels - 1 - l]);
    }
    out.level_rows = Array<I>(state.exec, order);
    return out;
}

template <typename V, typename I>
size_type IluHandle<V, I>::replaced_pivots() const
{
    return this->analysis("loom::sparse::IluHandle::replaced_pivots").replaced_pivots;
}

template <typename V, typename I>
void ilu_symbolic(IluHandle<V, I>& handle, const matrix::Csr<V, I>& A, matrix::Csr<V, I>& L,
                  matrix::Csr<V, I>& U)
{
    const auto& exec = A.executor();
    if (!exec) throw BadInput(symbolic_where, "A has no executor (it was default-constructed)");
    if (A.rows() != A.cols()) {
        throw DimensionMismatch(symbolic_where, "A", A.size(), "A", A.size(),
                                "an incomplete factorization needs a square matrix");
    }
    const auto& options = handle.options();
    check_options(options);
    if (options.algorithm == IluAlgorithm::vendor) check_vendor<I>(*exec, options);
    const bool cholesky = is_cholesky(options.kind);
    detail::IluProfile profile(*exec, "symbolic");
    auto state = std::make_unique<detail::IluState<V, I>>();
    state->exec = exec;
    matrix::Csr<V, I> new_l, new_u;
    if (options.kind == IluKind::ilut) {
        ilut_analysis(A, options, *state, new_l, new_u);
    } else if (analyses_on_host(*exec, options)) {
        host_analysis(*exec, A, options, *state, new_l, new_u);
    } else if (exec->kind() == ExecKind::cuda ||
               !own_pattern_analysis(A, options, *state, new_l, new_u)) {
        executor_analysis(A, options, *state, new_l, new_u, profile);
    }
    profile.lap("analysis");
    state->l_nnz = new_l.nnz();
    state->u_nnz = cholesky ? 0 : new_u.nnz();
    // csrilu02 (vendor) schedules its own rows.
    if (by_elimination(options.kind) && options.algorithm == IluAlgorithm::native) {
        schedule_rows(new_l, *state, profile);
        profile.lap("levels: stages, blocks");
    }
    if (options.algorithm == IluAlgorithm::vendor) {
        LOOM_CUDA_CALL(symbolic_where,
                       state->vendor = cuda::ilu_vendor_analysis<V>(
                           dynamic_cast<const CudaExecutor&>(*exec), state->pattern()));
        profile.lap("csrilu02 analysis");
    }

    const auto check = options.pattern_check;
    state->a_pattern = pattern_fingerprint(A, check);
    L = std::move(new_l);
    state->l_pattern = pattern_fingerprint(L, check);  // after the move, which empties its cache
    if (!cholesky) {
        U = std::move(new_u);
        state->u_pattern = pattern_fingerprint(U, check);
    }
    profile.lap("factors, fingerprints");
    handle.adopt(std::move(state));
    profile.lap("previous analysis freed");
}

template <typename V, typename I>
void ilu_numeric(IluHandle<V, I>& handle, const matrix::Csr<V, I>& A, matrix::Csr<V, I>& L,
                 matrix::Csr<V, I>& U)
{
    auto* state = &handle.analysis(numeric_where, "ilu_symbolic");
    const auto& options = handle.options();
    const bool cholesky = is_cholesky(options.kind);
    // IC kinds leave U alone: L is the whole factor.
    const detail::AnalyzedOperand<V, I> operands[] = {
        {"A", state->a_pattern, A}, {"L", state->l_pattern, L}, {"U", state->u_pattern, U}};
    detail::check_analyzed_operands<V, I>(numeric_where, *state->exec, options.pattern_check,
                                          std::span(operands).first(cholesky ? 2 : 3));

    if (options.kind == IluKind::ilut) {
        ilut_numeric(*state, options, A, L, U);
        return;
    }
    Array<V> values(state->exec, state->col_idxs.size());
    state->shift = with_shifts(*state, options, A, [&](const Array<V>& scale, double shift) {
        return factor_values(*state, options, A, shift > 0 ? scale.const_data() : nullptr, shift,
                             values);
    });
    detail::IluProfile profile(*state->exec, "numeric");
    LOOM_RUN_KERNEL(numeric_where, *state->exec, ilu_extract, state->pattern(),
                    values.const_data(), state->l_index.const_data(),
                    state->u_index.const_data(), cholesky, L.values().data(),
                    cholesky ? static_cast<V*>(nullptr) : U.values().data());
    profile.lap("extract");
}

#define LOOM_INSTANTIATE_ILU(V, I)                                                          \
    template class IluHandle<V, I>;                                                         \
    template void ilu_symbolic(IluHandle<V, I>&, const matrix::Csr<V, I>&,                  \
                               matrix::Csr<V, I>&, matrix::Csr<V, I>&);                     \
    template void ilu_numeric(IluHandle<V, I>&, const matrix::Csr<V, I>&, matrix::Csr<V, I>&, \
                              matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ILU)

}  // namespace loom::sparse
