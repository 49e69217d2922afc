// Argument checks, the choice of launch and backend dispatch of the front-level batched calls.
#include <climits>
#include <string>
#include <vector>

#include "base/dispatch.hpp"
#include "base/instantiate.hpp"
#include "batched/front/kernels.hpp"
#include "batched/front/tuning.hpp"
#include "loom/base/error.hpp"
#include "loom/batched/front.hpp"

namespace loom::batched {
namespace {

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

/// An output array (info, pivots, results) sized for the batch, on exec.
template <typename T>
void prepare(Array<T>& array, const std::shared_ptr<const Executor>& exec, size_type size)
{
    if (array.size() != size || !array.executor() || !array.executor()->same_memory_as(*exec)) {
        array = Array<T>(exec, size);
    }
}

/// An operand of a call and the name its errors give it.
template <typename V>
struct Named {
    const BatchDense<V>& matrix;
    const char* name;
};

/// Every operand has int extents and shares the first one's executor and batch count.
template <typename V>
void check_operands(const char* where, std::initializer_list<Named<V>> operands)
{
    const Named<V>& first = *operands.begin();
    for (const Named<V>& operand : operands) {
        check_extents(where, operand.matrix, operand.name);
        if (&operand != &first) {
            check_batch(where, first.matrix, first.name, operand.matrix, operand.name);
        }
    }
}

/// An owning batch of count x size on exec unless M already is one (a view keeps its memory
/// only when its shape is right).
template <typename V>
void shape(BatchDense<V>& M, const std::shared_ptr<const Executor>& exec, size_type count,
           dim2 size)
{
    if (M.batch_count() != count || M.size() != size || !M.executor() ||
        !M.executor()->same_memory_as(*exec)) {
        M = BatchDense<V>(exec, count, size);
    }
}

/// No matrix, or matrices without entries: nothing to compute.
template <typename V>
bool no_work(const BatchDense<V>& M)
{
    return M.batch_count() == 0 || M.size().count() == 0;
}

/// Whether every way a routine runs (its Call of routines.hpp, the CUDA kernels, the vendor
/// calls) stores the info of every matrix, success included (getrf, trtri), or only some.
enum class InfoStores { some, every };

/// info of a factorization: one entry per matrix of A on its executor, zeroed unless the
/// routine stores every entry itself (on CUDA the fill is a kernel of its own: ~2 us of a
/// 10 us getrf at n = 2). False: no work left (no matrix, or matrices of order n = 0, which
/// every routine factors successfully).
template <typename V>
bool start_info(const BatchDense<V>& A, Array<int32>& info, size_type n,
                InfoStores stores = InfoStores::some)
{
    prepare(info, A.executor(), A.batch_count());
    if (A.batch_count() == 0) return false;
    if (n == 0 || stores == InfoStores::some) info.fill(0);
    return n != 0;
}

/// The larger extent of the matrices of M, what a launch is tuned by.
template <typename V>
size_type extent(const BatchDense<V>& M)
{
    return std::max(M.rows(), M.cols());
}

/// The native kernels' launch once a vendor call was not taken (the executor offers none).
Launch native(Launch launch, const Executor& exec, size_type n)
{
    return launch == Launch::vendor ? choose_launch(exec, n) : launch;
}

/// What a call may run as; `pivoting` routines have no SIMD pack version, `vendor` lists the
/// routine's vendor support; `routine` and `square` pick its row of the automatic table.
struct Support {
    bool simd = true;
    bool cuda_vendor = false;
    bool host_vendor = false;
    tuning::Routine routine = tuning::Routine::other;
    bool square = false;
};

template <typename V>
Launch resolve(const char* where, Launch launch, const Executor& exec, size_type n, Support s)
{
    if (launch == Launch::automatic) {
        return tuning::automatic_launch<V>(s.routine, exec, n, s.square);
    }
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
    return names_of(Launch{}).parse(text, "loom::batched::parse_launch");
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
Launch automatic_launch(std::string_view routine, const Executor& exec, size_type n)
{
    return tuning::automatic_launch<V>(tuning::routine_named(routine), exec, n, true);
}

template <typename V>
void gemm(Op op_a, Op op_b, V alpha, const BatchDense<V>& A, const BatchDense<V>& B, V beta,
          BatchDense<V>& C, Launch launch)
{
    constexpr const char* where = "loom::batched::gemm";
    check_operands<V>(where, {{A, "A"}, {B, "B"}, {C, "C"}});
    const dim2 a = op_size(op_a, A.size());
    const dim2 b = op_size(op_b, B.size());
    if (a.cols != b.rows || C.rows() != a.rows || C.cols() != b.cols) {
        throw DimensionMismatch(where, "op(A)", a, "op(B)", b,
                                "need op(A) m x k, op(B) k x n and C m x n (C is " +
                                    to_string(C.size()) + ")");
    }
    check_distinct(where, C, "C", A, "A");
    check_distinct(where, C, "C", B, "B");
    if (no_work(C)) return;
    const auto& exec = *C.executor();
    launch = resolve<V>(where, launch, exec, std::max({a.rows, a.cols, b.cols}),
                        {.simd = true,
                         .cuda_vendor = true,
                         .host_vendor = true,
                         .routine = tuning::Routine::gemm,
                         .square = a.rows == a.cols && a.cols == b.cols});
    if (LOOM_BATCHED_VENDOR(launch, exec,
                            openblas::gemm(exec, op_a, op_b, alpha, A, B, beta, C),
                            cublas::gemm(e, op_a, op_b, alpha, A, B, beta, C))) {
        return;
    }
    LOOM_RUN_KERNEL(where, exec, gemm, native(launch, exec, a.rows), op_a, op_b, alpha, A, B, beta, C);
}

template <typename V>
void gemv(Op op, V alpha, const BatchDense<V>& A, const BatchDense<V>& x, V beta,
          BatchDense<V>& y, Launch launch)
{
    constexpr const char* where = "loom::batched::gemv";
    check_operands<V>(where, {{A, "A"}, {x, "x"}, {y, "y"}});
    const dim2 a = op_size(op, A.size());
    if (x.cols() != 1 || y.cols() != 1 || x.rows() != a.cols || y.rows() != a.rows) {
        throw DimensionMismatch(where, "op(A)", a, "x", x.size(),
                                "x and y must be columns of op(A).cols and op(A).rows entries");
    }
    check_distinct(where, y, "y", A, "A");
    check_distinct(where, y, "y", x, "x");
    if (no_work(y)) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, gemv, resolve<V>(where, launch, exec, std::max(a.rows, a.cols), {}), op, alpha, A, x, beta, y);
}

namespace {

template <typename V>
void check_triangular(const char* where, blas::Side side, const BatchDense<V>& A, const BatchDense<V>& B)
{
    check_square(where, A, "A");
    check_operands<V>(where, {{A, "A"}, {B, "B"}});
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
    if (no_work(B)) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, extent(B),
                        {.cuda_vendor = solve,
                         .host_vendor = true,
                         .routine = solve ? tuning::Routine::other : tuning::Routine::trmm,
                         .square = B.rows() == B.cols()});
    if (LOOM_BATCHED_VENDOR(launch, exec,
                            solve ? openblas::trsm(exec, side, uplo, op, diag, alpha, A, B)
                                  : openblas::trmm(exec, side, uplo, op, diag, alpha, A, B),
                            solve && cublas::trsm(e, side, uplo, op, diag, alpha, A, B))) {
        return;
    }
    launch = native(launch, exec, A.rows());
    if (solve) {
        LOOM_RUN_KERNEL(where, exec, trsm, launch, side, uplo, op, diag, alpha, A, B);
    } else {
        LOOM_RUN_KERNEL(where, exec, trmm, launch, side, uplo, op, diag, alpha, A, B);
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
    if (!start_info(A, info, A.rows(), InfoStores::every)) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(),
                        {.host_vendor = true,
                         .routine = tuning::Routine::trtri,
                         .square = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, openblas::trtri(exec, uplo, diag, A, info.data()),
                            false)) {
        return;
    }
    LOOM_RUN_KERNEL(where, exec, trtri, native(launch, exec, A.rows()), uplo, diag, A, info.data());
}

template <typename V>
void getrf(BatchDense<V>& A, Array<int32>& pivots, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::getrf";
    check_square(where, A, "A");
    prepare(pivots, A.executor(), A.batch_count() * A.rows());
    if (!start_info(A, info, A.rows(), InfoStores::every)) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(),
                        {.simd = false,
                         .cuda_vendor = true,
                         .host_vendor = true,
                         .routine = tuning::Routine::getrf,
                         .square = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, openblas::getrf(exec, A, pivots.data(), info.data()),
                            cublas::getrf(e, A, pivots.data(), info.data()))) {
        return;
    }
    LOOM_RUN_KERNEL(where, exec, getrf, native(launch, exec, A.rows()), A, pivots.data(), info.data());
}

template <typename V>
void getrf_nopivot(BatchDense<V>& A, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::getrf_nopivot";
    check_square(where, A, "A");
    if (!start_info(A, info, A.rows())) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, getrf_nopivot, resolve<V>(where, launch, exec, A.rows(), {}), A,
                    info.data());
}

