// The vendor peers of the batched benchmarks: argument checks, then cuBLAS on CUDA.
#include "loom/batched/vendor_peer.hpp"

#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "batched/front/kernels.hpp"
#include "loom/base/error.hpp"

namespace loom::batched {
namespace {

/// Calls on_cuda with A's CudaExecutor; NotSupported on the host, NotCompiled without CUDA.
template <typename V, typename F>
void on_cuda_only(const char* where, const BatchDense<V>& A, [[maybe_unused]] F&& on_cuda)
{
    A.executor()->run(loom::detail::overloaded{
        [&]([[maybe_unused]] const CudaExecutor& e) {
#if LOOM_HAS_CUDA
            on_cuda(e);
#else
            throw NotCompiled(where, "the CUDA backend");
#endif
        },
        [&](const auto&) { throw NotSupported(where, "the vendor peer is cuBLAS: CUDA only"); }});
}

}  // namespace

template <typename V>
void vendor_peer_getrf(BatchDense<V>& A, Array<int32>& pivots, Array<int32>& info)
{
    constexpr const char* where = "loom::batched::vendor_peer_getrf";
    if (A.rows() != A.cols()) {
        throw BadInput(where, "A holds " + std::to_string(A.rows()) + " x " +
                                  std::to_string(A.cols()) + " matrices, not square ones");
    }
    if (pivots.size() != A.batch_count() * A.rows() || info.size() != A.batch_count()) {
        throw BadInput(where, "pivots has " + std::to_string(pivots.size()) + " entries and info " +
                                  std::to_string(info.size()) + ", expected " +
                                  std::to_string(A.batch_count() * A.rows()) + " and " +
                                  std::to_string(A.batch_count()));
    }
    on_cuda_only(where, A, [&](const CudaExecutor& e) {
        cublas::getrf_raw(e, A, pivots.data(), info.data());
    });
}

template <typename V>
void vendor_peer_qr(BatchDense<V>& A, BatchDense<V>& tau)
{
    on_cuda_only("loom::batched::vendor_peer_qr", A,
                 [&](const CudaExecutor& e) { cublas::qr_raw(e, A, tau); });
}

#define LOOM_INSTANTIATE(V)                                                                 \
    template void vendor_peer_getrf(BatchDense<V>&, Array<int32>&, Array<int32>&);          \
    template void vendor_peer_qr(BatchDense<V>&, BatchDense<V>&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE)

}  // namespace loom::batched
