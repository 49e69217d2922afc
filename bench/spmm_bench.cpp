#include "bench/spmm_bench.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/random.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/matrix/precision.hpp"
#include "loom/sparse/fusedmm.hpp"
#include "loom/sparse/sddmm.hpp"
#include "loom/sparse/spmm.hpp"

#if LOOM_BENCH_HAS_EIGEN
#include <Eigen/Core>
#include <Eigen/SparseCore>
#endif

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_spmm";

const char* kernel_name(SpmmKernel kernel)
{
    switch (kernel) {
    case SpmmKernel::spmm: return "spmm";
    case SpmmKernel::sddmm: return "sddmm";
    default: return "fusedmm";
    }
}

/// The part of spmm_bytes_formula that counts `kernel`.
std::string bytes_formula(SpmmKernel kernel)
{
    const std::string all = spmm_bytes_formula;
    const auto begin = all.find(std::string(kernel_name(kernel)) + ":");
    const auto end = all.find(';', begin);
    return all.substr(begin, end == std::string::npos ? end : end - begin);
}

/// One timed variant at one k.
struct Row {
    size_type k;
    std::string library;
    std::string variant;
    Timing timing;
    double error;
};

template <typename V>
matrix::Dense<V> random_dense(const std::shared_ptr<const Executor>& exec, dim2 size,
                              std::uint64_t seed)
{
    return matrix::Dense<V>(exec,
                            matrix::Dense<V>::from_host(ReferenceExecutor::create(), size,
                                                        random_values<V>(size.count(), seed)));
}

/// Max |got - want| / max(1, max |want|); infinite for a NaN.
template <typename V>
double relative_error(const std::vector<V>& got, const std::vector<V>& want)
{
    double diff = 0;
    double scale = 1;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double d = std::abs(got[i] - want[i]);
        if (std::isnan(d)) return std::numeric_limits<double>::infinity();
        diff = std::max(diff, d);
        scale = std::max(scale, static_cast<double>(std::abs(want[i])));
    }
    return diff / scale;
}

/// Generous enough for any summation order over long rows, tight enough to catch a wrong
/// entry.
template <typename V>
double tolerance()
{
    return std::is_same_v<remove_complex_t<V>, float> ? 1e-3 : 1e-9;
}

/// The error of `got` against `want`; NumericalError naming `who` beyond the tolerance.
template <typename V>
double check(const std::string& who, size_type k, const std::vector<V>& got,
             const std::vector<V>& want)
{
    const double error = relative_error(got, want);
    if (!(error <= tolerance<V>())) {
        throw NumericalError(where, fmt::format("{} at k = {}: relative error {:.3g} > {:.3g}", who,
                                                k, error, tolerance<V>()));
    }
    return error;
}

/// Eigen's C = A * B (row-major sparse times row-major dense, parallel over rows with OpenMP).
template <typename V, typename I>
std::function<void()> eigen_spmm(const matrix::Csr<V, I>& A, const matrix::Dense<V>& B,
                                 matrix::Dense<V>& C, int threads)
{
#if LOOM_BENCH_HAS_EIGEN
    using Sparse = Eigen::SparseMatrix<V, Eigen::RowMajor, I>;
    using DenseMatrix = Eigen::Matrix<V, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Stride = Eigen::OuterStride<>;
    Eigen::Map<const Sparse> a(A.rows(), A.cols(), A.nnz(), A.row_ptrs().data(),
                               A.col_idxs().data(), A.values().data());
    Eigen::Map<const DenseMatrix, 0, Stride> b(B.data(), B.rows(), B.cols(), Stride(B.stride()));
    Eigen::Map<DenseMatrix, 0, Stride> c(C.data(), C.rows(), C.cols(), Stride(C.stride()));
    return [=]() mutable {
        Eigen::setNbThreads(threads);
        c.noalias() = a * b;
    };
#else
    (void)A, (void)B, (void)C, (void)threads;
    throw NotSupported(where, "not built with Eigen (install libeigen3-dev and reconfigure)");
#endif
}

/// Times `run` after `checked()` has checked the result it leaves (returning the error).
Row timed_checked(const SpmmBenchOptions& options, size_type k, const std::string& library,
                  const std::string& variant, const std::function<void()>& run,
                  const std::function<double()>& checked)
{
    run();
    const double error = checked();
    return {k, library, variant, time_kernel(*options.exec, run, {.samples = options.samples}),
            error};
}

