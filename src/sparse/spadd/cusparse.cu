// cuSPARSE's csrgeam2 as SpaddAlgorithm::vendor: bufferSizeExt and Xcsrgeam2Nnz in the
// symbolic phase (C's row pointers), csrgeam2 in the numeric phase (C's columns and values,
// which it computes again on every call). 32-bit indices only, rows sorted without
// duplicates; the caller checks both. Every status is checked.
#include <complex>
#include <string>
#include <type_traits>
#include <utility>

#include <cusparse.h>

#include "base/cuda/cusparse.hpp"
#include "base/cuda/helpers.cuh"
#include "base/instantiate.hpp"
#include "sparse/spadd/kernels.hpp"

namespace loom::sparse::cuda {
namespace {

constexpr const char* vendor_where = "loom::sparse::spadd (cuSPARSE)";

#define LOOM_CUSPARSE_CHECK(call) loom::cuda::check_cusparse((call), #call, vendor_where)

/// What the numeric phase reuses: a general, zero-based descriptor (for A, B and C) and the
/// workspace csrgeam2 asked for.
struct Geam2State {
    cusparseMatDescr_t descr = nullptr;
    Array<std::byte> workspace;

    Geam2State() { LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseCreateMatDescr)(&descr)); }
    ~Geam2State()
    {
        if (descr != nullptr) LOOM_VENDOR(cusparseDestroyMatDescr)(descr);
    }
    Geam2State(const Geam2State&) = delete;
    Geam2State& operator=(const Geam2State&) = delete;
};

/// The cuSPARSE scalar type of V.
template <typename V>
using vendor_t = std::conditional_t<
    std::is_same_v<V, std::complex<float>>, cuComplex,
    std::conditional_t<std::is_same_v<V, std::complex<double>>, cuDoubleComplex, V>>;

template <typename V>
auto vendor(V* p)
{
    return reinterpret_cast<vendor_t<std::remove_const_t<V>>*>(p);
}
template <typename V>
auto vendor(const V* p)
{
    return reinterpret_cast<const vendor_t<V>*>(p);
}

