#include "bench/peer_eigen.hpp"

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"

#if LOOM_BENCH_HAS_EIGEN
#include <Eigen/Core>
#include <Eigen/SparseCore>
#endif

namespace loom::bench {
namespace {
constexpr const char* where = "loom::bench::eigen_spmv";
}

bool eigen_available() noexcept { return LOOM_BENCH_HAS_EIGEN; }

template <typename V, typename I>
std::function<void()> eigen_spmv(const matrix::Csr<V, I>& A, const matrix::Dense<V>& x,
                                 matrix::Dense<V>& y, int threads)
{
#if LOOM_BENCH_HAS_EIGEN
    if (!A.executor()->is_host() || !x.executor()->is_host() || !y.executor()->is_host()) {
        throw NotSupported(where, "the Eigen peer runs on the host; use --exec omp");
    }
    if (x.cols() != 1 || y.cols() != 1 || x.stride() != 1 || y.stride() != 1 ||
        x.rows() != A.cols() || y.rows() != A.rows()) {
        throw DimensionMismatch(
            where, "x", x.size(), "y", y.size(),
            "need one contiguous column each, fitting A " + to_string(A.size()));
    }
    using Matrix = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    using Vector = Eigen::Matrix<V, Eigen::Dynamic, 1>;
    Eigen::Map<const Matrix> eigen_A(A.rows(), A.cols(), A.nnz(), A.row_ptrs().data(),
                                     A.col_idxs().data(), A.values().data());
    Eigen::Map<const Vector> eigen_x(x.data(), x.rows());
    Eigen::Map<Vector> eigen_y(y.data(), y.rows());
    return [=]() mutable {
        Eigen::setNbThreads(threads);
        eigen_y.noalias() += eigen_A * eigen_x;
    };
#else
    (void)A, (void)x, (void)y, (void)threads;
    throw NotSupported(where, "not built with Eigen (install libeigen3-dev and reconfigure)");
#endif
}

#define LOOM_INSTANTIATE_EIGEN_SPMV(V, I)                                                        \
    template std::function<void()> eigen_spmv(const matrix::Csr<V, I>&, const matrix::Dense<V>&, \
                                              matrix::Dense<V>&, int);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_EIGEN_SPMV)

}  // namespace loom::bench
