// Argument checks and backend dispatch of SpMV (include/loom/sparse/spmv.hpp).
#include "loom/sparse/spmv.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/blas/vector.hpp"
#include "sparse/spmv/checks.hpp"
#include "sparse/spmv/kernels.hpp"

namespace loom::sparse {
namespace {

constexpr const char* spmv_where = "loom::sparse::spmv";

using spmv_checks::check_spmv;
using spmv_checks::handled_trivially;

std::string lowercase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

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
    check_spmv(spmv_where, mode, A, x, y);
    // Checked before the trivial cases so that a bad option fails the same way on any input.
    if (options.algorithm == SpmvAlgorithm::vendor && A.executor()->is_host()) {
        throw NotSupported(spmv_where,
                           "SpmvAlgorithm::vendor is cuSPARSE, available on CUDA executors "
                           "only; A lives on " + A.executor()->name() +
                               " (use automatic, row_vector, stream or load_balanced)");
    }
    if (handled_trivially(alpha, beta, y)) return;
    // Not LOOM_RUN_KERNEL: on CUDA the algorithm is chosen here, and vendor is cuSPARSE.
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
    check_spmv(spmv_where, mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_coo, mode, alpha, A, x, beta, y);
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Ell<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(spmv_where, mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_ell, mode, alpha, A, x, beta, y);
}

template <typename V, typename I>
void spmv(Mode mode, V alpha, const matrix::Sellp<V, I>& A, const matrix::Dense<V>& x, V beta,
          matrix::Dense<V>& y)
{
    check_spmv(spmv_where, mode, A, x, y);
    if (handled_trivially(alpha, beta, y)) return;
    LOOM_RUN_KERNEL(spmv_where, *A.executor(), spmv_sellp, mode, alpha, A, x, beta, y);
}

template <typename V, typename I>
SpmvAlgorithm choose_spmv_algorithm(const matrix::Csr<V, I>& A)
{
    if (!A.executor()) {
        throw BadInput("loom::sparse::choose_spmv_algorithm", "A has no executor");
    }
    return LOOM_RUN_KERNEL("loom::sparse::choose_spmv_algorithm", *A.executor(),
                           choose_csr_algorithm, A);
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