/// Times `run` after checking the result it leaves in `result` (read by `values`).
template <typename V>
Row timed(const SpmmBenchOptions& options, size_type k, const std::string& library,
          const std::string& variant, const std::function<void()>& run,
          const std::function<std::vector<V>()>& values, const std::vector<V>& want)
{
    return timed_checked(options, k, library, variant, run,
                         [&] { return check(library + " " + variant, k, values(), want); });
}

/// Runs a peer row; a precision the peer does not offer (cuSPARSE has no bf16 SDDMM) is said
/// on stderr and leaves the peer's row out instead of failing the whole benchmark.
template <typename F>
void peer_unless_unsupported(F&& peer_row)
{
    try {
        peer_row();
    } catch (const NotSupported& e) {
        std::cerr << "peer left out: " << e.what() << '\n';
    }
}

/// The backend whose answer a run is checked against: the reference, or for a GPU run the
/// OpenMP backend where built (a sequential FusedMM of 16 M entries at k = 256 took seconds
/// against the kernel's milliseconds).
std::shared_ptr<const Executor> oracle_for(const Executor& exec)
{
    if (!exec.is_host() && OmpExecutor::available()) return OmpExecutor::create();
    return ReferenceExecutor::create();
}

/// The native SpMM kernels a GPU run times besides automatic: those named in the options, or
/// every algorithm but automatic and the vendor's.
std::vector<sparse::SpmmAlgorithm> native_spmm_algorithms(const SpmmBenchOptions& options)
{
    std::vector<sparse::SpmmAlgorithm> algorithms;
    for (const auto& name : options.algorithms) {
        algorithms.push_back(sparse::parse_spmm_algorithm(name));
    }
    if (!options.algorithms.empty()) return algorithms;
    for (const auto& name : sparse::spmm_algorithm_names) {
        if (name.value != sparse::SpmmAlgorithm::automatic &&
            name.value != sparse::SpmmAlgorithm::vendor) {
            algorithms.push_back(name.value);
        }
    }
    return algorithms;
}

/// Entries of C above which a GPU run checks sampled rows only.
constexpr size_type large_check = size_type{1} << 22;

std::vector<size_type> sampled_rows(size_type rows);

template <typename V, typename I>
std::vector<Row> bench_spmm_k(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& A_ref,
                              size_type k, const SpmmBenchOptions& options)
{
    const auto& exec = options.exec;
    const auto host = A_ref.executor();
    const auto B = random_dense<V>(exec, {A.cols(), k}, 2);
    matrix::Dense<V> C(exec, dim2{A.rows(), k});
    std::vector<V> want;
    std::function<std::vector<V>()> values = [&] { return C.to_host(); };
    if (!exec->is_host() && A.rows() * k > large_check) {
        // Sampled rows and the longest row, summed on the host: the oracle's whole product
        // and a copy of C per variant took seconds at millions of rows.
        auto checked = sampled_rows(A.rows());
        const I* ptrs = A_ref.row_ptrs().data();
        const I* cols = A_ref.col_idxs().data();
        const V* a = A_ref.values().data();
        size_type longest = 0;
        for (size_type r = 0; r < A.rows(); ++r) {
            if (ptrs[r + 1] - ptrs[r] > ptrs[longest + 1] - ptrs[longest]) longest = r;
        }
        checked.push_back(longest);
        const matrix::Dense<V> B_host(host, B);
        for (const auto r : checked) {
            std::vector<V> sum(k, V{0});
            for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                for (size_type j = 0; j < k; ++j) sum[j] += a[e] * B_host.at(cols[e], j);
            }
            want.insert(want.end(), sum.begin(), sum.end());
        }
        values = [&, checked] {
            std::vector<V> got;
            for (const auto r : checked) {
                const auto row = C.rows_view(r, 1).to_host();
                got.insert(got.end(), row.begin(), row.end());
            }
            return got;
        };
    } else {
        matrix::Dense<V> C_ref(host, dim2{A.rows(), k});
        sparse::spmm(sparse::Mode::none, V{1}, A_ref, matrix::Dense<V>(host, B), V{0}, C_ref);
        want = C_ref.to_host();
    }
    const auto spmm_with = [&](sparse::SpmmAlgorithm algorithm) {
        return
            [&, algorithm] { sparse::spmm(sparse::Mode::none, V{1}, A, B, V{0}, C, {algorithm}); };
    };
    std::vector<Row> rows;
    rows.push_back(timed<V>(options, k, "loom", "automatic",
                            spmm_with(sparse::SpmmAlgorithm::automatic), values, want));
    if (!exec->is_host()) {
        for (const auto algorithm : native_spmm_algorithms(options)) {
            rows.push_back(timed<V>(options, k, "loom", sparse::to_string(algorithm),
                                    spmm_with(algorithm), values, want));
        }
    }
    // k single-column SpMVs: what a multi-vector cost before SpMM (A read k times).
    auto B_columns = B;
    rows.push_back(timed<V>(
        options, k, "loom", "spmv per column",
        [&] {
            for (size_type j = 0; j < k; ++j) {
                auto c = C.column(j);
                sparse::spmv(sparse::Mode::none, V{1}, A, B_columns.column(j), V{0}, c);
            }
        },
        values, want));
    if (options.peer == Peer::cusparse) {
        // Every algorithm of cuSPARSE: the peer is the best of them (the target says so), the
        // default's row kept. An explicit one that declines the input (cuSPARSE's error) is
        // said on stderr and left out.
        for (const auto& name : sparse::vendor_spmm_algorithm_names) {
            const auto run = [&, vendor = name.value] {
                sparse::spmm(sparse::Mode::none, V{1}, A, B, V{0}, C,
                             {sparse::SpmmAlgorithm::vendor, vendor});
            };
            const std::string variant = std::string("SpMM ") + name.name;
            if (name.value == sparse::VendorSpmmAlgorithm::default_algorithm) {
                rows.push_back(timed<V>(options, k, "cusparse", variant, run, values, want));
                continue;
            }
            try {
                rows.push_back(timed<V>(options, k, "cusparse", variant, run, values, want));
            } catch (const Error& e) {
                std::cerr << "cusparse " << variant << " left out: " << e.what() << '\n';
            }
        }
    } else if (options.peer == Peer::eigen) {
        rows.push_back(timed<V>(options, k, "eigen", "sparse * dense",
                                eigen_spmm(A, B, C, host_threads(*exec)), values, want));
    }
    return rows;
}

