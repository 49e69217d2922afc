// The sort benchmark: the std::sort check, the timings, the report.
#include "bench/sort_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench/table.hpp"
#include "bench/timing.hpp"
#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/sort/bitonic.hpp"

namespace loom::bench {
namespace {

constexpr const char* where = "loom bench sort";

struct Row {
    std::string kernel;
    std::string peer;
    double time;
    double peer_time;
    size_type keys;
};

/// Times sort(work) on a fresh copy of `input` per call, minus the time of the copy alone
/// (a sort of sorted keys would flatter std::sort).
Timing time_sort(const Executor& exec, const Array<int32>& input, Array<int32>& work,
                 const std::function<void()>& sort, const TimingOptions& timing)
{
    const auto bytes = sizeof(int32) * static_cast<std::size_t>(input.size());
    const auto copy = [&] { exec.copy_from(exec, bytes, input.data(), work.data()); };
    const auto both = time_kernel(
        exec,
        [&] {
            copy();
            sort();
        },
        timing);
    const auto alone = time_kernel(exec, copy, timing);
    return {both.median - alone.median, both.min - alone.min, both.max - alone.max, both.samples,
            both.batch};
}

void check(const std::vector<int32>& got, const std::vector<int32>& expected,
           const std::string& what)
{
    if (got != expected) throw NumericalError(where, what + " differs from std::sort's result");
}

}  // namespace

nlohmann::ordered_json bench_sort(const SortBenchOptions& options)
{
    if (options.samples < 1 || options.min_length > options.max_length) {
        throw BadInput(where, "need at least one repetition and min_length <= max_length");
    }
    const auto& exec = *options.exec;
    const bool cuda = exec.kind() == ExecKind::cuda;
    TimingOptions timing;
    timing.samples = options.samples;
    timing.max_batch = 1;
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int32> any_key;

    // Whole array.
    std::vector<int32> keys(static_cast<std::size_t>(options.keys));
    for (auto& k : keys) k = any_key(rng);
    auto expected = keys;
    std::sort(expected.begin(), expected.end());
    const Array<int32> input(options.exec, keys);
    Array<int32> work(options.exec, input);
    sort::sort(work);
    check(work.to_host(), expected, "loom::sort::sort");
    std::vector<Row> rows;
    {
        const auto mine = time_sort(
            exec, input, work, [&] { sort::sort(work); }, timing);
        Timing peer;
        if (cuda) {
            sort::vendor_sort(work);
            check(work.to_host(), expected, "CUB's radix sort");
            peer = time_sort(
                exec, input, work, [&] { sort::vendor_sort(work); }, timing);
        } else {
            auto host = keys;
            peer = time_kernel(
                exec,
                [&] {
                    host = keys;
                    std::sort(host.begin(), host.end());
                },
                timing);
        }
        rows.push_back({cuda ? "sort (bitonic)" : "sort (std::sort inside)",
                        cuda ? "CUB radix" : "std::sort", mine.median, peer.median, options.keys});
    }

    // Segments.
    std::uniform_int_distribution<size_type> length(options.min_length, options.max_length);
    std::vector<int32> offsets{0};
    for (size_type s = 0; s < options.segments; ++s) {
        offsets.push_back(offsets.back() + static_cast<int32>(length(rng)));
    }
    std::vector<int32> segment_keys(static_cast<std::size_t>(offsets.back()));
    for (auto& k : segment_keys) k = any_key(rng);
    const auto sort_host_segments = [&](std::vector<int32>& values) {
        for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
            std::sort(values.begin() + offsets[s], values.begin() + offsets[s + 1]);
        }
    };
    auto expected_segments = segment_keys;
    sort_host_segments(expected_segments);
    const Array<int32> device_offsets(options.exec, offsets);
    const Array<int32> segment_input(options.exec, segment_keys);
    Array<int32> segment_work(options.exec, segment_input);
    sort::sort_segments(device_offsets, segment_work);
    check(segment_work.to_host(), expected_segments, "loom::sort::sort_segments");
    {
        const auto mine = time_sort(
            exec, segment_input, segment_work,
            [&] { sort::sort_segments(device_offsets, segment_work); }, timing);
        Timing peer;
        if (cuda) {
            sort::vendor_sort_segments(device_offsets, segment_work);
            check(segment_work.to_host(), expected_segments, "CUB's segmented sort");
            peer = time_sort(
                exec, segment_input, segment_work,
                [&] { sort::vendor_sort_segments(device_offsets, segment_work); }, timing);
        } else {
            auto host = segment_keys;
            peer = time_kernel(
                exec,
                [&] {
                    host = segment_keys;
                    sort_host_segments(host);
                },
                timing);
        }
        rows.push_back(
            {fmt::format("segments (bitonic, {}..{})", options.min_length, options.max_length),
             cuda ? "CUB segmented" : "std::sort", mine.median, peer.median,
             static_cast<size_type>(segment_keys.size())});
    }

    fmt::print(
        "run       {}, int32 keys, median of {} samples; results checked against "
        "std::sort\n",
        exec.name(), options.samples);
    fmt::print("targets   whole array within 3x CUB radix; segments within 1.1x CUB segmented\n\n");
    Table table({"kernel", "keys", "time [ms]", "Gkeys/s", "peer", "peer [ms]", "time / peer"});
    auto json_rows = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
        table.add_row({row.kernel, std::to_string(row.keys), fmt::format("{:.3f}", row.time * 1e3),
                       fmt::format("{:.2f}", row.keys / row.time * 1e-9), row.peer,
                       fmt::format("{:.3f}", row.peer_time * 1e3),
                       fmt::format("{:.2f}", row.time / row.peer_time)});
        json_rows.push_back({{"kernel", row.kernel},
                             {"keys", row.keys},
                             {"time_s", row.time},
                             {"peer", row.peer},
                             {"peer_time_s", row.peer_time}});
    }
    table.print();
    return {{"benchmark", "sort"},
            {"executor", exec.name()},
            {"samples", options.samples},
            {"segments", options.segments},
            {"results", json_rows}};
}

}  // namespace loom::bench
