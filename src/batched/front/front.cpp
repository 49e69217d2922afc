// Argument checks, the choice of launch and backend dispatch of the front-level batched calls.
#include <climits>
#include <string>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "batched/front/host_gemm.hpp"
#include "batched/front/kernels.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/front.hpp"

namespace loom::batched {
namespace {

/// Runs the backend's `call`; the reference executor ignores the launch (it is the oracle).
#define LOOM_BATCHED_DISPATCH(where, exec, call)                                               \
    (exec).run(loom::detail::overloaded{                                                       \
        [&](const ReferenceExecutor& e) { reference::call; },                                  \
        [&]([[maybe_unused]] const OmpExecutor& e) { LOOM_OMP_CALL(where, omp::call); },       \
        [&]([[maybe_unused]] const CudaExecutor& e) { LOOM_CUDA_CALL(where, cuda::call); }})

std::string describe(const char* name, size_type count, dim2 size)
{
    return std::string(name) + " (" + std::to_string(count) + " x " + to_string(size) + ")";
}

/// Operands must share the first one's executor and batch count.
template <typename V>
void check_batch(const char* where, const BatchDense<V>& first, const char* first_name,
                 const BatchDense<V>& other, const char* other_name)
{
    if (!first.executor() || !other.executor() ||
        !first.executor()->same_memory_as(*other.executor())) {
        throw BadInput(where, std::string(first_name) + " and " + other_name +
                                  " live on different executors");
    }
    if (first.batch_count() != other.batch_count()) {
        throw DimensionMismatch(where, describe(first_name, first.batch_count(), first.size()) +
                                           " and " +
                                           describe(other_name, other.batch_count(), other.size()) +
                                           ": batch counts differ");
    }
}

/// Matrices of a batch are small: their sizes must fit the routines' int extents.
template <typename V>
void check_extents(const char* where, const BatchDense<V>& M, const char* name)
{
    if (!M.executor()) throw BadInput(where, std::string(name) + " has no executor");
    if (M.rows() > INT_MAX / 2 || M.cols() > INT_MAX / 2 || M.size().count() > INT_MAX) {
        throw BadInput(where, describe(name, M.batch_count(), M.size()) +
                                  ": batched matrices are limited to 2^31 entries each");
    }
}

template <typename V>
void check_square(const char* where, const BatchDense<V>& M, const char* name)
{
    check_extents(where, M, name);
    if (M.rows() != M.cols()) {
        throw DimensionMismatch(where, describe(name, M.batch_count(), M.size()) +
                                           ": the matrices must be square");
    }
}

/// An output that is also an input would be overwritten while it is read.
template <typename V>
void check_distinct(const char* where, const BatchDense<V>& out, const char* out_name,
                    const BatchDense<V>& in, const char* in_name)
{
    if (out.data() != nullptr && out.data() == in.data()) {
        throw BadInput(where, std::string(out_name) + " and " + in_name + " are the same memory");
    }
}

dim2 op_size(Op op, dim2 size) { return op == Op::none ? size : size.transposed(); }

/// info (and pivots) sized for the batch, on exec.
void prepare(Array<int32>& array, const std::shared_ptr<const Executor>& exec, size_type size)
{
    if (array.size() != size || !array.executor() || !array.executor()->same_memory_as(*exec)) {
        array = Array<int32>(exec, size);
    }
}

/// What a call may run as; `pivoting` routines have no SIMD pack version, `vendor` lists the
/// routine's vendor support.
struct Support {
    bool simd = true;
    bool cuda_vendor = false;
    bool host_vendor = false;
    /// Largest order that `automatic` runs one thread per matrix on CUDA.
    size_type cuda_serial_max = 8;
};

template <typename V>
Launch resolve(const char* where, Launch launch, const Executor& exec, size_type n, Support s)
{
    if (launch == Launch::automatic) return choose_launch(exec, n, s.cuda_serial_max);
    if (exec.kind() == ExecKind::reference) return launch;
    if (launch == Launch::simd) {
        if (exec.kind() == ExecKind::cuda) {
            throw NotSupported(where, "Launch::simd is a host layout; on CUDA use serial, team "
                                      "or team_vector");
        }
        if (is_complex_v<V>) {
            throw NotSupported(where, "Launch::simd packs real values only (got " +
                                          std::string(type_name<V>()) + ")");
        }
        if (!s.simd) {
            throw NotSupported(where, "Launch::simd: a routine with pivoting needs one pivot "
                                      "sequence per matrix; use serial");
        }
    }
    if (launch == Launch::vendor) {
        if (exec.kind() == ExecKind::cuda && !s.cuda_vendor) {
            throw NotSupported(where, "cuBLAS offers no batched version of this routine");
        }
        if (exec.kind() != ExecKind::cuda) {
            if (!LOOM_HAS_BLAS) {
                throw NotCompiled(where, "a host BLAS/LAPACK (reconfigure with LOOM_WITH_BLAS=ON)");
            }
            if (!s.host_vendor) {
                throw NotSupported(where, "no host BLAS/LAPACK routine is looped for this call");
            }
        }
    }
    return launch;
}

#if LOOM_HAS_BLAS
#define LOOM_HOST_BATCHED_VENDOR(...) __VA_ARGS__
#else
#define LOOM_HOST_BATCHED_VENDOR(...) false
#endif

/// The vendor path for a resolved Launch::vendor; false sends the call to the native kernels.
#define LOOM_BATCHED_VENDOR(launch, exec, host_call, cuda_call)                                \
    ((launch) == Launch::vendor && (exec).kind() != ExecKind::reference &&                     \
     (exec).run(loom::detail::overloaded{                                                      \
         [&]([[maybe_unused]] const CudaExecutor& e) -> bool {                                 \
             return LOOM_CUDA_VENDOR(cuda_call);                                               \
         },                                                                                    \
         [&](const auto&) -> bool { return LOOM_HOST_BATCHED_VENDOR(host_call); }}))

#if LOOM_HAS_CUDA
#define LOOM_CUDA_VENDOR(...) __VA_ARGS__
#else
#define LOOM_CUDA_VENDOR(...) false
#endif

}  // namespace

Launch parse_launch(const std::string& text)
{
    if (text == "auto" || text == "automatic") return Launch::automatic;
    if (text == "serial") return Launch::serial;
    if (text == "team") return Launch::team;
    if (text == "teamvector" || text == "team_vector") return Launch::team_vector;
    if (text == "simd") return Launch::simd;
    if (text == "vendor") return Launch::vendor;
    throw BadInput("loom::batched::parse_launch",
                   "unknown launch '" + text +
                       "' (expected auto, serial, team, teamvector, simd or vendor)");
}

const char* to_string(Launch launch)
{
    switch (launch) {
    case Launch::serial: return "serial";
    case Launch::team: return "team";
    case Launch::team_vector: return "teamvector";
    case Launch::simd: return "simd";
    case Launch::vendor: return "vendor";
    default: return "auto";
    }
}

Launch choose_launch(const Executor& exec, size_type n, size_type cuda_serial_max)
{
    // One thread per matrix while a matrix is small; a team per matrix beyond, where one
    // thread would serialize n^3 work.
    if (exec.kind() == ExecKind::cuda) {
        return n <= cuda_serial_max ? Launch::serial : Launch::team_vector;
    }
    return Launch::serial;
}

template <typename V>
void gemm(Op op_a, Op op_b, V alpha, const BatchDense<V>& A, const BatchDense<V>& B, V beta,
          BatchDense<V>& C, Launch launch)
{
    constexpr const char* where = "loom::batched::gemm";
    check_extents(where, A, "A");
    check_extents(where, B, "B");
    check_extents(where, C, "C");
    check_batch(where, A, "A", B, "B");
    check_batch(where, A, "A", C, "C");
    const dim2 a = op_size(op_a, A.size());
    const dim2 b = op_size(op_b, B.size());
    if (a.cols != b.rows || C.rows() != a.rows || C.cols() != b.cols) {
        throw DimensionMismatch(where, "op(A)", a, "op(B)", b,
                                "need op(A) m x k, op(B) k x n and C m x n (C is " +
                                    to_string(C.size()) + ")");
    }
    check_distinct(where, C, "C", A, "A");
    check_distinct(where, C, "C", B, "B");
    if (C.batch_count() == 0 || C.size().count() == 0) return;
    const auto& exec = *C.executor();
    if constexpr (!is_complex_v<V>) {
        // The vectorized host kernel beats Serial at every order, where the CPU has it.
        if (launch == Launch::automatic && exec.kind() == ExecKind::omp &&
            host_kernels::vector_gemm_kernel<V>() != nullptr) {
            launch = Launch::simd;
        }
    }
    launch = resolve<V>(where, launch, exec, std::max({a.rows, a.cols, b.cols}),
                        {.simd = true,
                         .cuda_vendor = true,
                         .host_vendor = true,
                         .cuda_serial_max = gemm_cuda_serial_max});
    if (LOOM_BATCHED_VENDOR(launch, exec,
                            openblas::gemm(exec, op_a, op_b, alpha, A, B, beta, C),
                            cublas::gemm(e, op_a, op_b, alpha, A, B, beta, C))) {
        return;
    }
    if (launch == Launch::vendor) launch = choose_launch(exec, a.rows);
    LOOM_BATCHED_DISPATCH(where, exec, gemm(e, launch, op_a, op_b, alpha, A, B, beta, C));
}

template <typename V>
void gemv(Op op, V alpha, const BatchDense<V>& A, const BatchDense<V>& x, V beta,
          BatchDense<V>& y, Launch launch)
{
    constexpr const char* where = "loom::batched::gemv";
    check_extents(where, A, "A");
    check_extents(where, x, "x");
    check_extents(where, y, "y");
    check_batch(where, A, "A", x, "x");
    check_batch(where, A, "A", y, "y");
    const dim2 a = op_size(op, A.size());
    if (x.cols() != 1 || y.cols() != 1 || x.rows() != a.cols || y.rows() != a.rows) {
        throw DimensionMismatch(where, "op(A)", a, "x", x.size(),
                                "x and y must be columns of op(A).cols and op(A).rows entries");
    }
    check_distinct(where, y, "y", A, "A");
    check_distinct(where, y, "y", x, "x");
    if (y.batch_count() == 0 || y.rows() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, std::max(a.rows, a.cols), {.simd = true});
    LOOM_BATCHED_DISPATCH(where, exec, gemv(e, launch, op, alpha, A, x, beta, y));
}

namespace {

template <typename V>
void check_triangular(const char* where, blas::Side side, const BatchDense<V>& A, const BatchDense<V>& B)
{
    check_square(where, A, "A");
    check_extents(where, B, "B");
    check_batch(where, A, "A", B, "B");
    if ((side == blas::Side::left ? B.rows() : B.cols()) != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                side == blas::Side::left ? "B needs as many rows as A"
                                                   : "B needs as many columns as A");
    }
    check_distinct(where, B, "B", A, "A");
}

}  // namespace