template <typename V, typename I>
std::vector<Row> bench_sddmm_k(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& A_ref,
                               size_type k, const SpmmBenchOptions& options)
{
    const auto& exec = options.exec;
    const auto host = A_ref.executor();
    const auto X = random_dense<V>(exec, {A.rows(), k}, 3);
    const auto Y = random_dense<V>(exec, {A.cols(), k}, 4);
    matrix::Csr<V, I> S(exec, A);
    matrix::Csr<V, I> S_ref(A_ref);
    sparse::sddmm(V{1}, matrix::Dense<V>(host, X), matrix::Dense<V>(host, Y), V{0}, S_ref);
    const auto want = S_ref.values().to_host();
    const std::function<std::vector<V>()> values = [&] { return S.values().to_host(); };
    const auto sddmm_with = [&](sparse::SddmmAlgorithm algorithm) {
        return [&, algorithm] { sparse::sddmm(V{1}, X, Y, V{0}, S, {algorithm}); };
    };
    std::vector<Row> rows;
    rows.push_back(timed<V>(options, k, "loom", "native",
                            sddmm_with(sparse::SddmmAlgorithm::native), values, want));
    if (options.peer == Peer::cusparse) {
        rows.push_back(timed<V>(options, k, "cusparse", "SDDMM",
                                sddmm_with(sparse::SddmmAlgorithm::vendor), values, want));
    } else if (options.peer == Peer::eigen) {
        throw NotSupported(where, "Eigen has no SDDMM; use --peer none on the host");
    }
    return rows;
}

template <typename V, typename I>
std::vector<Row> bench_fusedmm_k(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& A_ref,
                                 size_type k, const SpmmBenchOptions& options)
{
    const auto& exec = options.exec;
    const auto host = A_ref.executor();
    const auto X = random_dense<V>(exec, {A.rows(), k}, 3);
    const auto Y = random_dense<V>(exec, {A.cols(), k}, 4);
    const auto W = random_dense<V>(exec, {A.cols(), k}, 5);
    matrix::Dense<V> Z(exec, dim2{A.rows(), k});
    matrix::Dense<V> Z_ref(host, dim2{A.rows(), k});
    sparse::fusedmm(sparse::EdgeOp::identity, A_ref, matrix::Dense<V>(host, X),
                    matrix::Dense<V>(host, Y), matrix::Dense<V>(host, W), Z_ref);
    const auto want = Z_ref.to_host();
    const std::function<std::vector<V>()> values = [&] { return Z.to_host(); };
    std::vector<Row> rows;
    rows.push_back(timed<V>(
        options, k, "loom", "fused (identity)",
        [&] { sparse::fusedmm(sparse::EdgeOp::identity, A, X, Y, W, Z); }, values, want));
    if (options.peer == Peer::cusparse) {
        // The unfused peer: the sampled values stored by SDDMM, then read back by SpMM.
        matrix::Csr<V, I> S(exec, A);
        rows.push_back(timed<V>(
            options, k, "cusparse", "SDDMM + SpMM",
            [&] {
                sparse::sddmm(V{1}, X, Y, V{0}, S, {sparse::SddmmAlgorithm::vendor});
                sparse::spmm(sparse::Mode::none, V{1}, S, W, V{0}, Z,
                             {sparse::SpmmAlgorithm::vendor});
            },
            values, want));
    } else if (options.peer == Peer::eigen) {
        throw NotSupported(where, "Eigen has no SDDMM to pair with its SpMM; use --peer none");
    }
    return rows;
}

