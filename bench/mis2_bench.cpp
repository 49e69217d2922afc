// The MIS-2 benchmark: the reference check, the timings, the report.
#include "bench/mis2_bench.hpp"

#include <fmt/core.h>

#include <functional>
#include <vector>

#include "base/instantiate.hpp"
#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/base/error.hpp"
#include "loom/graph/mis2.hpp"
#include "loom/matrix/dense.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom bench mis2";

/// SpMVs whose total time is MIS-2's target.
constexpr int spmv_budget = 30;

struct Row {
    std::string kernel;
    Timing timing;
    size_type set_size;
};

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_mis2(const matrix::Csr<V, I>& A_in, const Mis2BenchOptions& options)
{
    options.check(where);
    const auto& exec = *options.exec;
    const matrix::Csr<V, I> A(options.exec, A_in);
    const matrix::Csr<V, I> A_ref(ReferenceExecutor::create(), A_in);
    auto timing = options.timing();
    timing.max_batch = 10;

    std::vector<Row> rows;
    for (const auto& entry : graph::mis2_mode_names) {
        const auto mode = entry.value;
        const graph::Mis2Options mis2_options{mode, options.symmetric};
        const auto set = graph::mis2(A, mis2_options).to_host();
        // The reference set once per mode (rounds of sequential O(nnz) passes), not against
        // itself.
        if (exec.kind() != ExecKind::reference &&
            set != graph::mis2(A_ref, mis2_options).to_host()) {
            throw NumericalError(where, fmt::format("the {} set on {} differs from the "
                                                    "reference backend's",
                                                    to_string(mode), exec.name()));
        }
        rows.push_back({fmt::format("mis2 {}", to_string(mode)),
                        time_kernel(
                            exec, [&] { graph::mis2(A, mis2_options); }, timing),
                        static_cast<size_type>(set.size())});
    }
    const graph::Mis2Options fast{graph::Mis2Mode::fast, options.symmetric};
    const auto aggregates = graph::mis2_aggregation(A, fast).count();
    rows.push_back({"aggregation fast",
                    time_kernel(
                        exec, [&] { graph::mis2_aggregation(A, fast); }, timing),
                    aggregates});

    matrix::Dense<V> x(options.exec, {A.cols(), 1});
    matrix::Dense<V> y(options.exec, {A.rows(), 1});
    x.fill(V{1});
    const auto spmv = time_kernel(
        exec, [&] { A.apply(x, y); }, timing);
    const double budget = spmv_budget * spmv.median;

    fmt::print("matrix    {}: {} vertices, {} stored entries{}\n", options.matrix_name, A.rows(),
               A.nnz(), options.symmetric ? " (pattern declared symmetric)" : "");
    fmt::print("run       {}, {} indices, median of {} samples\n", exec.name(), type_name<I>(),
               options.samples);
    fmt::print("spmv      {:.1f} us; target: MIS-2 within {} SpMVs = {:.1f} us\n\n",
               spmv.median * 1e6, spmv_budget, budget * 1e6);
    Table table({"kernel", "time [us]", "in SpMVs", "of target", "set size"});
    auto json_rows = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
        const double t = row.timing.median;
        table.add_row({row.kernel, fmt::format("{:.1f}", t * 1e6),
                       fmt::format("{:.1f}", t / spmv.median), fmt::format("{:.2f}x", t / budget),
                       std::to_string(row.set_size)});
        json_rows.push_back({{"kernel", row.kernel},
                             {"time_s", t},
                             {"time_min_s", row.timing.min},
                             {"time_max_s", row.timing.max},
                             {"spmv_equivalents", t / spmv.median},
                             {"fraction_of_target", t / budget},
                             {"set_size", row.set_size}});
    }
    table.print();
    return {{"benchmark", "mis2"},
            {"matrix", matrix_report(options, A)},
            {"symmetric", options.symmetric},
            {"executor", exec.name()},
            {"index_type", type_name<I>()},
            {"samples", options.samples},
            {"spmv_time_s", spmv.median},
            {"target_spmvs", spmv_budget},
            {"results", json_rows}};
}

#define LOOM_INSTANTIATE_BENCH_MIS2(V, I) \
    template nlohmann::ordered_json bench_mis2(const matrix::Csr<V, I>&, const Mis2BenchOptions&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_MIS2)

}  // namespace loom::bench
