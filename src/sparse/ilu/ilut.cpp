// Saad's ILUT(p, tau) on the host (ilut.hpp): one elimination code for both phases, which
// differ only in who decides what is dropped (the magnitudes, or the symbolic phase's record).
#include "sparse/ilu/ilut.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "base/instantiate.hpp"

namespace loom::sparse::detail {
namespace {

/// Eigen's IncompleteLUT replaces a zero pivot by sqrt(tau) ||a_i||, with its default tau.
constexpr double smallest_replacement_tolerance = 1e-12;

/// Row i of A's 2-norm and largest magnitude.
template <typename V, typename I>
std::pair<double, double> row_scales(const IlutInput<V, I>& a, I i)
{
    double squares = 0, largest = 0;
    for (auto k = a.ptrs[i]; k < a.ptrs[i + 1]; ++k) {
        const double m = static_cast<double>(std::abs(a.vals[k]));
        squares += m * m;
        largest = std::max(largest, m);
    }
    return {std::sqrt(squares), largest};
}

/// A dense row with a list of its entries: row i of A being eliminated. Entries left of the
/// diagonal wait in a min-heap, so the pivots are taken in increasing column (IKJ).
template <typename V, typename I>
class WorkRow {
public:
    explicit WorkRow(size_type n) : value_(n), stamp_(n, -1) {}

    /// Row i of A (duplicates summed) and its diagonal, always present.
    void start(const IlutInput<V, I>& a, I i)
    {
        row_ = i;
        heap_.clear();
        upper_.clear();
        add(i, V{});
        for (auto k = a.ptrs[i]; k < a.ptrs[i + 1]; ++k) add(a.cols[k], a.vals[k]);
        if (a.scale) value_[i] += a.shift * a.scale[i];
    }

    /// Eliminates the entries left of the diagonal by the rows of U (diagonal first in each
    /// row); `use(k, l_ik)` says whether multiplier l_ik stays (a pivot, in `pivots`) or is
    /// dropped before it is used.
    template <typename Use>
    void eliminate(const std::vector<I>& u_ptrs, const std::vector<I>& u_cols,
                   const std::vector<V>& u_vals, Use&& use, std::vector<I>& pivots)
    {
        pivots.clear();
        while (!heap_.empty()) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
            const I k = heap_.back();
            heap_.pop_back();
            const V l = value_[k] / u_vals[u_ptrs[k]];
            value_[k] = l;
            if (!use(k, l)) continue;
            pivots.push_back(k);
            for (auto q = u_ptrs[k] + 1; q < u_ptrs[k + 1]; ++q) add(u_cols[q], -l * u_vals[q]);
        }
    }

    const V& operator[](I j) const { return value_[j]; }
    /// The columns right of the diagonal that the row holds, in the order they appeared.
    const std::vector<I>& upper() const { return upper_; }

private:
    void add(I j, const V& v)
    {
        if (stamp_[j] == row_) {
            value_[j] += v;
            return;
        }
        stamp_[j] = row_;
        value_[j] = v;
        if (j < row_) {
            heap_.push_back(j);
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
        } else if (j > row_) {
            upper_.push_back(j);
        }
    }

    std::vector<V> value_;
    std::vector<I> stamp_;
    std::vector<I> heap_;
    std::vector<I> upper_;
    I row_ = -1;
};

/// Keeps the `count` largest magnitudes of `cols` in `row` (ties: the smaller column), then
/// sorts them by column.
template <typename V, typename I>
void keep_largest(std::vector<I>& cols, size_type count, const WorkRow<V, I>& row)
{
    if (static_cast<size_type>(cols.size()) > count) {
        const auto larger = [&](I x, I y) {
            const auto mx = std::abs(row[x]);
            const auto my = std::abs(row[y]);
            return mx > my || (mx == my && x < y);
        };
        std::nth_element(cols.begin(), cols.begin() + count, cols.end(), larger);
        cols.resize(count);
    }
    std::sort(cols.begin(), cols.end());
}

/// The pivot u_ii = d, replaced (and counted) when zero or tiny against row i's largest
/// |a_ij|, as Eigen's IncompleteLUT does.
template <typename V>
V replaced_pivot(const V& d, std::pair<double, double> scales, double drop_tolerance,
                 size_type& replaced)
{
    const auto [norm, largest] = scales;
    const double m = static_cast<double>(std::abs(d));
    if (!(m <= std::numeric_limits<double>::epsilon() * largest)) return d;  // NaN stays
    ++replaced;
    if (norm == 0) return V{1};  // an empty row: any pivot is as good
    return V(std::sqrt(std::max(drop_tolerance, smallest_replacement_tolerance)) * norm);
}

template <typename V>
bool finite(const V& d)
{
    return static_cast<double>(std::abs(d)) <= std::numeric_limits<double>::max();
}

}  // namespace