template <typename V>
void add_radial(remove_complex_t<V> tiny, BatchDense<V>& A, Launch launch)
{
    constexpr const char* where = "loom::batched::add_radial";
    check_extents(where, A, "A");
    if (no_work(A)) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, add_radial, resolve<V>(where, launch, exec, extent(A), {}), tiny,
                    A);
}

namespace {

template <typename V>
void check_solve(const char* where, const BatchDense<V>& A, const BatchDense<V>& B)
{
    check_square(where, A, "A");
    check_operands<V>(where, {{A, "A"}, {B, "B"}});
    if (B.rows() != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "B", B.size(),
                                "B needs as many rows as A");
    }
    check_distinct(where, B, "B", A, "A");
}

/// pivots of a factorization: n entries per matrix on the executor of the factors.
template <typename V>
void check_pivots(const char* where, const BatchDense<V>& factors, size_type n,
                  const Array<int32>& pivots)
{
    if (pivots.size() != factors.batch_count() * n || !pivots.executor() ||
        !pivots.executor()->same_memory_as(*factors.executor())) {
        throw BadInput(where, "pivots must hold batch_count * n = " +
                                  std::to_string(factors.batch_count() * n) +
                                  " entries on the executor of the factors (got " +
                                  std::to_string(pivots.size()) + ")");
    }
}

}  // namespace

