#include "cli_support.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>

#include "base/instantiate.hpp"

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

/// Accepts what parse_executor_name accepts, so that a bad --exec is a usage error.
CLI::Validator executor_check()
{
    const auto names = names_of(ExecKind{}).names();
    std::string accepted;
    for (const auto& name : names) accepted += name + ",";
    return CLI::Validator(
        [](std::string& text) -> std::string {
            try {
                parse_executor_name(text);
                return {};
            } catch (const BadInput& e) {
                const std::string what = e.what();
                return what.substr(e.where().size() + 2);  // without "where: "
            }
        },
        "{" + accepted + "cuda:N}");
}

}  // namespace

void add_exec_options(CLI::App& sub, ExecOptions& options, ExecOptionSet which)
{
    if (which.exec) {
        sub.add_option("--exec", options.exec, "Backend")
            ->check(executor_check())
            ->capture_default_str();
        sub.add_option("--threads", options.threads, "OpenMP threads (default: all)")
            ->check(CLI::PositiveNumber);
    }
    if (which.type != TypeOption::none) {
        auto types = names_of(ValueType{}).spellings();
        std::string help = "Value type of the computation";
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
        throw BadInput("loom", option + " expects a number or re,im; got '" + text + "'");
    };
    const auto parse = [&](std::string_view part, double& out) {
        const auto* end = part.data() + part.size();
        const auto [ptr, ec] = std::from_chars(part.data(), end, out);
        return ec == std::errc{} && ptr == end;
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

#define LOOM_INSTANTIATE_READ_MATRIX(V) \
    template matrix::Csr<V, index_type> read_matrix<V>(const std::string&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_READ_MATRIX)

}  // namespace loom::cli