template <typename V, typename I>
IlutPattern<I> ilut_pattern(const IlutInput<V, I>& a, size_type per_row, double drop_tolerance,
                            IlutValues<V>& values)
{
    IlutPattern<I> pattern;
    pattern.pivot_ptrs = pattern.l_ptrs = pattern.u_ptrs = {0};
    values = {};
    auto& u_vals = values.u;  // U's values so far: the later rows are eliminated by them
    WorkRow<V, I> row(a.n);
    std::vector<I> pivots, upper;
    for (I i = 0; i < static_cast<I>(a.n); ++i) {
        const auto scales = row_scales(a, i);
        const double tau = drop_tolerance * scales.first;
        const auto stays = [&](I, const V& l) { return !(std::abs(l) < tau); };
        row.start(a, i);
        row.eliminate(pattern.u_ptrs, pattern.u_cols, u_vals, stays, pivots);
        pattern.pivot_cols.insert(pattern.pivot_cols.end(), pivots.begin(), pivots.end());
        pattern.pivot_ptrs.push_back(static_cast<I>(pattern.pivot_cols.size()));

        keep_largest(pivots, per_row, row);
        pattern.l_cols.insert(pattern.l_cols.end(), pivots.begin(), pivots.end());
        for (const I k : pivots) values.l.push_back(row[k]);
        pattern.l_cols.push_back(i);
        values.l.push_back(V{1});
        pattern.l_ptrs.push_back(static_cast<I>(pattern.l_cols.size()));

        upper.clear();
        for (const I j : row.upper()) {
            if (stays(j, row[j])) upper.push_back(j);
        }
        keep_largest(upper, per_row, row);
        pattern.u_cols.push_back(i);
        u_vals.push_back(replaced_pivot(row[i], scales, drop_tolerance, values.replaced_pivots));
        for (const I j : upper) {
            pattern.u_cols.push_back(j);
            u_vals.push_back(row[j]);
        }
        pattern.u_ptrs.push_back(static_cast<I>(pattern.u_cols.size()));
    }
    return pattern;
}

template <typename V, typename I>
size_type ilut_values(const IlutInput<V, I>& a, const IlutPattern<I>& pattern,
                      double drop_tolerance, IlutValues<V>& values)
{
    values.l.assign(pattern.l_cols.size(), V{});
    values.u.assign(pattern.u_cols.size(), V{});
    values.replaced_pivots = 0;
    WorkRow<V, I> row(a.n);
    std::vector<I> pivot_of(a.n, -1);  // pivot_of[k] == i: row i used row k
    std::vector<I> pivots;
    for (I i = 0; i < static_cast<I>(a.n); ++i) {
        for (auto p = pattern.pivot_ptrs[i]; p < pattern.pivot_ptrs[i + 1]; ++p) {
            pivot_of[pattern.pivot_cols[p]] = i;
        }
        const auto recorded = [&](I k, const V&) { return pivot_of[k] == i; };
        row.start(a, i);
        row.eliminate(pattern.u_ptrs, pattern.u_cols, values.u, recorded, pivots);
        const auto l_last = pattern.l_ptrs[i + 1] - 1;  // the unit diagonal
        for (auto p = pattern.l_ptrs[i]; p < l_last; ++p) values.l[p] = row[pattern.l_cols[p]];
        values.l[l_last] = V{1};
        const auto u_first = pattern.u_ptrs[i];  // the diagonal
        values.u[u_first] = replaced_pivot(row[i], row_scales(a, i), drop_tolerance,
                                           values.replaced_pivots);
        if (!finite(values.u[u_first])) return i;
        for (auto p = u_first + 1; p < pattern.u_ptrs[i + 1]; ++p) {
            values.u[p] = row[pattern.u_cols[p]];
        }
    }
    return a.n;
}

#define LOOM_INSTANTIATE_ILUT(V, I)                                                           \
    template IlutPattern<I> ilut_pattern(const IlutInput<V, I>&, size_type, double,         \
                                         IlutValues<V>&);                                   \
    template size_type ilut_values(const IlutInput<V, I>&, const IlutPattern<I>&, double,   \
                                   IlutValues<V>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_ILUT)

}  // namespace loom::sparse::detail