/// Rows whose results the 16-bit runs check: up to this many, evenly spread over A.
constexpr size_type sampled_row_count = 256;

std::vector<size_type> sampled_rows(size_type rows)
{
    std::vector<size_type> out;
    const size_type n = std::min(rows, sampled_row_count);
    for (size_type i = 0; i < n; ++i) out.push_back(i * rows / n);
    return out;
}

/// The fp64 value of each sampled entry of a 16-bit run, and the distance it must keep.
struct Sampled {
    std::vector<double> want;
    std::vector<double> bound;

    /// An entry whose terms (products) sum to `sum` and whose magnitudes sum to `size`:
    /// the 16-bit result may be off by its final rounding (twice under nnz_balanced; half a
    /// step of half's subnormals, 2^-24, at worst below its normal range), and by float's
    /// summation.
    void add(double sum, double size, double eps)
    {
        want.push_back(sum);
        bound.push_back(2 * eps * size + 0x1p-24);
    }
};

/// Max |got - want| / max(1, max |want|); NumericalError naming `who` for an entry beyond
/// its bound.
double check_sampled(const std::string& who, size_type k, const std::vector<double>& got,
                     const Sampled& sampled)
{
    double diff = 0;
    double scale = 1;
    for (std::size_t i = 0; i < sampled.want.size(); ++i) {
        const double d = std::abs(got[i] - sampled.want[i]);
        if (!(d <= sampled.bound[i])) {
            throw NumericalError(
                where, fmt::format("{} at k = {}: sampled entry {} is {:.6g}, expected {:.6g} "
                                   "within {:.3g}",
                                   who, k, i, got[i], sampled.want[i], sampled.bound[i]));
        }
        diff = std::max(diff, d);
        scale = std::max(scale, std::abs(sampled.want[i]));
    }
    return diff / scale;
}

/// Random values in [-1, 1) of V rounded to S, on the host.
template <typename S, typename V>
matrix::Dense<S> random_storage(dim2 size, std::uint64_t seed)
{
    return matrix::convert_precision<S>(matrix::Dense<V>::from_host(
        ReferenceExecutor::create(), size, random_values<V>(size.count(), seed)));
}

/// Rows `rows` of d (on any executor) as doubles, packed.
template <typename S>
std::vector<double> rows_of(matrix::Dense<S>& d, const std::vector<size_type>& rows)
{
    std::vector<double> out;
    for (const auto r : rows) {
        for (const S v : d.rows_view(r, 1).to_host()) out.push_back(static_cast<float>(v));
    }
    return out;
}

/// x_r . y_c of two host operands, and the sum of the magnitudes of its terms.
template <typename S>
std::pair<double, double> dot_of(const matrix::Dense<S>& X, size_type r, const matrix::Dense<S>& Y,
                                 size_type c)
{
    double dot = 0;
    double size = 0;
    for (size_type t = 0; t < X.cols(); ++t) {
        const double term = double(float(X.at(r, t))) * double(float(Y.at(c, t)));
        dot += term;
        size += std::abs(term);
    }
    return {dot, size};
}

