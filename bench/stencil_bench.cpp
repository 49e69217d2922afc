#include "bench/stencil_bench.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/bandwidth.hpp"
#include "bench/random.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/matrix/stencil.hpp"
#include "loom/sparse/spmv.hpp"
#include "loom/sparse/spmv_stencil.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom::bench::bench_spmv_stencil";

matrix::Box box_for(size_type grid, int points)
{
    const bool three_d = points == 7 || points == 27;
    const bool two_d = points == 5 || points == 9;
    return {grid, three_d || two_d ? grid : 1, three_d ? grid : 1};
}

struct Measurement {
    std::string kernel;
    double bytes;
    double error;
    Timing timing;
};

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_spmv_stencil(const StencilBenchOptions& options)
{
    if (!options.exec) throw BadInput(where, "no executor given");
    if (options.samples < 1 || options.grid < 1) {
        throw BadInput(where, fmt::format("need a positive grid and repetitions, got {} and {}",
                                          options.grid, options.samples));
    }
    const auto& exec = options.exec;
    const auto host = ReferenceExecutor::create();
    const auto box = box_for(options.grid, options.points);
    const matrix::Stencil<V, I> S_host(host, box, options.points);
    const auto n = S_host.size().rows;

    // The oracle: the reference backend's stencil product, from the operator's definition.
    const auto x_host = matrix::Dense<V>::from_host(host, {n, 1}, random_values<V>(n, 1));
    matrix::Dense<V> y_ref(host, dim2{n, 1});
    sparse::spmv(sparse::Mode::none, V{1}, S_host, x_host, V{0}, y_ref);
    const auto expected = y_ref.to_host();
    double scale = 1;
    for (const auto& w : S_host.weights()) scale = std::max(scale, double(std::abs(w)));
    const double tolerance = 4.0 * (options.points + 1) * scale *
                             std::numeric_limits<remove_complex_t<V>>::epsilon();

    const matrix::Stencil<V, I> S(exec, S_host);
    const matrix::Csr<V, I> A(exec, S_host.to_csr());
    const matrix::Dense<V> x(exec, x_host);
    matrix::Dense<V> y(exec, dim2{n, 1});

    const auto measure = [&](std::string kernel, double bytes, const std::function<void()>& spmv) {
        y.fill(V{std::numeric_limits<remove_complex_t<V>>::quiet_NaN()});
        spmv();
        const auto values = y.to_host();
        double error = 0;
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double diff = std::abs(values[i] - expected[i]);
            error = std::isnan(diff) ? std::numeric_limits<double>::infinity()
                                     : std::max(error, diff);
        }
        if (!(error <= tolerance)) {
            throw NumericalError(where, fmt::format("{} on {} differs from the reference backend: "
                                                    "error {:.3g} > tolerance {:.3g}",
                                                    kernel, exec->name(), error, tolerance));
        }
        return Measurement{std::move(kernel), bytes, error,
                           time_kernel(*exec, spmv, {.samples = options.samples})};
    };

    const auto default_copy_bytes = exec->is_host() ? std::size_t{512} << 20 : std::size_t{1} << 30;
    const auto copy = measure_copy_bandwidth(
        exec, options.copy_bytes > 0 ? options.copy_bytes : default_copy_bytes);

    // Minimal bytes of y = A x: x read once, y written once, plus what each format stores
    // per row (the stencil's boundary CSR, the whole CSR).
    const auto& boundary = S.boundary();
    const double vectors = 2.0 * n * sizeof(V);
    const double stencil_bytes = vectors + boundary.nnz() * double(sizeof(V) + sizeof(I)) +
                                 2.0 * (boundary.rows() + 1) * sizeof(I);
    const double csr_bytes =
        vectors + A.nnz() * double(sizeof(V) + sizeof(I)) + (n + 1.0) * sizeof(I);
    std::vector<Measurement> results;
    results.push_back(measure("stencil", stencil_bytes, [&] {
        sparse::spmv(sparse::Mode::none, V{1}, S, x, V{0}, y);
    }));
    const auto algorithm = sparse::choose_spmv_algorithm(A);
    results.push_back(measure(std::string("csr/") + sparse::to_string(algorithm), csr_bytes, [&] {
        sparse::spmv(sparse::Mode::none, V{1}, A, x, V{0}, y);
    }));

    fmt::print("operator  {}-point Poisson stencil on {} x {} x {}: {} rows, {} as CSR entries\n",
               options.points, box.nx, box.ny, box.nz, n, A.nnz());
    fmt::print("          {} interior rows, {} boundary rows ({} CSR entries)\n",
               S.interior_rows(), boundary.rows(), boundary.nnz());
    fmt::print("run       {}, {} values, {} indices, y = A*x, median of {} samples\n",
               exec->name(), type_name<V>(), type_name<I>(), options.samples);
    fmt::print("copy      {:.1f} GB/s (read + write counted)\n", copy.bytes_per_second / 1e9);
    fmt::print("bytes     stencil {:.1f} MB = 2*rows*|V| + its boundary CSR; "
               "csr {:.1f} MB = nnz*(|V|+|I|) + (rows+1)*|I| + 2*rows*|V|\n\n",
               stencil_bytes / 1e6, csr_bytes / 1e6);

    const double csr_time = results.back().timing.median;
    Table table({"kernel", "time [us]", "GB/s", "of copy BW", "bytes/row", "vs csr", "error"});
    auto json_results = nlohmann::ordered_json::array();
    for (const auto& m : results) {
        const double t = m.timing.median;
        table.add_row({m.kernel, fmt::format("{:.1f}", t * 1e6),
                       fmt::format("{:.1f}", m.bytes / t / 1e9),
                       fmt::format("{:.1f}%", 100 * m.bytes / t / copy.bytes_per_second),
                       fmt::format("{:.1f}", m.bytes / n), fmt::format("{:.2f}x", csr_time / t),
                       fmt::format("{:.1e}", m.error)});
        json_results.push_back({{"kernel", m.kernel},
                                {"time_s", t},
                                {"time_min_s", m.timing.min},
                                {"time_max_s", m.timing.max},
                                {"calls_per_sample", m.timing.batch},
                                {"bytes", m.bytes},
                                {"gb_per_s", m.bytes / t / 1e9},
                                {"fraction_of_copy_bandwidth", m.bytes / t / copy.bytes_per_second},
                                {"speedup_vs_csr", csr_time / t},
                                {"error", m.error}});
    }
    table.print();

    return {{"benchmark", "spmv-stencil"},
            {"points", options.points},
            {"box", {box.nx, box.ny, box.nz}},
            {"rows", n},
            {"csr_nnz", A.nnz()},
            {"boundary_rows", boundary.rows()},
            {"executor", exec->name()},
            {"value_type", type_name<V>()},
            {"index_type", type_name<I>()},
            {"operation", "y = A*x"},
            {"samples", options.samples},
            {"tolerance", tolerance},
            {"copy_bandwidth_gb_per_s", copy.bytes_per_second / 1e9},
            {"results", json_results}};
}

#define LOOM_INSTANTIATE_BENCH_STENCIL(V, I) \
    template nlohmann::ordered_json bench_spmv_stencil<V, I>(const StencilBenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_STENCIL)

}  // namespace loom::bench
