#include "bench/io_bench.hpp"

#include <filesystem>
#include <system_error>

#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/table.hpp"
#include "bench/temporary_file.hpp"
#include "bench/timing.hpp"
#include "loom/matrix/io.hpp"

namespace loom::bench {
namespace {

namespace fs = std::filesystem;

double file_bytes(const std::string& where, const std::string& path)
{
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (ec) throw IoError(where, "cannot read the size of '" + path + "': " + ec.message());
    return static_cast<double>(bytes);
}

}  // namespace

template <typename V, typename I>
nlohmann::ordered_json bench_io(const std::string& mtx_path, int samples)
{
    constexpr const char* where = "loom::bench::bench_io";
    check_repetitions(where, samples);
    const auto host = detail::host_executor();
    const TimingOptions options{.samples = samples, .min_batch_seconds = 0, .max_batch = 1};

    const double text_bytes = file_bytes(where, mtx_path);
    matrix::Csr<V, I> A;
    const auto text = time_kernel(
        *host, [&] { A = matrix::read_csr<V, I>(host, mtx_path); }, options);

    const TemporaryFile binary_file(".bin");
    matrix::write_binary(binary_file.string(), A);
    const double binary_bytes = file_bytes(where, binary_file.string());
    const auto binary = time_kernel(
        *host, [&] { A = matrix::read_binary_csr<V, I>(host, binary_file.string()); }, options);

    fmt::print("matrix    {}: {} x {}, {} stored entries, {} values, {} indices\n", mtx_path,
               A.rows(), A.cols(), A.nnz(), type_name<V>(), type_name<I>());
    fmt::print("run       median of {} reads after a warm-up read (page cache warm)\n\n", samples);
    Table table({"reader", "file [MB]", "time [ms]", "rate"});
    table.add_row({"read_csr (Matrix Market)", fmt::format("{:.1f}", text_bytes / 1e6),
                   fmt::format("{:.1f}", text.median * 1e3),
                   fmt::format("{:.1f} MB/s", text_bytes / text.median / 1e6)});
    table.add_row({"read_binary_csr", fmt::format("{:.1f}", binary_bytes / 1e6),
                   fmt::format("{:.1f}", binary.median * 1e3),
                   fmt::format("{:.2f} GB/s", binary_bytes / binary.median / 1e9)});
    table.print();

    const auto timing_json = [](const Timing& t) {
        return nlohmann::ordered_json{
            {"time_s", t.median}, {"time_min_s", t.min}, {"time_max_s", t.max}};
    };
    auto text_json = timing_json(text);
    text_json["bytes"] = text_bytes;
    text_json["mb_per_s"] = text_bytes / text.median / 1e6;
    auto binary_json = timing_json(binary);
    binary_json["bytes"] = binary_bytes;
    binary_json["gb_per_s"] = binary_bytes / binary.median / 1e9;
    return {
        {"benchmark", "io"},
        {"matrix", {{"file", mtx_path}, {"rows", A.rows()}, {"cols", A.cols()}, {"nnz", A.nnz()}}},
        {"value_type", type_name<V>()},
        {"index_type", type_name<I>()},
        {"samples", samples},
        {"read_csr", text_json},
        {"read_binary_csr", binary_json}};
}

#define LOOM_INSTANTIATE_BENCH_IO(V, I) \
    template nlohmann::ordered_json bench_io<V, I>(const std::string&, int);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BENCH_IO)

}  // namespace loom::bench