/// SpMM, SDDMM or FusedMM at every k in 16-bit storage S: Loom's kernels and the peer's
/// (cuSPARSE in S with float compute), each checked on the sampled rows first.
template <typename S, typename V, typename I>
std::vector<Row> bench_storage(const matrix::Csr<V, I>& A_in, const SpmmBenchOptions& options)
{
    const auto& exec = options.exec;
    const auto host = ReferenceExecutor::create();
    const double eps = storage_epsilon<S>();
    const auto A_host = matrix::convert_precision<S>(matrix::Csr<V, I>(host, A_in));
    const matrix::Csr<S, I> A(exec, A_host);
    const I* ptrs = A_host.row_ptrs().data();
    const I* cols = A_host.col_idxs().data();
    const S* values = A_host.values().data();
    const auto sample = sampled_rows(A.rows());
    std::vector<Row> rows;
    for (const auto k : options.ks) {
        const auto add = [&](const std::string& library, const std::string& variant,
                             const std::function<void()>& run,
                             const std::function<std::vector<double>()>& got,
                             const Sampled& sampled) {
            rows.push_back(timed_checked(options, k, library, variant, run, [&] {
                return check_sampled(library + " " + variant, k, got(), sampled);
            }));
        };
        if (options.kernel == SpmmKernel::spmm) {
            const auto B_host = random_storage<S, V>({A.cols(), k}, 2);
            const matrix::Dense<S> B(exec, B_host);
            matrix::Dense<S> C(exec, dim2{A.rows(), k});
            Sampled sampled;
            for (const auto r : sample) {
                for (size_type j = 0; j < k; ++j) {
                    double sum = 0;
                    double size = 0;
                    for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                        const double term = double(float(values[e])) * float(B_host.at(cols[e], j));
                        sum += term;
                        size += std::abs(term);
                    }
                    sampled.add(sum, size, eps);
                }
            }
            const auto got = [&] { return rows_of(C, sample); };
            const auto spmm_with = [&](sparse::SpmmAlgorithm algorithm) {
                return [&, algorithm] {
                    sparse::spmm(sparse::Mode::none, 1.0f, A, B, 0.0f, C, {algorithm});
                };
            };
            add("loom", "automatic", spmm_with(sparse::SpmmAlgorithm::automatic), got, sampled);
            if (!exec->is_host()) {
                for (const auto algorithm : native_spmm_algorithms(options)) {
                    add("loom", sparse::to_string(algorithm), spmm_with(algorithm), got, sampled);
                }
            }
            if (options.peer == Peer::cusparse) {
                add("cusparse", "SpMM", spmm_with(sparse::SpmmAlgorithm::vendor), got, sampled);
            }
        } else if (options.kernel == SpmmKernel::sddmm) {
            const auto X_host = random_storage<S, V>({A.rows(), k}, 3);
            const auto Y_host = random_storage<S, V>({A.cols(), k}, 4);
            const matrix::Dense<S> X(exec, X_host);
            const matrix::Dense<S> Y(exec, Y_host);
            matrix::Csr<S, I> out(exec, A);
            Sampled sampled;
            for (const auto r : sample) {
                for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                    const auto [dot, size] = dot_of(X_host, r, Y_host, cols[e]);
                    sampled.add(dot, size, eps);
                }
            }
            const auto got = [&] {
                const auto all = out.values().to_host();
                std::vector<double> picked;
                for (const auto r : sample) {
                    for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) picked.push_back(float(all[e]));
                }
                return picked;
            };
            const auto sddmm_with = [&](sparse::SddmmAlgorithm algorithm) {
                return [&, algorithm] { sparse::sddmm(1.0f, X, Y, 0.0f, out, {algorithm}); };
            };
            add("loom", "native", sddmm_with(sparse::SddmmAlgorithm::native), got, sampled);
            if (options.peer == Peer::cusparse) {
                peer_unless_unsupported([&] {
                    add("cusparse", "SDDMM", sddmm_with(sparse::SddmmAlgorithm::vendor), got,
                        sampled);
                });
            }
        } else {
            const auto X_host = random_storage<S, V>({A.rows(), k}, 3);
            const auto Y_host = random_storage<S, V>({A.cols(), k}, 4);
            const auto W_host = random_storage<S, V>({A.cols(), k}, 5);
            const matrix::Dense<S> X(exec, X_host);
            const matrix::Dense<S> Y(exec, Y_host);
            const matrix::Dense<S> W(exec, W_host);
            matrix::Dense<S> Z(exec, dim2{A.rows(), k});
            Sampled sampled;
            for (const auto r : sample) {
                std::vector<double> sum(k), size(k);
                for (auto e = ptrs[r]; e < ptrs[r + 1]; ++e) {
                    const auto [dot, dot_size] = dot_of(X_host, r, Y_host, cols[e]);
                    for (size_type q = 0; q < k; ++q) {
                        const double w = float(W_host.at(cols[e], q));
                        sum[q] += dot * w;
                        // The SDDMM + SpMM peer rounds each sampled value to 16 bits too.
                        size[q] += dot_size * std::abs(w);
                    }
                }
                for (size_type q = 0; q < k; ++q) sampled.add(sum[q], size[q], eps);
            }
            const auto got = [&] { return rows_of(Z, sample); };
            add(
                "loom", "fused (identity)",
                [&] { sparse::fusedmm(sparse::EdgeOp::identity, A, X, Y, W, Z); }, got, sampled);
            if (options.peer == Peer::cusparse) {
                matrix::Csr<S, I> sampled_values(exec, A);
                peer_unless_unsupported([&] { add(
                    "cusparse", "SDDMM + SpMM",
                    [&] {
                        sparse::sddmm(1.0f, X, Y, 0.0f, sampled_values,
                                      {sparse::SddmmAlgorithm::vendor});
                        sparse::spmm(sparse::Mode::none, 1.0f, sampled_values, W, 0.0f, Z,
                                     {sparse::SpmmAlgorithm::vendor});
                    },
                    got, sampled); });
            }
        }
    }
    return rows;
}

