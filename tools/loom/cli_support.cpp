#include "cli_support.hpp"
#include "operand_options.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "base/instantiate.hpp"
#include "bench/storage_precision.hpp"
#include "loom/base/resources.hpp"

namespace loom::cli {

std::shared_ptr<const Executor> make_executor(const std::string& name, int threads)
{
    if (threads > 0) {
        if (name != "omp") {
            throw BadInput("loom", "--threads applies to --exec omp, not " + name);
        }
        return OmpExecutor::create(threads);
    }
    return loom::make_executor(name);
}

namespace {

/// A validator that accepts what `check` accepts (it returns) and reports the message of its
/// BadInput otherwise: the library's own check becomes a command-line error (exit 1).
CLI::Validator validator_of(void (*check)(const std::string&), const std::string& description)
{
    return CLI::Validator(
        [check](std::string& text) -> std::string {
            try {
                check(text);
                return {};
            } catch (const BadInput& e) {
                const std::string what = e.what();
                return what.substr(e.where().size() + 2);  // without "where: "
            }
        },
        description);
}

/// Accepts what parse_executor_name accepts, so that a bad --exec is a usage error.
CLI::Validator executor_check()
{
    const auto names = names_of(ExecKind{}).names();
    std::string accepted;
    for (const auto& name : names) accepted += name + ",";
    return validator_of([](const std::string& text) { parse_executor_name(text); },
                        "{" + accepted + "cuda:N}");
}

}  // namespace

namespace {

/// Accepts finite numbers above `minimum` (at or above it unless `strict`).
CLI::Validator number_from(double minimum, bool strict, const std::string& description)
{
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            const bool number = !text.empty() && end == text.c_str() + text.size();
            if (number && std::isfinite(value) && (strict ? value > minimum : value >= minimum)) {
                return {};
            }
            return "expected a finite " + description + ", got '" + bounded(text) + "'";
        },
        description);
}

}  // namespace

CLI::Validator positive_number() { return number_from(0, true, "number > 0"); }
CLI::Validator non_negative_number() { return number_from(0, false, "number >= 0"); }

std::string bounded(std::string_view text, std::size_t limit)
{
    if (text.size() <= limit) return std::string(text);
    return std::string(text.substr(0, limit)) + "... (" + std::to_string(text.size()) +
           " characters)";
}

std::string readable(double value) { return fmt::format("{:.6g}", value); }

CLI::Option* add_choice(CLI::App& sub, const std::string& name, std::string& value,
                        const std::string& help, std::vector<std::string> choices)
{
    return sub.add_option(name, value, help)
        ->check(CLI::IsMember(std::move(choices)))
        ->capture_default_str();
}

CLI::Option* add_choice(CLI::App& sub, const std::string& name, std::vector<std::string>& values,
                        const std::string& help, std::vector<std::string> choices)
{
    return sub.add_option(name, values, help)
        ->check(CLI::IsMember(std::move(choices)))
        ->capture_default_str();
}

CLI::Option* add_storage_precision(CLI::App& sub, std::string& precision)
{
    return add_choice<bench::StoragePrecision>(
        sub, "--precision", precision,
        "Storage of A's values and the dense operands: native (--type), or fp16 / bf16 (16 "
        "bits, float sums; read in --type, the result written in --type)");
}

void add_sampled_operands(CLI::App& sub, SampledOperandFiles& files)
{
    sub.add_option("matrix", files.matrix, "Sparse matrix A whose pattern is sampled")->required();
    sub.add_option("X", files.x, "Dense X, one row per row of A (Matrix Market array)")
        ->required();
    sub.add_option("Y", files.y, "Dense Y, one row per column of A (Matrix Market array)")
        ->required();
}

void add_exec_and_threads(CLI::App& sub, std::string& exec, int& threads)
{
    sub.add_option("--exec", exec, "Backend")->check(executor_check())->capture_default_str();
    sub.add_option("--threads", threads,
                   "OpenMP threads, 1 to " + std::to_string(max_omp_threads) +
                       " (default: all)")
        ->check(CLI::Range(1, max_omp_threads));
}

void add_exec_options(CLI::App& sub, ExecOptions& options, ExecOptionSet which)
{
    if (which.exec) add_exec_and_threads(sub, options.exec, options.threads);
    if (which.type != TypeOption::none) {
        auto types = names_of(ValueType{}).spellings();
        std::string help = "Value type of the computation";
        if (which.type == TypeOption::named_by_input) {
            options.type = "auto";
            help += " (default: complex-double for complex input, else double)";
        }
        if (which.type == TypeOption::named_or_auto) {
            options.type = "auto";
            types.insert(types.begin(), "auto");
            help += " (auto: complex-double for complex input, else double)";
        }
        sub.add_option("--type", options.type, help)
            ->check(CLI::IsMember(types))
            ->capture_default_str();
    }
    if (which.json) {
        sub.add_option("--json", options.json, "Also write every number to this JSON file");
    }
}

