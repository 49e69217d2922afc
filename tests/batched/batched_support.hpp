// Helpers for the batched routine tests: batches of strided matrices on the host, a long
// double reference, and running a routine in any mode over a batch through the team launcher.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/executor.hpp"
#include "loom/batched/routines.hpp"
#include "loom/launch/team.hpp"
#include "support/random.hpp"
#include "support/types.hpp"

namespace loom::test::batched {

using namespace loom::batched;

/// The long double type of the reference computations.
template <typename V>
using Long = std::conditional_t<is_complex_v<V>, std::complex<long double>, long double>;

template <typename V>
double epsilon()
{
    return std::numeric_limits<remove_complex_t<V>>::epsilon();
}

/// A dense long double matrix (row-major).
template <typename L>
struct Mat {
    int rows = 0;
    int cols = 0;
    std::vector<L> values;

    Mat() = default;
    Mat(int r, int c) : rows(r), cols(c), values(static_cast<std::size_t>(r) * c, L(0)) {}
    L& operator()(int i, int j) { return values[static_cast<std::size_t>(i) * cols + j]; }
    const L& operator()(int i, int j) const { return values[static_cast<std::size_t>(i) * cols + j]; }

    static Mat identity(int n)
    {
        Mat I(n, n);
        for (int i = 0; i < n; ++i) I(i, i) = L(1);
        return I;
    }
};

template <typename L>
Mat<L> operator*(const Mat<L>& A, const Mat<L>& B)
{
    Mat<L> C(A.rows, B.cols);
    for (int i = 0; i < A.rows; ++i) {
        for (int k = 0; k < A.cols; ++k) {
            for (int j = 0; j < B.cols; ++j) C(i, j) += A(i, k) * B(k, j);
        }
    }
    return C;
}

template <typename L>
Mat<L> adjoint(const Mat<L>& A, bool conjugate = true)
{
    Mat<L> B(A.cols, A.rows);
    for (int i = 0; i < A.rows; ++i) {
        for (int j = 0; j < A.cols; ++j) B(j, i) = conjugate ? loom::conj(A(i, j)) : A(i, j);
    }
    return B;
}

/// op(A) for a Trans tag.
template <typename TransT, typename L>
Mat<L> op(const Mat<L>& A)
{
    if constexpr (std::is_same_v<TransT, Trans::NoTranspose>) {
        return A;
    } else {
        return adjoint(A, std::is_same_v<TransT, Trans::ConjTranspose>);
    }
}

template <typename L>
long double max_abs(const Mat<L>& A)
{
    long double m = 0;
    for (const auto& v : A.values) m = std::max(m, static_cast<long double>(std::abs(v)));
    return m;
}

/// max |A - B| / max(1, max |B|)
template <typename L>
double relative_difference(const Mat<L>& A, const Mat<L>& B)
{
    EXPECT_EQ(A.rows, B.rows);
    EXPECT_EQ(A.cols, B.cols);
    long double diff = 0;
    for (std::size_t i = 0; i < A.values.size(); ++i) {
        diff = std::max(diff, static_cast<long double>(std::abs(A.values[i] - B.values[i])));
    }
    return static_cast<double>(diff / std::max<long double>(1, max_abs(B)));
}

/// A batch of rows × cols matrices in one array. Even matrices are row-major with a padded
/// row stride, odd ones column-major with a padded column stride, so that every routine runs
/// on both layouts and never touches the padding.
template <typename V>
class Batch {
public:
    Batch(int count, int rows, int cols)
        : count_(count), rows_(rows), cols_(cols),
          span_(static_cast<size_type>(rows + 2) * (cols + 2)),
          data_(static_cast<std::size_t>(span_ * count), V(99))
    {}

    int count() const { return count_; }
    int rows() const { return rows_; }
    int cols() const { return cols_; }

    View<V> view(size_type b)
    {
        V* base = data_.data() + b * span_;
        if (b % 2 == 0) return {base, rows_, cols_, cols_ + 1, 1};
        return {base, rows_, cols_, 1, rows_ + 2};
    }
    View<const V> view(size_type b) const { return const_cast<Batch*>(this)->view(b); }