namespace {

/// trsm (solve) or trmm: the same checks, launches and vendor support.
template <typename V>
void triangular(const char* where, bool solve, blas::Side side, blas::Uplo uplo, Op op,
                blas::Diag diag, V alpha, const BatchDense<V>& A, BatchDense<V>& B, Launch launch)
{
    check_triangular(where, side, A, B);
    if (B.batch_count() == 0 || B.size().count() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, std::max(B.rows(), B.cols()),
                        {.simd = true, .cuda_vendor = solve, .host_vendor = true});
    if (LOOM_BATCHED_VENDOR(launch, exec,
                            solve ? openblas::trsm(exec, side, uplo, op, diag, alpha, A, B)
                                  : openblas::trmm(exec, side, uplo, op, diag, alpha, A, B),
                            solve && cublas::trsm(e, side, uplo, op, diag, alpha, A, B))) {
        return;
    }
    if (launch == Launch::vendor) launch = choose_launch(exec, A.rows());
    if (solve) {
        LOOM_BATCHED_DISPATCH(where, exec, trsm(e, launch, side, uplo, op, diag, alpha, A, B));
    } else {
        LOOM_BATCHED_DISPATCH(where, exec, trmm(e, launch, side, uplo, op, diag, alpha, A, B));
    }
}

}  // namespace