FileFormat file_format(const std::string& path)
{
    const auto extension = std::filesystem::path(path).extension();
    if (extension == ".mtx") return FileFormat::matrix_market;
    if (extension == ".bin") return FileFormat::binary;
    throw BadInput("loom", "cannot tell the format of '" + path +
                               "': use .mtx for Matrix Market or .bin for Loom's binary CSR");
}

void check_dense_output(const std::string& path)
{
    if (file_format(path) != FileFormat::matrix_market) {
        throw BadInput("loom", "'" + path +
                                   "': dense results are written as Matrix Market arrays; "
                                   "name the file .mtx (.bin holds sparse CSR matrices only)");
    }
}

CLI::Validator matrix_file_check()
{
    return validator_of([](const std::string& path) { file_format(path); }, "FILE.mtx|FILE.bin");
}

CLI::Validator dense_output_check() { return validator_of(check_dense_output, "FILE.mtx"); }

namespace {

CLI::Option* checked_output(CLI::Option* option, OutputKind kind)
{
    option->required();
    if (kind == OutputKind::sparse) option->check(matrix_file_check());
    if (kind == OutputKind::dense) option->check(dense_output_check());
    return option;
}

}  // namespace

CLI::Option* add_output(CLI::App& sub, std::string& path, const std::string& help,
                        OutputKind kind)
{
    return checked_output(sub.add_option("-o,--output", path, help), kind);
}

CLI::Option* add_output(CLI::App& sub, std::vector<std::string>& paths, const std::string& help,
                        OutputKind kind, int most)
{
    return checked_output(sub.add_option("-o,--output", paths, help), kind)->expected(1, most);
}

namespace {

/// The value type code of a binary matrix file, or 0 when its header cannot be read. The
/// layout is that of src/matrix/io/binary.cpp: the 8-byte magic "LOOMCSR", a uint32 version,
/// then the uint32 value code, little-endian.
std::uint32_t binary_value_code(const std::string& path)
{
    std::array<unsigned char, 16> head{};
    std::ifstream in(path, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(head.data()), head.size())) return 0;
    if (std::string_view(reinterpret_cast<const char*>(head.data()), 8) !=
        std::string_view("LOOMCSR\0", 8)) {
        return 0;
    }
    return std::uint32_t(head[12]) | std::uint32_t(head[13]) << 8 | std::uint32_t(head[14]) << 16 |
           std::uint32_t(head[15]) << 24;
}

}  // namespace

bool holds_complex_values(const std::string& path)
{
    if (file_format(path) == FileFormat::matrix_market) {
        return matrix::read_mtx_header(path).field == matrix::MtxField::complex;
    }
    // Codes 3 and 4 are complex<float> and complex<double> (src/matrix/io/binary.cpp).
    const auto code = binary_value_code(path);
    return code == 3 || code == 4;
}

template <typename V>
matrix::Csr<V, index_type> read_matrix(const std::string& path)
{
    const auto host = detail::host_executor();
    if (file_format(path) == FileFormat::binary) {
        return matrix::read_binary_csr<V, index_type>(host, path);
    }
    return matrix::read_csr<V, index_type>(host, path);
}

std::complex<double> parse_scalar(const std::string& text, const std::string& option)
{
    const auto fail = [&]() -> std::complex<double> {
        throw BadInput("loom", option + " expects a number or re,im; got '" + bounded(text) + "'");
    };
    const auto parse = [&](std::string_view part, double& out) {
        const auto* end = part.data() + part.size();
        const auto [ptr, ec] = std::from_chars(part.data(), end, out);
        return ec == std::errc{} && ptr == end && std::isfinite(out);
    };
    const std::string_view all(text);
    const auto comma = all.find(',');
    double re = 0, im = 0;
    if (comma == std::string_view::npos) {
        if (!parse(all, re)) return fail();
    } else if (!parse(all.substr(0, comma), re) || !parse(all.substr(comma + 1), im)) {
        return fail();
    }
    return {re, im};
}

CLI::Validator scalar_validator()
{
    return CLI::Validator(
        [](std::string& text) -> std::string {
            try {
                parse_scalar(text, "the value");
                return {};
            } catch (const Error&) {
                return "expected a number or re,im; got '" + bounded(text) + "'";
            }
        },
        "NUMBER|RE,IM");
}

void ScalarOption::add_to(CLI::App& sub, const std::string& help)
{
    sub.add_option(name, text, help)->check(scalar_validator())->capture_default_str();
}

#define LOOM_INSTANTIATE_READ_MATRIX(V) \
    template matrix::Csr<V, index_type> read_matrix<V>(const std::string&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_READ_MATRIX)

std::string solution_path(const std::string& output, bool converged, bool overwrite_unconverged)
{
    if (converged || overwrite_unconverged) return output;
    const std::filesystem::path path(output);
    return (path.parent_path() / (path.stem().string() + ".not-converged.mtx")).string();
}

}  // namespace loom::cli