/// The S, D, C or Z variant of a csrgeam2 function, by the value type.
#define LOOM_GEAM2_CALL(V, function, ...)                          \
    [&] {                                                          \
        if constexpr (std::is_same_v<V, float>)                    \
            return LOOM_VENDOR(cusparseS##function)(__VA_ARGS__);  \
        else if constexpr (std::is_same_v<V, double>)              \
            return LOOM_VENDOR(cusparseD##function)(__VA_ARGS__);  \
        else if constexpr (std::is_same_v<V, std::complex<float>>) \
            return LOOM_VENDOR(cusparseC##function)(__VA_ARGS__);  \
        else                                                       \
            return LOOM_VENDOR(cusparseZ##function)(__VA_ARGS__);  \
    }()

}  // namespace

template <typename V, typename I>
std::shared_ptr<void> spadd_vendor_symbolic(const CudaExecutor& exec, const matrix::Csr<V, I>& A,
                                            const matrix::Csr<V, I>& B, matrix::Csr<V, I>& C)
{
    if constexpr (sizeof(I) != sizeof(int)) {
        throw NotSupported(vendor_where, "csrgeam2 takes 32-bit indices only");
    } else {
        const auto shared_exec = exec.shared_from_this();
        auto state = std::make_shared<Geam2State>();
        const int m = static_cast<int>(A.rows());
        const int n = static_cast<int>(A.cols());
        const int nnz_a = static_cast<int>(A.nnz());
        const int nnz_b = static_cast<int>(B.nnz());
        if (m == 0 || nnz_a + nnz_b == 0) {
            C = matrix::Csr<V, I>(shared_exec, A.size(), 0);
            return state;
        }
        Array<I> row_ptrs(shared_exec, A.rows() + 1);
        auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
        const V one{1};
        const auto* a_ptrs = reinterpret_cast<const int*>(A.row_ptrs().data());
        const auto* a_cols = reinterpret_cast<const int*>(A.col_idxs().data());
        const auto* b_ptrs = reinterpret_cast<const int*>(B.row_ptrs().data());
        const auto* b_cols = reinterpret_cast<const int*>(B.col_idxs().data());
        auto* c_ptrs = reinterpret_cast<int*>(row_ptrs.data());
        std::size_t bytes = 0;
        LOOM_CUSPARSE_CHECK(LOOM_GEAM2_CALL(V, csrgeam2_bufferSizeExt, handle, m, n, vendor(&one),
                                            state->descr, nnz_a, vendor(A.values().data()), a_ptrs,
                                            a_cols, vendor(&one), state->descr, nnz_b,
                                            vendor(B.values().data()), b_ptrs, b_cols, state->descr,
                                            nullptr, c_ptrs, nullptr, &bytes));
        state->workspace =
            Array<std::byte>(shared_exec, static_cast<size_type>(std::max<std::size_t>(bytes, 1)));
        int nnz_c = 0;
        LOOM_CUSPARSE_CHECK(LOOM_VENDOR(cusparseXcsrgeam2Nnz)(
            handle, m, n, state->descr, nnz_a, a_ptrs, a_cols, state->descr, nnz_b, b_ptrs, b_cols,
            state->descr, c_ptrs, &nnz_c, state->workspace.data()));
        matrix::Csr<V, I> result(shared_exec, A.size(), nnz_c);
        result.row_ptrs() = std::move(row_ptrs);
        C = std::move(result);
        return state;
    }
}

template <typename V, typename I>
void spadd_vendor_numeric(const CudaExecutor& exec, const std::shared_ptr<void>& vendor_state,
                          V alpha, const matrix::Csr<V, I>& A, V beta, const matrix::Csr<V, I>& B,
                          matrix::Csr<V, I>& C)
{
    if constexpr (sizeof(I) != sizeof(int)) {
        throw NotSupported(vendor_where, "csrgeam2 takes 32-bit indices only");
    } else {
        auto* state = static_cast<Geam2State*>(vendor_state.get());
        // csrgeam2 writes C's pattern again, with what the symbolic phase already put there:
        // taken through const access so that C keeps its cached plans (its fingerprint).
        const auto pattern_of = [](const Array<I>& array) {
            return reinterpret_cast<int*>(const_cast<I*>(array.data()));
        };
        const auto& pattern = std::as_const(C);
        if (C.nnz() == 0) return;
        auto handle = loom::cuda::host_mode_handle(exec, vendor_where);
        LOOM_CUSPARSE_CHECK(LOOM_GEAM2_CALL(
            V, csrgeam2, handle, static_cast<int>(A.rows()), static_cast<int>(A.cols()),
            vendor(&alpha), state->descr, static_cast<int>(A.nnz()), vendor(A.values().data()),
            reinterpret_cast<const int*>(A.row_ptrs().data()),
            reinterpret_cast<const int*>(A.col_idxs().data()), vendor(&beta), state->descr,
            static_cast<int>(B.nnz()), vendor(B.values().data()),
            reinterpret_cast<const int*>(B.row_ptrs().data()),
            reinterpret_cast<const int*>(B.col_idxs().data()), state->descr,
            vendor(C.values().data()), pattern_of(pattern.row_ptrs()),
            pattern_of(pattern.col_idxs()), state->workspace.data()));
    }
}

#define LOOM_INSTANTIATE_SPADD_CUSPARSE(V, I)                                                 \
    template std::shared_ptr<void> spadd_vendor_symbolic(                                     \
        const CudaExecutor&, const matrix::Csr<V, I>&, const matrix::Csr<V, I>&,              \
        matrix::Csr<V, I>&);                                                                  \
    template void spadd_vendor_numeric(const CudaExecutor&, const std::shared_ptr<void>&, V,  \
                                       const matrix::Csr<V, I>&, V, const matrix::Csr<V, I>&, \
                                       matrix::Csr<V, I>&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_SPADD_CUSPARSE)

}  // namespace loom::sparse::cuda
