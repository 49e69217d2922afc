// Deterministic per-column sums on OpenMP, shared by the vector kernels (blas/dense) and the
// fused Krylov steps (blas/krylov): each thread sums one fixed chunk of rows and the
// per-thread partial sums are combined in thread order, so a result depends only on the
// thread count and the size. Small operands (min_parallel_elements) are handled by the
// calling thread alone. term(i, j) is called exactly once per element, so a term may also
// update the element it reads (a fused update and reduction).
#pragma once

#include <omp.h>

#include <algorithm>
#include <vector>

#include "base/omp/launch.hpp"
#include "loom/base/executor.hpp"

namespace loom::blas::omp {

using loom::omp::min_parallel_elements;

/// One value per column of a host kernel's vectors (its sums, its coefficients): on the stack
/// for the few columns of a solver's vectors, where a std::vector cost an allocation in every
/// kernel of every iteration (16 a GMRES or BiCGSTAB iteration), else on the heap.
template <typename T>
class PerColumn {
public:
    explicit PerColumn(size_type cols)
    {
        if (cols > stack_columns) heap_.resize(static_cast<std::size_t>(cols));
    }
    PerColumn(const PerColumn&) = delete;
    PerColumn& operator=(const PerColumn&) = delete;
    T* data() noexcept { return heap_.empty() ? stack_ : heap_.data(); }
    T& operator[](size_type j) noexcept { return data()[j]; }

private:
    static constexpr size_type stack_columns = 8;
    T stack_[stack_columns] = {};
    std::vector<T> heap_;
};

/// Rows [begin, end) of thread `thread` out of `threads`: contiguous, sizes differ by at most 1.
struct RowRange {
    size_type begin;
    size_type end;
};

inline RowRange static_chunk(size_type rows, int thread, int threads)
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

/// Calls f(begin, end, thread, threads) for the static row chunk of each of the executor's
/// threads, or f(0, rows, 0, 1) once when the work is small or there is one thread.
template <typename F>
void for_row_chunks(const OmpExecutor& exec, size_type rows, size_type elements, F f)
{
    if (elements < min_parallel_elements || exec.num_threads() == 1) {
        f(0, rows, 0, 1);
        return;
    }
#pragma omp parallel num_threads(exec.num_threads())
    {
        const int threads = omp_get_num_threads();
        const int thread = omp_get_thread_num();
        const auto [begin, end] = static_chunk(rows, thread, threads);
        f(begin, end, thread, threads);
    }
}

/// out[j] = sum_i term(i, j) for a rows x cols index space, deterministically for a given
/// thread count: each thread sums its static chunk of rows, partials are added in thread order.
template <typename Acc, typename Term>
void column_sums(const OmpExecutor& exec, size_type rows, size_type cols, Term term, Acc* out)
{
    // One thread sums [0, rows) in the same order as the team of one would, without entering
    // a region (libgomp's entry and exit, in every dot of every iteration).
    if (rows * cols < min_parallel_elements || exec.num_threads() == 1) {
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
    for_row_chunks(exec, rows, rows * cols, [&](size_type begin, size_type end, int thread, int threads) {
        if (thread == 0) team_size = threads;
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
    });
    for (size_type j = 0; j < cols; ++j) {
        Acc sum{};
        for (int t = 0; t < team_size; ++t) sum += partials[t * cols + j];
        out[j] = sum;
    }
}

}  // namespace loom::blas::omp