template <typename V>
void getrs(Op op, const BatchDense<V>& LU, const Array<int32>& pivots, BatchDense<V>& B,
           Launch launch)
{
    constexpr const char* where = "loom::batched::getrs";
    check_solve(where, LU, B);
    check_pivots(where, LU, LU.rows(), pivots);
    if (no_work(B)) return;
    const auto& exec = *LU.executor();
    launch = resolve<V>(where, launch, exec, LU.rows(), {.simd = false});
    LOOM_RUN_KERNEL(where, exec, getrs, launch, op, LU, pivots.data(), B);
}

template <typename V>
void gesv(BatchDense<V>& A, Array<int32>& pivots, BatchDense<V>& B, Array<int32>& info,
          Launch launch)
{
    constexpr const char* where = "loom::batched::gesv";
    check_solve(where, A, B);
    prepare(pivots, A.executor(), A.batch_count() * A.rows());
    if (!start_info(A, info, A.rows())) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.simd = false});
    LOOM_RUN_KERNEL(where, exec, gesv, launch, A, pivots.data(), B, info.data());
}

template <typename V>
void potrf(blas::Uplo uplo, BatchDense<V>& A, Array<int32>& info, Launch launch)
{
    constexpr const char* where = "loom::batched::potrf";
    check_square(where, A, "A");
    if (!start_info(A, info, A.rows())) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, A.rows(), {.cuda_vendor = true, .host_vendor = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, openblas::potrf(exec, uplo, A, info.data()),
                            cublas::potrf(e, uplo, A, info.data()))) {
        return;
    }
    LOOM_RUN_KERNEL(where, exec, potrf, native(launch, exec, A.rows()), uplo, A, info.data());
}

template <typename V>
void potrs(blas::Uplo uplo, const BatchDense<V>& A, BatchDense<V>& B, Launch launch)
{
    constexpr const char* where = "loom::batched::potrs";
    check_solve(where, A, B);
    if (no_work(B)) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, potrs, resolve<V>(where, launch, exec, A.rows(), {}), uplo, A, B);
}

template <typename V>
void qr(BatchDense<V>& A, BatchDense<V>& tau, Launch launch)
{
    constexpr const char* where = "loom::batched::qr";
    check_extents(where, A, "A");
    const size_type k = std::min(A.rows(), A.cols());
    shape(tau, A.executor(), A.batch_count(), {k, 1});
    check_distinct(where, tau, "tau", A, "A");
    if (A.batch_count() == 0 || k == 0) return;
    const auto& exec = *A.executor();
    launch = resolve<V>(where, launch, exec, extent(A), {.cuda_vendor = true});
    if (LOOM_BATCHED_VENDOR(launch, exec, false, cublas::qr(e, A, tau))) return;
    LOOM_RUN_KERNEL(where, exec, qr, native(launch, exec, extent(A)), A, tau);
}

