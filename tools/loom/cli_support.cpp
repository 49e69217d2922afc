#include "cli_support.hpp"

#include <charconv>
#include <filesystem>

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

FileFormat file_format(const std::string& path)
{
    const auto extension = std::filesystem::path(path).extension();
    if (extension == ".mtx") return FileFormat::matrix_market;
    if (extension == ".bin") return FileFormat::binary;
    throw BadInput("loom", "cannot tell the format of '" + path +
                               "': use .mtx for Matrix Market or .bin for Loom's binary CSR");
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
