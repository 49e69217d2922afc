// Argument checks and backend dispatch of SpMV (include/loom/sparse/spmv.hpp).
#include "loom/sparse/spmv.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* spmv_where = "loom::sparse::spmv";

std::string lowercase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool transposes(Mode mode) { return mode == Mode::transpose || mode == Mode::conj_transpose; }

std::string executor_name(const std::shared_ptr<const Executor>& exec)
{
    return exec ? exec->name() : "none";
}

/// Whether a and b share an element. Blocks with one stride (views into one matrix, such as
/// two columns of a Krylov basis) are compared exactly; others by the memory they span.
template <typename V>
bool overlap(const matrix::Dense<V>& a, const matrix::Dense<V>& b)
{
    if (a.size().count() == 0 || b.size().count() == 0) return false;
    const auto a_begin = reinterpret_cast<std::uintptr_t>(a.data());
    const auto b_begin = reinterpret_cast<std::uintptr_t>(b.data());
    const auto a_end = a_begin + a.values().size() * sizeof(V);
    const auto b_end = b_begin + b.values().size() * sizeof(V);
    if (a_begin >= b_end || b_begin >= a_end) return false;
    const auto bytes = static_cast<std::intptr_t>(b_begin - a_begin);
    if (a.stride() != b.stride() || bytes % static_cast<std::intptr_t>(sizeof(V)) != 0) {
        return true;
    }
    // b(i, j) is a(i + row_shift, column_shift + j), or, where column_shift + j passes the
    // stride, a(i + row_shift + 1, column_shift + j - stride).
    const size_type stride = a.stride();
    const size_type offset = bytes / static_cast<std::intptr_t>(sizeof(V));
    const size_type row_shift = offset >= 0 ? offset / stride : -((-offset + stride - 1) / stride);
    const size_type column_shift = offset - row_shift * stride;
    const auto rows_meet = [&](size_type shift) {
        return shift < a.rows() && shift + b.rows() > 0;
    };
    return (column_shift < a.cols() && rows_meet(row_shift)) ||
           (column_shift + b.cols() > stride && rows_meet(row_shift + 1));
}

/// Shapes fit op(A), A, x and y share an executor, and y does not overlap x.
template <typename V, typename Matrix>
void check_spmv(Mode mode, const Matrix& A, const matrix::Dense<V>& x,
                const matrix::Dense<V>& y)
{
    const dim2 op = transposes(mode) ? A.size().transposed() : A.size();
    const std::string op_name = std::string("op(A) with mode ") + to_string(mode);
    if (x.rows() != op.cols) {
        throw DimensionMismatch(spmv_where, op_name, op, "x", x.size(),
                                "x needs one row per column of op(A)");
    }
    if (y.rows() != op.rows) {
        throw DimensionMismatch(spmv_where, op_name, op, "y", y.size(),
                                "y needs one row per row of op(A)");
    }
    if (x.cols() != y.cols()) {
        throw DimensionMismatch(spmv_where, "x", x.size(), "y", y.size(),
                                "x and y need the same number of columns");
    }
    const auto& exec = A.executor();
    for (const auto* operand : {&x.executor(), &y.executor()}) {
        if (!exec || !*operand || !exec->same_memory_as(**operand)) {
            throw BadInput(spmv_where, "A, x and y must live in one executor's memory (A is on " +
                                           executor_name(exec) + ", x on " +
                                           executor_name(x.executor()) + ", y on " +
                                           executor_name(y.executor()) + ")");
        }
    }
    if (overlap(x, y)) {
        throw BadInput(spmv_where, "y shares elements with x; the result needs its own storage");
    }
}

/// True when the product is trivial and y has been handled without a kernel: nothing to
/// compute (no rows or columns), or alpha == 0 so that y = beta * y (x and A are not read).
template <typename V>
bool handled_trivially(V alpha, V beta, matrix::Dense<V>& y)
{
    if (y.rows() == 0 || y.cols() == 0) return true;
    if (alpha != V{0}) return false;
    if (beta == V{0}) {
        blas::fill(y, V{0});
    } else if (beta != V{1}) {
        blas::scal(beta, y);
    }
    return true;
}

/// Calls backend::call on A's executor, `e` naming the concrete executor in `call`.
#define LOOM_SPMV_DISPATCH(exec_ptr, call)                                                   \
    (exec_ptr)->run(detail::overloaded{                                                      \
        [&](const ReferenceExecutor& e) { reference::call; },                                \
        [&]([[maybe_unused]] const OmpExecutor& e) { LOOM_OMP_CALL(spmv_where, omp::call); }, \
        [&]([[maybe_unused]] const CudaExecutor& e) {                                        \
            LOOM_CUDA_CALL(spmv_where, cuda::call);                                          \
        }})

}  // namespace

Mode parse_mode(const std::string& text)
{
    const auto t = lowercase(text);
    if (t == "n" || t == "none") return Mode::none;
    if (t == "t" || t == "transpose") return Mode::transpose;
    if (t == "c" || t == "conjugate") return Mode::conjugate;
    if (t == "h" || t == "conj_transpose") return Mode::conj_transpose;
    throw BadInput("loom::sparse::parse_mode",
                   "unknown mode '" + text +
                       "' (expected n, t, c, h or none, transpose, conjugate, conj_transpose)");
}

