// OpenMP BLAS on Dense. Element-wise kernels split rows statically over the executor's
// threads; reductions give each thread one fixed chunk of rows and combine the per-thread
// partial sums in thread order, so a result depends only on the thread count and the size.
// Small operands (min_parallel_elements) are handled by the calling thread alone.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/instantiate.hpp"
#include "base/omp/launch.hpp"
#include "blas/dense/kernels.hpp"
#include "blas/dense/quotient.hpp"
#include "blas/dense/unified.hpp"

namespace loom::blas::omp {
namespace {

using loom::omp::min_parallel_elements;

/// Rows [begin, end) of thread `thread` out of `threads`: contiguous, sizes differ by at most 1.
struct RowRange {
    size_type begin;
    size_type end;
};

RowRange static_chunk(size_type rows, int thread, int threads)
{
    const size_type base = rows / threads;
    const size_type extra = rows % threads;
    const size_type begin = thread * base + std::min<size_type>(thread, extra);
    return {begin, begin + base + (thread < extra ? 1 : 0)};
}

/// Sum of term(i) over [begin, end) with four independent accumulators, so that the adds
/// are not one serial dependency chain; the order is fixed, hence deterministic.
template <typename Acc, typename Term>
Acc chunk_sum(size_type begin, size_type end, Term term)
{
    Acc s0{}, s1{}, s2{}, s3{};
    size_type i = begin;
    for (; i + 4 <= end; i += 4) {
        s0 += term(i);
        s1 += term(i + 1);
        s2 += term(i + 2);
        s3 += term(i + 3);
    }
    for (; i < end; ++i) s0 += term(i);
    return (s0 + s1) + (s2 + s3);
}

/// out[j] = sum_i term(i, j) for a rows x cols index space, deterministically for a given
/// thread count: each thread sums its static chunk of rows, partials are added in thread order.
template <typename Acc, typename Term>
void column_sums(const OmpExecutor& exec, size_type rows, size_type cols, Term term, Acc* out)
{
    if (rows * cols < min_parallel_elements) {
        if (cols == 1) {
            out[0] = chunk_sum<Acc>(0, rows, [&](size_type i) { return term(i, 0); });
        } else {
            std::fill(out, out + cols, Acc{});
            for (size_type i = 0; i < rows; ++i) {
                for (size_type j = 0; j < cols; ++j) out[j] += term(i, j);
            }
        }
        return;
    }
    const int max_threads = exec.num_threads();
    std::vector<Acc> partials(static_cast<std::size_t>(max_threads * cols), Acc{});
    int team_size = 1;
#pragma omp parallel num_threads(max_threads)
    {
        const int threads = omp_get_num_threads();
        const int thread = omp_get_thread_num();
        if (thread == 0) team_size = threads;
        const auto [begin, end] = static_chunk(rows, thread, threads);
        Acc* mine = partials.data() + thread * cols;
        if (cols == 1) {
            mine[0] = chunk_sum<Acc>(begin, end, [&](size_type i) { return term(i, 0); });
        } else {
            // Accumulate locally: neighbouring threads' partials share cache lines.
            std::vector<Acc> local(static_cast<std::size_t>(cols), Acc{});
            for (size_type i = begin; i < end; ++i) {
                for (size_type j = 0; j < cols; ++j) local[j] += term(i, j);
            }
            std::copy(local.begin(), local.end(), mine);
        }
    }
    for (size_type j = 0; j < cols; ++j) {
        Acc sum{};
        for (int t = 0; t < team_size; ++t) sum += partials[t * cols + j];
        out[j] = sum;
    }
}

template <typename V>
V coefficient(const matrix::Dense<V>& c, size_type j)
{
    return c.cols() == 1 ? c.at(0, 0) : c.at(0, j);
}

}  // namespace

template <typename V>
void dot(const OmpExecutor& exec, const matrix::Dense<V>& x, const matrix::Dense<V>& y,
         matrix::Dense<V>& result, bool conjugate)
{
    const V* xd = x.data();
    const V* yd = y.data();
    const size_type xs = x.stride();
    const size_type ys = y.stride();
    std::vector<V> sums(static_cast<std::size_t>(x.cols()));
    if (conjugate) {
        column_sums<V>(exec, x.rows(), x.cols(),
                       [=](size_type i, size_type j) { return loom::conj(xd[i * xs + j]) * yd[i * ys + j]; },
                       sums.data());
    } else {
        column_sums<V>(exec, x.rows(), x.cols(),
                       [=](size_type i, size_type j) { return xd[i * xs + j] * yd[i * ys + j]; },
                       sums.data());
    }
    for (size_type j = 0; j < x.cols(); ++j) result.at(0, j) = sums[j];
}

template <typename V>
void nrm2(const OmpExecutor& exec, const matrix::Dense<V>& x,
          matrix::Dense<remove_complex_t<V>>& result)
{
    using R = remove_complex_t<V>;
    const V* xd = x.data();
    const size_type xs = x.stride();
    std::vector<R> sums(static_cast<std::size_t>(x.cols()));
    column_sums<R>(exec, x.rows(), x.cols(),
                   [=](size_type i, size_type j) { return squared_norm(xd[i * xs + j]); },
                   sums.data());
    for (size_type j = 0; j < x.cols(); ++j) result.at(0, j) = std::sqrt(sums[j]);
}

template <typename V>
void axpy_quotient(const OmpExecutor& exec, const matrix::Dense<V>& num,
                   const matrix::Dense<V>& den, V sign, const matrix::Dense<V>& x,
                   matrix::Dense<V>& y)
{
    // Not on the shared bodies: a division per element would cost the host more than the
    // memory traffic, so the quotients are formed once per column here (CUDA forms them per
    // element, which is free there and needs no extra kernel).
    const size_type k = x.cols();
    std::vector<V> a(static_cast<std::size_t>(k));
    for (size_type j = 0; j < k; ++j) {
        a[j] = sign * detail::guarded_quotient(coefficient(num, j), coefficient(den, j));
    }
    loom::detail::parallel_for(exec, x.rows(), k, [&](size_type i, size_type j) {
        y.at(i, j) += a[j] * x.at(i, j);
    });
}

}  // namespace loom::blas::omp

namespace loom::blas {
LOOM_FOR_EACH_VALUE_TYPE_ON(LOOM_INSTANTIATE_BLAS_DENSE_BACKEND, omp, unified, OmpExecutor)
}  // namespace loom::blas