template <typename V>
void trsm(blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha, const BatchDense<V>& A,
          BatchDense<V>& B, Launch launch)
{
    triangular("loom::batched::trsm", true, side, uplo, op, diag, alpha, A, B, launch);
}

template <typename V>
void trmm(blas::Side side, blas::Uplo uplo, Op op, blas::Diag diag, V alpha, const BatchDense<V>& A,
          BatchDense<V>& B, Launch launch)
{
    triangular("loom::batched::trmm", false, side, uplo, op, diag, alpha, A, B, launch);
}

template <typename V>
void trtri(blas::Uplo uplo, blas::Diag diag, BatchDense<V>& A, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::trtri";
    check_square(where, A, "A");
    prepare(info, A.executor(), A.batch_count());
    if (A.batch_count() == 0) return;
    info.fill(0);
    if (A.rows() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.simd = true, .host_vendor = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, openblas::trtri(exec, uplo, diag, A, info.data()),
                            false)) {
        return;
    }
    if (launch == Launch::vendor) launch = choose_launch(exec, A.rows());
    LOOM_BATCHED_DISPATCH(where, exec, trtri(e, launch, uplo, diag, A, info.data()));
}

template <typename V>
void getrf(BatchDense<V>& A, Array<int32>& pivots, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::getrf";
    check_square(where, A, "A");
    prepare(pivots, A.executor(), A.batch_count() * A.rows());
    prepare(info, A.executor(), A.batch_count());
    if (A.batch_count() == 0) return;
    info.fill(0);
    if (A.rows() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(),
                        {.simd = false, .cuda_vendor = true, .host_vendor = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, openblas::getrf(exec, A, pivots.data(), info.data()),
                            cublas::getrf(e, A, pivots.data(), info.data()))) {
        return;
    }
    if (launch == Launch::vendor) launch = choose_launch(exec, A.rows());
    LOOM_BATCHED_DISPATCH(where, exec, getrf(e, launch, A, pivots.data(), info.data()));
}