const char* to_string(Mode mode)
{
    switch (mode) {
    case Mode::none: return "none";
    case Mode::transpose: return "transpose";
    case Mode::conjugate: return "conjugate";
    case Mode::conj_transpose: return "conj_transpose";
    }
    return "unknown";
}

SpmvAlgorithm parse_spmv_algorithm(const std::string& text)
{
    const auto t = lowercase(text);
    if (t == "automatic" || t == "auto") return SpmvAlgorithm::automatic;
    if (t == "row_vector") return SpmvAlgorithm::row_vector;
    if (t == "stream") return SpmvAlgorithm::stream;
    if (t == "load_balanced") return SpmvAlgorithm::load_balanced;
    if (t == "vendor") return SpmvAlgorithm::vendor;
    throw BadInput("loom::sparse::parse_spmv_algorithm",
                   "unknown SpMV algorithm '" + text +
                       "' (expected automatic, row_vector, stream, load_balanced or vendor)");
}

const char* to_string(SpmvAlgorithm algorithm)
{
    switch (algorithm) {
    case SpmvAlgorithm::automatic: return "automatic";
    case SpmvAlgorithm::row_vector: return "row_vector";
    case SpmvAlgorithm::stream: return "stream";
    case SpmvAlgorithm::load_balanced: return "load_balanced";
    case SpmvAlgorithm::vendor: return "vendor";
    }
    return "unknown";
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Csr<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y, const SpmvOptions& options)
{
    check_spmv(mode, A, x, y);
    // Checked before the trivial cases so that a bad option fails the same way on any input.
    if (options.algorithm == SpmvAlgorithm::vendor && A.executor()->is_host()) {
        throw NotSupported(spmv_where,
                           "SpmvAlgorithm::vendor is cuSPARSE, available on CUDA executors "
                           "only; A lives on " + A.executor()->name() +
                               " (use automatic, row_vector, stream or load_balanced)");
    }
    if (handled_trivially(alpha, beta, y)) return;
    A.executor()->run(detail::overloaded{
        [&](const ReferenceExecutor& e) {
            reference::spmv_csr(e, mode, alpha, A, x, beta, y, options.algorithm);
        },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL(spmv_where,
                          omp::spmv_csr(e, mode, alpha, A, x, beta, y, options.algorithm));
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL(spmv_where, {
                auto algorithm = options.algorithm;
                if (algorithm == SpmvAlgorithm::automatic) {
                    algorithm = cuda::choose_csr_algorithm(e, A);
                }
                if (algorithm == SpmvAlgorithm::vendor) {
                    cuda::spmv_csr_vendor(e, mode, alpha, A, x, beta, y);
                } else {
                    cuda::spmv_csr(e, mode, alpha, A, x, beta, y, algorithm);
                }
            });
        }});
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Coo<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_SPMV_DISPATCH(A.executor(), spmv_coo(e, mode, alpha, A, x, beta, y));
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Ell<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_SPMV_DISPATCH(A.executor(), spmv_ell(e, mode, alpha, A, x, beta, y));
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Sellp<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_SPMV_DISPATCH(A.executor(), spmv_sellp(e, mode, alpha, A, x, beta, y));
}

template <typename V, typename I>
SpmvAlgorithm choose_spmv_algorithm(const matrix::Csr<V, I>& A)
{
    if (!A.executor()) {
        throw BadInput("loom::sparse::choose_spmv_algorithm", "A has no executor");
    }
    SpmvAlgorithm chosen{};
    A.executor()->run(detail::overloaded{
        [&](const ReferenceExecutor& e) { chosen = reference::choose_csr_algorithm(e, A); },
        [&]([[maybe_unused]] const OmpExecutor& e) {
            LOOM_OMP_CALL("loom::sparse::choose_spmv_algorithm",
                          chosen = omp::choose_csr_algorithm(e, A));
        },
        [&]([[maybe_unused]] const CudaExecutor& e) {
            LOOM_CUDA_CALL("loom::sparse::choose_spmv_algorithm",
                           chosen = cuda::choose_csr_algorithm(e, A));
        }});
    return chosen;
}

#define LOOM_INSTANTIATE_SPMV(V, I)                                                            \
    template void spmv(Mode, V, const matrix::Csr<V, I>&, const matrix::Dense<V>&, V,          \
                       matrix::Dense<V>&, const SpmvOptions&);                                 \
    template void spmv(Mode, V, const matrix::Coo<V, I>&, const matrix::Dense<V>&, V,          \
                       matrix::Dense<V>&);                                                     \
    template void spmv(Mode, V, const matrix::Ell<V, I>&, const matrix::Dense<V>&, V,          \
                       matrix::Dense<V>&);                                                     \
    template void spmv(Mode, V, const matrix::Sellp<V, I>&, const matrix::Dense<V>&, V,        \
                       matrix::Dense<V>&);                                                     \
    template SpmvAlgorithm choose_spmv_algorithm(const matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPMV)

}  // namespace loom::sparse
