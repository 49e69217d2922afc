// loom info A.mtx [--json]: size, entries and row-length statistics of a matrix file.
#include <algorithm>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/matrix_stats.hpp"
#include "cli_support.hpp"
#include "command.hpp"

namespace loom::cli {
namespace {

struct InfoOptions {
    std::string path;
    bool json = false;
};

/// What the file itself says about its storage, beyond the matrix read from it.
struct Storage {
    std::string format;
    std::string field;
    std::string symmetry;
    size_type stored_entries = 0;
};

template <typename V, typename I>
Storage storage_of(const std::string& path, const matrix::Csr<V, I>& A)
{
    if (file_format(path) == FileFormat::binary) {
        return {"binary csr", is_complex_v<V> ? "complex" : "real", "general", A.nnz()};
    }
    const auto header = matrix::read_mtx_header(path);
    return {std::string("matrix market ") + matrix::to_string(header.format), matrix::to_string(header.field),
            matrix::to_string(header.symmetry), header.entries};
}

/// How many stored values are NaN or infinite: a solve with such a matrix gives NaN.
template <typename V, typename I>
size_type non_finite_values(const matrix::Csr<V, I>& A)
{
    const auto values = A.values().to_host();
    return static_cast<size_type>(
        std::count_if(values.begin(), values.end(), [](const V& v) { return !is_finite(v); }));
}

template <typename V, typename I>
int print_info(const InfoOptions& options, const matrix::Csr<V, I>& A)
{
    const auto storage = storage_of(options.path, A);
    const auto non_finite = non_finite_values(A);
    const auto rows = bench::row_stats(A);
    if (options.json) {
        const nlohmann::ordered_json info{{"file", options.path},
                                          {"format", storage.format},
                                          {"rows", A.rows()},
                                          {"cols", A.cols()},
                                          {"nnz", A.nnz()},
                                          {"stored_entries", storage.stored_entries},
                                          {"field", storage.field},
                                          {"symmetry", storage.symmetry},
                                          {"non_finite_values", non_finite},
                                          {"row_length",
                                           {{"min", rows.min},
                                            {"mean", rows.mean},
                                            {"max", rows.max},
                                            {"empty_rows", rows.empty}}}};
        fmt::print("{}\n", info.dump(2));
        return exit_ok;
    }
    fmt::print("file        {} ({})\n", options.path, storage.format);
    fmt::print("size        {} x {}\n", A.rows(), A.cols());
    fmt::print("nnz         {} ({} stored in the file)\n", A.nnz(), storage.stored_entries);
    fmt::print("field       {}\n", storage.field);
    fmt::print("symmetry    {}\n", storage.symmetry);
    fmt::print("values      {}\n", non_finite == 0
                                       ? std::string("all finite")
                                       : fmt::format("{} NaN or infinite (of {})", non_finite,
                                                     A.nnz()));
    fmt::print("row length  min {}, mean {:.2f}, max {} ({} empty rows)\n", rows.min, rows.mean,
               rows.max, rows.empty);
    return exit_ok;
}

Runner setup(CLI::App& sub)
{
    auto options = std::make_shared<InfoOptions>();
    sub.add_option("matrix", options->path, "Matrix Market (.mtx) or binary (.bin) file")
        ->required();
    sub.add_flag("--json", options->json, "Print the facts as JSON");
    sub.footer(
        "nnz counts the entries after symmetric expansion; 'stored in the file' counts\n"
        "the entries the file lists.");
    return [options] {
        return with_stored_matrix(options->path,
                                  [&](const auto& A) { return print_info(*options, A); });
    };
}

}  // namespace
}  // namespace loom::cli

LOOM_REGISTER_COMMAND(info, "Size, entries and row lengths of a matrix file", loom::cli::setup);