/// How often SpMM's gathers of B's rows miss a cache, by a model: the gathers in row order
/// (A's column sequence) through a fully associative LRU cache, whose misses are the gathers
/// with a stack distance (distinct rows of B gathered since the same row's last gather) at
/// least the cache's capacity in rows, first gathers included. Distances are measured on the
/// columns whose hash falls in 1 / `rate` of them and scaled by `rate` (SHARDS sampling):
/// exact stack distances of 30 M gathers took seconds per input.
class GatherReuse {
public:
    template <typename V, typename I>
    explicit GatherReuse(const matrix::Csr<V, I>& A_in)
    {
        const matrix::Csr<V, I> A(ReferenceExecutor::create(), A_in);
        rate_ = A.nnz() < (1 << 20) ? 1 : 16;
        const I* cols = A.col_idxs().data();
        const auto sampled = [&](I col) {
            std::uint64_t h = static_cast<std::uint64_t>(col) + 0x9e3779b97f4a7c15ull;
            h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
            h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
            return ((h ^ (h >> 31)) % rate_) == 0;
        };
        std::vector<I> picked;
        for (size_type e = 0; e < A.nnz(); ++e) {
            if (sampled(cols[e])) picked.push_back(cols[e]);
        }
        // Fenwick tree over the sampled gathers: 1 where a gather is its row's latest.
        std::vector<int> tree(picked.size() + 1, 0);
        const auto add = [&](std::size_t t, int d) {
            for (++t; t < tree.size(); t += t & (~t + 1)) tree[t] += d;
        };
        const auto before = [&](std::size_t t) {  // latest gathers at times < t
            long long sum = 0;
            for (; t > 0; t -= t & (~t + 1)) sum += tree[t];
            return sum;
        };
        std::vector<long long> last(A.cols(), -1);
        for (std::size_t t = 0; t < picked.size(); ++t) {
            auto& previous = last[picked[t]];
            if (previous < 0) {
                ++first_gathers_;
            } else {
                distances_.push_back(double(before(t) - before(previous + 1)) * rate_);
                add(previous, -1);
            }
            add(t, 1);
            previous = static_cast<long long>(t);
        }
        std::sort(distances_.begin(), distances_.end());
    }

    /// Gathers (estimated) that miss a cache of `capacity` rows of B.
    double misses(double capacity) const
    {
        const auto hits = std::lower_bound(distances_.begin(), distances_.end(), capacity) -
                          distances_.begin();
        return (first_gathers_ + double(distances_.size() - hits)) * rate_;
    }

private:
    int rate_ = 1;
    long long first_gathers_ = 0;
    std::vector<double> distances_;
};

/// SpMM's bandwidth bound at k: the bytes a kernel must move at least, and that time at the
/// measured copy bandwidth.
struct Bound {
    double b_rows;  // rows of B read from memory (gathers missing L2)
    double bytes;
    double seconds;
};

/// A once, C once (written), and the rows of B that miss an L2 of `l2_bytes` (GatherReuse),
/// each k values of v bytes.
template <typename V, typename I>
Bound spmm_bound(const matrix::Csr<V, I>& A, const GatherReuse& reuse, size_type k, double v,
                 double l2_bytes, double copy_bytes_per_second)
{
    const double row_bytes = double(k) * v;
    const double b_rows = reuse.misses(l2_bytes / row_bytes);
    const double bytes = A.nnz() * (double(sizeof(I)) + v) + (A.rows() + 1.0) * sizeof(I) +
                         A.rows() * row_bytes + b_rows * row_bytes;
    return {b_rows, bytes, bytes / copy_bytes_per_second};
}