template <typename V>
void getrf_nopivot(BatchDense<V>& A, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::getrf_nopivot";
    check_square(where, A, "A");
    prepare(info, A.executor(), A.batch_count());
    if (A.batch_count() == 0) return;
    info.fill(0);
    if (A.rows() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.simd = true});
    LOOM_BATCHED_DISPATCH(where, exec, getrf_nopivot(e, launch, A, info.data()));
}

template <typename V>
void add_radial(remove_complex_t<V> tiny, BatchDense<V>& A, Launch launch)
{
    constexpr const char* where = "loom::batched::add_radial";
    check_extents(where, A, "A");
    if (A.batch_count() == 0 || A.size().count() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, std::max(A.rows(), A.cols()), {.simd = true});
    LOOM_BATCHED_DISPATCH(where, exec, add_radial(e, launch, tiny, A));
}

namespace {

template <typename V>
void check_solve(const char* where, const BatchDense<V>& A, const BatchDense<V>& B)
{
    check_square(where, A, "A");
    check_extents(where, B, "B");
    check_batch(where, A, "A", B, "B");
    if (B.rows() != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                "B needs as many rows as A");
    }
    check_distinct(where, B, "B", A, "A");
}

}  // namespace

template <typename V>
void getrs(Op op, const BatchDense<V>& LU, const Array<int32>& pivots, BatchDense<V>& B,
           Launch launch)
{
    constexpr const char* where = "loom::batched::getrs";
    check_solve(where, LU, B);
    if (pivots.size() != LU.batch_count() * LU.rows() || !pivots.executor() ||
        !pivots.executor()->same_memory_as(*LU.executor())) {
        throw BadInput(where, "pivots must hold batch_count * n = " +
                                  std::to_string(LU.batch_count() * LU.rows()) +
                                  " entries on the executor of LU (got " +
                                  std::to_string(pivots.size()) + ")");
    }
    if (B.batch_count() == 0 || B.size().count() == 0) return;
    const auto& exec = *LU.executor();
    launch = resolve<V>(where, launch, exec, LU.rows(), {.simd = false});
    LOOM_BATCHED_DISPATCH(where, exec, getrs(e, launch, op, LU, pivots.data(), B));
}

template <typename V>
void gesv(BatchDense<V>& A, Array<int32>& pivots, BatchDense<V>& B, Array<int32>& info,
          Launch launch)
{
    constexpr const char* where = "loom::batched::gesv";
    check_solve(where, A, B);
    prepare(pivots, A.executor(), A.batch_count() * A.rows());
    prepare(info, A.executor(), A.batch_count());
    if (A.batch_count() == 0) return;
    info.fill(0);
    if (A.rows() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.simd = false});
    LOOM_BATCHED_DISPATCH(where, exec, gesv(e, launch, A, pivots.data(), B, info.data()));
}

template <typename V>
void potrf(blas::Uplo uplo, BatchDense<V>& A, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::potrf";
    check_square(where, A, "A");
    prepare(info, A.executor(), A.batch_count());
    if (A.batch_count() == 0) return;
    info.fill(0);
    if (A.rows() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.simd = true, .host_vendor = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, openblas::potrf(exec, uplo, A, info.data()), false)) {
        return;
    }
    if (launch == Launch::vendor) launch = choose_launch(exec, A.rows());
    LOOM_BATCHED_DISPATCH(where, exec, potrf(e, launch, uplo, A, info.data()));
}