template <typename V>
void apply_q(blas::Side side, Op op, const BatchDense<V>& A, const BatchDense<V>& tau, BatchDense<V>& B,
             Launch launch)
{
    constexpr const char* where = "loom::batched::apply_q";
    check_operands<V>(where, {{A, "A"}, {B, "B"}});
    check_batch(where, A, "A", tau, "tau");
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
    if (no_work(B)) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, apply_q, resolve<V>(where, launch, exec, extent(B), {}), side, op, A, tau, B);
}

namespace {

/// A batch of n x 1 columns (the vectors of the level-1 and level-2 calls).
template <typename V>
void check_vectors(const char* where, const BatchDense<V>& x, const char* name)
{
    check_extents(where, x, name);
    if (x.cols() != 1) {
        throw DimensionMismatch(where, describe(name, x.batch_count(), x.size()) +
                                           ": must be a batch of n x 1 columns");
    }
}

/// A square A and a vector x of as many rows (the operands of trsv and syr).
template <typename V>
void check_square_and_vector(const char* where, const BatchDense<V>& A, const BatchDense<V>& x)
{
    check_square(where, A, "A");
    check_vectors(where, x, "x");
    check_batch(where, A, "A", x, "x");
    if (x.rows() != A.rows()) {
        throw DimensionMismatch(where, "A", A.size(), "x", x.size(), "x needs as many rows as A");
    }
}

/// result (of dot or nrm2): one entry per vector of x on its executor, zero for empty vectors.
/// False: no work left.
template <typename V, typename T>
bool start_results(const BatchDense<V>& x, Array<T>& result)
{
    prepare(result, x.executor(), x.batch_count());
    if (x.batch_count() == 0) return false;
    if (x.rows() == 0) result.fill(T{});
    return x.rows() != 0;
}

/// Band storage of n x n matrices with kl sub- and ku super-diagonals: 2 kl + ku + 1 rows.
template <typename V>
void check_band(const char* where, size_type kl, size_type ku, const BatchDense<V>& AB)
{
    check_extents(where, AB, "AB");
    if (kl < 0 || ku < 0 || kl > INT_MAX / 4 || ku > INT_MAX / 4) {
        throw BadInput(where, "kl = " + std::to_string(kl) + " and ku = " + std::to_string(ku) +
                                  " must be non-negative");
    }
    if (AB.rows() != 2 * kl + ku + 1) {
        throw DimensionMismatch(
            where, describe("AB", AB.batch_count(), AB.size()) +
                       ": band storage needs 2 kl + ku + 1 = " + std::to_string(2 * kl + ku + 1) +
                       " rows (kl = " + std::to_string(kl) + ", ku = " + std::to_string(ku) + ")");
    }
}

}  // namespace

template <typename V>
void trsv(blas::Uplo uplo, Op op, blas::Diag diag, V alpha, const BatchDense<V>& A,
          BatchDense<V>& x, Launch launch)
{
    constexpr const char* where = "loom::batched::trsv";
    check_square_and_vector(where, A, x);
    check_distinct(where, x, "x", A, "A");
    if (no_work(x)) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, trsv, resolve<V>(where, launch, exec, A.rows(), {}), uplo, op, diag, alpha, A, x);
}

template <typename V>
void syr(blas::Uplo uplo, Op op, V alpha, const BatchDense<V>& x, BatchDense<V>& A, Launch launch)
{
    constexpr const char* where = "loom::batched::syr";
    check_square_and_vector(where, A, x);
    if (op == Op::none) {
        throw BadInput(where,
                       "op must be transpose (A += alpha x x^T) or conj_transpose "
                       "(A += alpha x x^H)");
    }
    const bool conjugate = is_complex_v<V> && op == Op::conj_transpose;
    if constexpr (is_complex_v<V>) {
        if (conjugate && alpha.imag() != 0) {
            throw BadInput(where, "a Hermitian update (conj_transpose) needs a real alpha");
        }
    }
    check_distinct(where, A, "A", x, "x");
    if (no_work(A)) return;
    const auto& exec = *A.executor();
    LOOM_RUN_KERNEL(where, exec, syr, resolve<V>(where, launch, exec, A.rows(), {}), uplo, conjugate, alpha, x, A);
}