/// Bytes one call moves at the minimum (see spmm_bytes_formula), values of v bytes.
template <typename V, typename I>
double bytes_of(SpmmKernel kernel, const matrix::Csr<V, I>& A, size_type k, double v)
{
    const double pattern = A.nnz() * double(sizeof(I)) + (A.rows() + 1.0) * sizeof(I);
    const double dense = (A.rows() + A.cols()) * double(k) * v;
    switch (kernel) {
    case SpmmKernel::spmm: return pattern + A.nnz() * v + dense;
    case SpmmKernel::sddmm: return pattern + 2 * A.nnz() * v + dense;
    default: return pattern + A.nnz() * v + 2 * dense;
    }
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_spmm(const matrix::Csr<V, I>& A_in, const SpmmBenchOptions& options)
{
    check_run(where, options.exec, options.samples, options.peer);
    if (options.ks.empty()) throw BadInput(where, "no k given");
    if constexpr (is_complex_v<V>) {
        if (options.kernel == SpmmKernel::fusedmm) {
            throw NotSupported(where, "FusedMM takes real value types");
        }
    }
    for (const auto k : options.ks) {
        if (k < 1) throw BadInput(where, fmt::format("k must be positive, got {}", k));
    }
    const bool narrow = options.precision != StoragePrecision::native;
    std::vector<Row> rows;
    std::string value_name = type_name<V>();
    double value_bytes = sizeof(V);
    if (!narrow) {
        const matrix::Csr<V, I> A_ref(oracle_for(*options.exec), A_in);
        const matrix::Csr<V, I> A(options.exec, A_in);
        for (const auto k : options.ks) {
            std::vector<Row> at_k;
            if (options.kernel == SpmmKernel::spmm) {
                at_k = bench_spmm_k(A, A_ref, k, options);
            } else if (options.kernel == SpmmKernel::sddmm) {
                at_k = bench_sddmm_k(A, A_ref, k, options);
            } else if constexpr (!is_complex_v<V>) {
                at_k = bench_fusedmm_k(A, A_ref, k, options);
            }
            rows.insert(rows.end(), at_k.begin(), at_k.end());
        }
    } else if constexpr (is_complex_v<V>) {
        throw NotSupported(where, "16-bit storage takes real value types (--type float or double)");
    } else {
        if (options.peer == Peer::eigen) {
            throw NotSupported(where,
                               "the Eigen peer runs in float or double only; use "
                               "--precision native or --peer none");
        }
        with_storage_type(options.precision, [&]<typename S>(std::type_identity<S>) {
            rows = bench_storage<S, V>(A_in, options);
            value_name = to_string(options.precision);
            value_bytes = sizeof(S);
        });
    }

    const auto default_copy_bytes =
        options.exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        options.exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);
    const double flops_per_entry = options.kernel == SpmmKernel::fusedmm ? 4 : 2;
    // The peer's best row at k (cuSPARSE runs each of its algorithms).
    const auto peer_time = [&](size_type k) {
        double best = 0.0;
        for (const auto& r : rows) {
            if (r.k == k && r.library != "loom" && (best == 0.0 || r.timing.median < best)) {
                best = r.timing.median;
            }
        }
        return best;
    };

    fmt::print("kernel    {}\n", kernel_name(options.kernel));
    fmt::print("A         {}: {} x {}, {} stored entries\n", options.matrix_name, A_in.rows(),
               A_in.cols(), A_in.nnz());
    fmt::print("run       {}, {} values, {} indices, median of {} samples\n",
               executor_description(*options.exec), value_name, type_name<I>(), options.samples);
    if (narrow) {
        fmt::print(
            "check     {} sampled rows against fp64 sums of the same 16-bit inputs, each "
            "entry within 2 eps_16 sum |terms|\n",
            sampled_row_count);
    }
    fmt::print("copy      {:.1f} GB/s (read + write counted)\n", copy.bytes_per_second / 1e9);
    fmt::print("bytes     {}\n", bytes_formula(options.kernel));
    // SpMM on a GPU: the bandwidth bound by the L2 model, per k.
    const auto* cuda = dynamic_cast<const CudaExecutor*>(options.exec.get());
    std::vector<std::pair<size_type, Bound>> bounds;
    if (options.kernel == SpmmKernel::spmm && cuda != nullptr) {
        const GatherReuse reuse(A_in);
        const double l2 = double(cuda->l2_cache_bytes());
        fmt::print(
            "bound     A once, C once, a row of B once per gather that misses an LRU cache of "
            "L2 = {:.1f} MB (stack distances of A's columns in row order); time at the copy "
            "bandwidth\n",
            l2 / 1e6);
        for (const auto k : options.ks) {
            const auto bound =
                spmm_bound(A_in, reuse, k, value_bytes, l2, copy.bytes_per_second);
            bounds.emplace_back(k, bound);
            fmt::print("          k = {}: {:.3g} rows of B moved ({:.2f} per row of A, {:.2f} per "
                       "gather), {:.3g} GB, bound {:.1f} us\n",
                       k, bound.b_rows, bound.b_rows / std::max<double>(1, A_in.rows()),
                       bound.b_rows / std::max<double>(1, A_in.nnz()), bound.bytes / 1e9,
                       bound.seconds * 1e6);
        }
    }
    const auto bound_at = [&](size_type k) {
        for (const auto& [at, bound] : bounds) {
            if (at == k) return bound.seconds;
        }
        return 0.0;
    };
    fmt::print("\n");
    const std::string peer_column = options.peer == Peer::none
                                        ? std::string("vs peer")
                                        : fmt::format("vs {}", to_string(options.peer));
    Table table({"k", "library", "variant", "time [us]", "GB/s", "GFLOP/s", "of copy BW",
                 "of bound", peer_column, "rel. error"});
    auto json_rows = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
        const double t = r.timing.median;
        const double bytes = bytes_of(options.kernel, A_in, r.k, value_bytes);
        const double flops =
            flops_per_entry * double(A_in.nnz()) * double(r.k) * (is_complex_v<V> ? 4 : 1);
        const double other = r.library == "loom" ? peer_time(r.k) : 0.0;
        table.add_row(
            {std::to_string(r.k), r.library, r.variant, fmt::format("{:.1f}", t * 1e6),
             fmt::format("{:.1f}", bytes / t / 1e9), fmt::format("{:.1f}", flops / t / 1e9),
             fmt::format("{:.1f}%", 100 * bytes / t / copy.bytes_per_second),
             bound_at(r.k) > 0 ? fmt::format("{:.1f}%", 100 * bound_at(r.k) / t) : "-",
             other > 0 ? fmt::format("{:.2f}x", other / t) : "-", fmt::format("{:.1e}", r.error)});
        json_rows.push_back({{"k", r.k},
                             {"library", r.library},
                             {"variant", r.variant},
                             {"time_s", t},
                             {"time_min_s", r.timing.min},
                             {"time_max_s", r.timing.max},
                             {"calls_per_sample", r.timing.batch},
                             {"bytes", bytes},
                             {"gb_per_s", bytes / t / 1e9},
                             {"gflop_per_s", flops / t / 1e9},
                             {"fraction_of_copy_bandwidth", bytes / t / copy.bytes_per_second},
                             {"fraction_of_bound", bound_at(r.k) > 0
                                                       ? nlohmann::ordered_json(bound_at(r.k) / t)
                                                       : nlohmann::ordered_json()},
                             {"speedup_vs_peer", other > 0 ? nlohmann::ordered_json(other / t)
                                                           : nlohmann::ordered_json()},
                             {"relative_error", r.error}});
    }
    table.print();
    // Whether 1.3x the best peer is within the bound at all.
    for (const auto& [k, bound] : bounds) {
        const double peer = peer_time(k);
        if (peer <= 0) continue;
        fmt::print("k = {}: the best peer runs at {:.1f}% of the bound; 1.3x the peer ({:.1f} us) "
                   "is {}\n",
                   k, 100 * bound.seconds / peer, peer / 1.3 * 1e6,
                   bound.seconds <= peer / 1.3
                       ? fmt::format("{:.1f}% of the bound", 100 * bound.seconds * 1.3 / peer)
                       : std::string("BEYOND the bound (unreachable)"));
    }
    return {{"benchmark", kernel_name(options.kernel)},
            {"matrix",
             {{"name", options.matrix_name},
              {"rows", A_in.rows()},
              {"cols", A_in.cols()},
              {"nnz", A_in.nnz()}}},
            {"executor", options.exec->name()},
            {"value_type", value_name},
            {"precision", to_string(options.precision)},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"bytes_formula", bytes_formula(options.kernel)},
            {"flops_formula", spmm_flops_formula},
            {"peer", to_string(options.peer)},
            {"tolerance", narrow ? nlohmann::ordered_json("2 eps_16 sum |terms| per sampled entry")
                                 : nlohmann::ordered_json(tolerance<V>())},
            {"copy_bandwidth_gb_per_s", copy.bytes_per_second / 1e9},
            {"bounds", [&] {
                 auto all = nlohmann::ordered_json::array();
                 for (const auto& [k, bound] : bounds) {
                     all.push_back({{"k", k},
                                    {"b_rows_moved", bound.b_rows},
                                    {"bytes", bound.bytes},
                                    {"time_s", bound.seconds}});
                 }
                 return all;
             }()},
            {"results", json_rows}};
}

#define LOOM_INSTANTIATE_BENCH_SPMM(V, I) \
    template nlohmann::ordered_json bench_spmm(const matrix::Csr<V, I>&, const SpmmBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_SPMM)

}  // namespace loom::bench