template <typename V>
void potrs(blas::Uplo uplo, const BatchDense<V>& A, BatchDense<V>& B, Launch launch)
{
    constexpr const char* where = "loom::batched::potrs";
    check_solve(where, A, B);
    if (B.batch_count() == 0 || B.size().count() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.simd = true});
    LOOM_BATCHED_DISPATCH(where, exec, potrs(e, launch, uplo, A, B));
}

template <typename V>
void qr(BatchDense<V>& A, BatchDense<V>& tau, Launch launch)
{
    constexpr const char* where = "loom::batched::qr";
    check_extents(where, A, "A");
    const size_type k = std::min(A.rows(), A.cols());
    if (tau.batch_count() != A.batch_count() || tau.size() != dim2{k, 1} || !tau.executor() ||
        !tau.executor()->same_memory_as(*A.executor())) {
        tau = BatchDense<V>(A.executor(), A.batch_count(), {k, 1});
    }
    check_distinct(where, tau, "tau", A, "A");
    if (A.batch_count() == 0 || k == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, std::max(A.rows(), A.cols()), {.simd = true});
    LOOM_BATCHED_DISPATCH(where, exec, qr(e, launch, A, tau));
}

template <typename V>
void apply_q(blas::Side side, Op op, const BatchDense<V>& A, const BatchDense<V>& tau, BatchDense<V>& B,
             Launch launch)
{
    constexpr const char* where = "loom::batched::apply_q";
    check_extents(where, A, "A");
    check_extents(where, B, "B");
    check_batch(where, A, "A", tau, "tau");
    check_batch(where, A, "A", B, "B");
    if (op == Op::transpose && is_complex_v<V>) {
        throw NotSupported(where, "Q^T of a complex Q is not offered; use Op::conj_transpose");
    }
    if (tau.cols() != 1 || tau.rows() > std::min(A.rows(), A.cols())) {
        throw DimensionMismatch(where, "A", A.size(), "tau", tau.size(),
                                "tau must be a column of at most min(m, n) reflector factors");
    }
    if ((side == blas::Side::left ? B.rows() : B.cols()) != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                side == blas::Side::left ? "B needs as many rows as A"
                                                   : "B needs as many columns as A has rows");
    }
    check_distinct(where, B, "B", A, "A");
    if (B.batch_count() == 0 || B.size().count() == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, std::max(B.rows(), B.cols()), {.simd = true});
    LOOM_BATCHED_DISPATCH(where, exec, apply_q(e, launch, side, op, A, tau, B));
}

#define LOOM_INSTANTIATE_BATCHED_FRONT(V)                                                      \
    template void gemm(Op, Op, V, const BatchDense<V>&, const BatchDense<V>&, V,               \
                       BatchDense<V>&, Launch);                                                 \
    template void gemv(Op, V, const BatchDense<V>&, const BatchDense<V>&, V, BatchDense<V>&,   \
                       Launch);                                                                 \
    template void trsm(blas::Side, blas::Uplo, Op, blas::Diag, V, const BatchDense<V>&, BatchDense<V>&, Launch); \
    template void trmm(blas::Side, blas::Uplo, Op, blas::Diag, V, const BatchDense<V>&, BatchDense<V>&, Launch); \
    template void trtri(blas::Uplo, blas::Diag, BatchDense<V>&, Array<int32>&, Launch);                     \
    template void getrf(BatchDense<V>&, Array<int32>&, Array<int32>&, Launch);                  \
    template void getrf_nopivot(BatchDense<V>&, Array<int32>&, Launch);                         \
    template void add_radial(remove_complex_t<V>, BatchDense<V>&, Launch);                      \
    template void getrs(Op, const BatchDense<V>&, const Array<int32>&, BatchDense<V>&, Launch); \
    template void gesv(BatchDense<V>&, Array<int32>&, BatchDense<V>&, Array<int32>&, Launch);   \
    template void potrf(blas::Uplo, BatchDense<V>&, Array<int32>&, Launch);                           \
    template void potrs(blas::Uplo, const BatchDense<V>&, BatchDense<V>&, Launch);                    \
    template void qr(BatchDense<V>&, BatchDense<V>&, Launch);                                   \
    template void apply_q(blas::Side, Op, const BatchDense<V>&, const BatchDense<V>&,                 \
                          BatchDense<V>&, Launch);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT)

}  // namespace loom::batched