template <typename V>
void axpy(V alpha, const BatchDense<V>& x, BatchDense<V>& y, Launch launch)
{
    constexpr const char* where = "loom::batched::axpy";
    check_operands<V>(where, {{x, "x"}, {y, "y"}});
    if (x.size() != y.size()) {
        throw DimensionMismatch(where, "x", x.size(), "y", y.size(), "x and y must have one shape");
    }
    check_distinct(where, y, "y", x, "x");
    if (no_work(y)) return;
    const auto& exec = *y.executor();
    LOOM_RUN_KERNEL(where, exec, axpy, resolve<V>(where, launch, exec, extent(y), {}), alpha, x, y);
}

template <typename V>
void scale(V alpha, BatchDense<V>& x, Launch launch)
{
    constexpr const char* where = "loom::batched::scale";
    check_extents(where, x, "x");
    if (no_work(x)) return;
    const auto& exec = *x.executor();
    LOOM_RUN_KERNEL(where, exec, scale, resolve<V>(where, launch, exec, extent(x), {}), alpha, x);
}

namespace {

template <typename V>
void dot_product(const char* where, bool conjugate, const BatchDense<V>& x, const BatchDense<V>& y,
                 Array<V>& result, Launch launch)
{
    check_vectors(where, x, "x");
    check_vectors(where, y, "y");
    check_batch(where, x, "x", y, "y");
    if (x.rows() != y.rows()) {
        throw DimensionMismatch(where, "x", x.size(), "y", y.size(),
                                "x and y must have as many rows");
    }
    if (!start_results(x, result)) return;
    const auto& exec = *x.executor();
    LOOM_RUN_KERNEL(where, exec, dot, resolve<V>(where, launch, exec, x.rows(), {}), conjugate, x, y, result.data());
}

}  // namespace

template <typename V>
void dot(const BatchDense<V>& x, const BatchDense<V>& y, Array<V>& result, Launch launch)
{
    dot_product("loom::batched::dot", false, x, y, result, launch);
}

template <typename V>
void conj_dot(const BatchDense<V>& x, const BatchDense<V>& y, Array<V>& result, Launch launch)
{
    dot_product("loom::batched::conj_dot", true, x, y, result, launch);
}

template <typename V>
void nrm2(const BatchDense<V>& x, Array<remove_complex_t<V>>& result, Launch launch)
{
    constexpr const char* where = "loom::batched::nrm2";
    check_vectors(where, x, "x");
    if (!start_results(x, result)) return;
    const auto& exec = *x.executor();
    LOOM_RUN_KERNEL(where, exec, nrm2, resolve<V>(where, launch, exec, x.rows(), {}), x,
                    result.data());
}

namespace {

template <typename V>
void inverse_from_lu(const char* where, BatchDense<V>& LU, const Array<int32>* pivots,
                     Array<int32>& info, Launch launch)
{
    check_square(where, LU, "LU");
    if (pivots != nullptr) check_pivots(where, LU, LU.rows(), *pivots);
    const auto& exec = *LU.executor();
    launch = resolve<V>(where, launch, exec, LU.rows(), {.simd = pivots == nullptr});
    if (!start_info(LU, info, LU.rows())) return;
    const int32* p = pivots != nullptr ? pivots->data() : nullptr;
    LOOM_RUN_KERNEL(where, exec, inverse_lu, launch, LU, p, info.data());
}

}  // namespace

template <typename V>
void inverse_lu(BatchDense<V>& LU, const Array<int32>& pivots, Array<int32>& info, Launch launch)
{
    inverse_from_lu("loom::batched::inverse_lu", LU, &pivots, info, launch);
}

template <typename V>
void inverse_lu_nopivot(BatchDense<V>& LU, Array<int32>& info, Launch launch)
{
    inverse_from_lu("loom::batched::inverse_lu_nopivot", LU, nullptr, info, launch);
}