    Mat<Long<V>> get(size_type b) const
    {
        Mat<Long<V>> M(rows_, cols_);
        const auto v = view(b);
        for (int i = 0; i < rows_; ++i) {
            for (int j = 0; j < cols_; ++j) M(i, j) = Long<V>(v(i, j));
        }
        return M;
    }
    void set(size_type b, const Mat<Long<V>>& M)
    {
        const auto v = view(b);
        for (int i = 0; i < rows_; ++i) {
            for (int j = 0; j < cols_; ++j) v(i, j) = static_cast<V>(M(i, j));
        }
    }
    /// Random entries in [-1, 1] (+ shift on the diagonal).
    void randomize(std::uint64_t seed, double diagonal_shift = 0)
    {
        std::mt19937_64 rng(seed);
        for (int b = 0; b < count_; ++b) {
            const auto v = view(b);
            for (int i = 0; i < rows_; ++i) {
                for (int j = 0; j < cols_; ++j) {
                    v(i, j) = random_value<V>(rng);
                    if (i == j) v(i, j) += V(static_cast<remove_complex_t<V>>(diagonal_shift));
                }
            }
        }
    }
    /// Whether the padding around the matrices still holds its fill value.
    bool padding_intact() const
    {
        std::vector<char> used(data_.size(), 0);
        for (int b = 0; b < count_; ++b) {
            const auto v = view(b);
            for (int i = 0; i < rows_; ++i) {
                for (int j = 0; j < cols_; ++j) used[&v(i, j) - data_.data()] = 1;
            }
        }
        for (std::size_t k = 0; k < data_.size(); ++k) {
            if (!used[k] && data_[k] != V(99)) return false;
        }
        return true;
    }

private:
    int count_;
    int rows_;
    int cols_;
    size_type span_;
    std::vector<V> data_;
};

/// A batch of vectors of one length, with stride 2 (odd entries are padding).
template <typename V>
class VectorBatch {
public:
    VectorBatch(int count, int size, V fill = V(0))
        : size_(size), data_(static_cast<std::size_t>(count) * (2 * size + 1), fill)
    {}
    VectorView<V> view(size_type b) { return {data_.data() + b * (2 * size_ + 1), size_, 2}; }
    VectorView<const V> view(size_type b) const
    {
        return {data_.data() + b * (2 * size_ + 1), size_, 2};
    }
    std::vector<Long<V>> get(size_type b) const
    {
        std::vector<Long<V>> x(size_);
        for (int i = 0; i < size_; ++i) x[i] = Long<V>(view(b)(i));
        return x;
    }
    void randomize(std::uint64_t seed)
    {
        std::mt19937_64 rng(seed);
        for (auto& v : data_) v = random_value<V>(rng);
    }

private:
    int size_;
    std::vector<V> data_;
};

/// Pivot arrays for a batch.
class PivotBatch {
public:
    PivotBatch(int count, int size) : size_(size), data_(static_cast<std::size_t>(count) * std::max(size, 1), -1) {}
    VectorView<int> view(size_type b) { return {data_.data() + b * std::max(size_, 1), size_, 1}; }

private:
    int size_;
    std::vector<int> data_;
};

/// Calls Routine::invoke with the member in the team modes, without it in Serial.
template <typename Routine, typename ModeT, typename Member, typename... Args>
auto call(const Member& member, const Args&... args)
{
    if constexpr (std::is_same_v<ModeT, Mode::Serial>) {
        (void)member;
        return Routine::invoke(args...);
    } else {
        return Routine::invoke(member, args...);
    }
}

/// Runs f(member) for every matrix of a batch of count: Serial on the reference executor, the
/// team modes on OpenMP (teams of 4 × 8 requested; one thread each on the host).
template <typename ModeT, typename F>
void run_batch(size_type count, F&& f)
{
    const launch::TeamPolicy policy{count, 4, 8};
    if (std::is_same_v<ModeT, Mode::Serial> || !OmpExecutor::available()) {
        launch::team_parallel_for(*ReferenceExecutor::create(), policy, f);
    } else {
        launch::team_parallel_for(*OmpExecutor::create(), policy, f);
    }
}

/// Calls f(mode) for each mode tag.
template <typename F>
void for_each_mode(F&& f)
{
    f(Mode::Serial{});
    f(Mode::Team{});
    f(Mode::TeamVector{});
}

template <typename ModeT>
const char* mode_name()
{
    if constexpr (std::is_same_v<ModeT, Mode::Serial>) return "Serial";
    else if constexpr (std::is_same_v<ModeT, Mode::Team>) return "Team";
    else return "TeamVector";
}

template <typename TransT>
const char* trans_name()
{
    if constexpr (std::is_same_v<TransT, Trans::NoTranspose>) return "N";
    else if constexpr (std::is_same_v<TransT, Trans::Transpose>) return "T";
    else return "C";
}

/// Tolerance for results of n-long sums of O(1) terms.
template <typename V>
double tol(int n, double factor = 1)
{
    return factor * 20 * std::max(n, 1) * epsilon<V>();
}

}  // namespace loom::test::batched

namespace loom::test::batched {

/// re + i im (im dropped for real types).
template <typename V>
V scalar(double re, double im = 0)
{
    using R = remove_complex_t<V>;
    if constexpr (is_complex_v<V>) {
        return V(static_cast<R>(re), static_cast<R>(im));
    } else {
        return static_cast<V>(re);
    }
}

template <typename V>
V nan_value()
{
    return V(std::numeric_limits<remove_complex_t<V>>::quiet_NaN());
}

/// Calls f(tag) for NoTranspose, Transpose and ConjTranspose.
template <typename F>
void for_each_trans(F&& f)
{
    f(Trans::NoTranspose{});
    f(Trans::Transpose{});
    f(Trans::ConjTranspose{});
}

inline std::string describe(const char* mode, int m, int n, const std::string& more = "")
{
    return std::string(mode) + " " + std::to_string(m) + "x" + std::to_string(n) + " " + more;
}

}  // namespace loom::test::batched