template <typename V>
void utv(BatchDense<V>& A, Array<int32>& jpiv, BatchDense<V>& U, BatchDense<V>& W,
         Array<int32>& rank, remove_complex_t<V> tol, Launch launch)
{
    constexpr const char* where = "loom::batched::utv";
    check_extents(where, A, "A");
    const auto& exec_ptr = A.executor();
    launch = resolve<V>(where, launch, *exec_ptr, extent(A), {.simd = false});
    const size_type count = A.batch_count();
    const size_type q = std::min(A.rows(), A.cols());
    shape(U, exec_ptr, count, {A.rows(), q});
    shape(W, exec_ptr, count, {q, A.cols()});
    check_distinct(where, U, "U", A, "A");
    check_distinct(where, W, "W", A, "A");
    check_distinct(where, W, "W", U, "U");
    prepare(jpiv, exec_ptr, count * A.cols());
    prepare(rank, exec_ptr, count);
    if (count == 0) return;
    rank.fill(0);
    if (A.size().count() == 0) {
        // m = 0 or n = 0: rank 0, no column interchanged (jpiv(k) = k).
        std::vector<int32> identity(static_cast<std::size_t>(count * A.cols()));
        for (size_type i = 0; i < count * A.cols(); ++i) identity[i] = i % A.cols();
        jpiv = Array<int32>(exec_ptr, identity);
        return;
    }
    const auto& exec = *exec_ptr;
    LOOM_RUN_KERNEL(where, exec, utv, launch, A, jpiv.data(), U, W, rank.data(), tol);
}

template <typename V>
void gbtrf(size_type kl, size_type ku, BatchDense<V>& AB, Array<int32>& pivots, Array<int32>& info,
           Launch launch)
{
    constexpr const char* where = "loom::batched::gbtrf";
    check_band(where, kl, ku, AB);
    const auto& exec = *AB.executor();
    launch = resolve<V>(where, launch, exec, AB.cols(), {.simd = false});
    prepare(pivots, AB.executor(), AB.batch_count() * AB.cols());
    if (!start_info(AB, info, AB.cols())) return;
    LOOM_RUN_KERNEL(where, exec, gbtrf, launch, static_cast<int>(kl), static_cast<int>(ku), AB,
                    pivots.data(), info.data());
}

template <typename V>
void gbtrs(Op op, size_type kl, size_type ku, const BatchDense<V>& AB, const Array<int32>& pivots,
           BatchDense<V>& B, Launch launch)
{
    constexpr const char* where = "loom::batched::gbtrs";
    check_band(where, kl, ku, AB);
    check_operands<V>(where, {{AB, "AB"}, {B, "B"}});
    if (B.rows() != AB.cols()) {
        throw DimensionMismatch(where, "AB", AB.size(), "B", B.size(),
                                "B needs n rows, n = the columns of AB");
    }
    check_pivots(where, AB, AB.cols(), pivots);
    check_distinct(where, B, "B", AB, "AB");
    if (no_work(B)) return;
    const auto& exec = *AB.executor();
    launch = resolve<V>(where, launch, exec, AB.cols(), {.simd = false});
    LOOM_RUN_KERNEL(where, exec, gbtrs, launch, op, static_cast<int>(kl), static_cast<int>(ku), AB, pivots.data(), B);
}

#define LOOM_INSTANTIATE_BATCHED_FRONT(V)                                                      \
    template Launch automatic_launch<V>(std::string_view, const Executor&, size_type);          \
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
                          BatchDense<V>&, Launch);                                              \
    template void trsv(blas::Uplo, Op, blas::Diag, V, const BatchDense<V>&, BatchDense<V>&,     \
                       Launch);                                                                 \
    template void syr(blas::Uplo, Op, V, const BatchDense<V>&, BatchDense<V>&, Launch);        \
    template void axpy(V, const BatchDense<V>&, BatchDense<V>&, Launch);                        \
    template void scale(V, BatchDense<V>&, Launch);                                             \
    template void dot(const BatchDense<V>&, const BatchDense<V>&, Array<V>&, Launch);           \
    template void conj_dot(const BatchDense<V>&, const BatchDense<V>&, Array<V>&, Launch);      \
    template void nrm2(const BatchDense<V>&, Array<remove_complex_t<V>>&, Launch);              \
    template void inverse_lu(BatchDense<V>&, const Array<int32>&, Array<int32>&, Launch);       \
    template void inverse_lu_nopivot(BatchDense<V>&, Array<int32>&, Launch);                    \
    template void utv(BatchDense<V>&, Array<int32>&, BatchDense<V>&, BatchDense<V>&,            \
                      Array<int32>&, remove_complex_t<V>, Launch);                              \
    template void gbtrf(size_type, size_type, BatchDense<V>&, Array<int32>&, Array<int32>&,     \
                        Launch);                                                                \
    template void gbtrs(Op, size_type, size_type, const BatchDense<V>&, const Array<int32>&,    \
                        BatchDense<V>&, Launch);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_BATCHED_FRONT)

}  // namespace loom::batched
