// The Matrix Market reader: the input is the file. It is read as CSR, COO and dense, with
// real and complex values, from a file and from a stream. Besides crashes, hangs and
// sanitizer reports, a finding is any exception that is not a loom::Error, a matrix that
// fails its own validate(), or two reads of the input that disagree (file and stream, real and
// complex values, the header and the matrix).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "fuzz_support.hpp"
#include "loom/matrix/io.hpp"

namespace {

using namespace loom;
using fuzz::expect_loom_error;
using fuzz::expect_same;
using fuzz::mismatch;

/// Some results are as large as the size line says, whatever the file holds: CSR has rows + 1
/// row pointers, a dense matrix rows x cols values. Beyond these the target would test the
/// machine's memory, not the reader (COO, whose size is its entries', is always read).
constexpr size_type max_csr_rows = size_type{1} << 22;
constexpr size_type max_dense_values = size_type{1} << 20;

template <typename F>
auto from_stream(std::string_view text, F&& read)
{
    return expect_loom_error("read from a stream", [&] {
        std::istringstream in{std::string(text)};
        return read(in);
    });
}

template <typename V>
std::optional<matrix::Csr<V, int32>> read_as(std::string_view text, const std::string& path,
                                             const std::optional<matrix::MtxHeader>& header)
{
    const auto host = detail::host_executor();
    const auto coo = expect_loom_error("read_coo", [&] { return matrix::read_coo<V>(host, path); });
    const auto coo_stream =
        from_stream(text, [&](std::istream& in) { return matrix::read_coo<V>(host, in); });
    expect_same(coo, coo_stream, "read_coo from a file and from a stream differ");
    if (coo) {
        if (!header || coo->size() != dim2{header->rows, header->cols}) {
            mismatch("read_coo's size is not the header's");
        }
        coo->validate();  // throws (a finding: the exception escapes) for a broken structure
    }
    if (header && header->rows > max_csr_rows) return std::nullopt;

    const auto csr = expect_loom_error("read_csr", [&] { return matrix::read_csr<V>(host, path); });
    const auto csr_stream =
        from_stream(text, [&](std::istream& in) { return matrix::read_csr<V>(host, in); });
    expect_same(csr, csr_stream, "read_csr from a file and from a stream differ");
    if (csr.has_value() != coo.has_value()) mismatch("read_csr and read_coo disagree");
    if (csr) {
        csr->validate();
        if (csr->nnz() != coo->nnz()) mismatch("read_csr and read_coo count different entries");
    }

    if (header && (header->format == matrix::MtxFormat::array ||
                   header->rows * header->cols <= max_dense_values)) {
        const auto dense =
            expect_loom_error("read_dense", [&] { return matrix::read_dense<V>(host, path); });
        const auto dense_stream =
            from_stream(text, [&](std::istream& in) { return matrix::read_dense<V>(host, in); });
        if (dense.has_value() != dense_stream.has_value() ||
            (dense && !fuzz::same_array(dense->to_host(), dense_stream->to_host()))) {
            mismatch("read_dense from a file and from a stream differ");
        }
        if (dense && dense->size() != dim2{header->rows, header->cols}) {
            mismatch("read_dense's size is not the header's");
        }
    }
    return csr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const fuzz::ScratchFile file("mtx");
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto& path = file.write(text);

    const auto header =
        from_stream(text, [](std::istream& in) { return matrix::read_mtx_header(in); });
    const auto real = read_as<fuzz::Real>(text, path, header);
    const auto complex = read_as<fuzz::Complex>(text, path, header);
    // A file that reads as real reads as complex too, with the same values (compared as CSR).
    if (real && !complex) mismatch("a real read succeeds where the complex one fails");
    if (real && !fuzz::same_matrix(*real, *complex)) {
        mismatch("real and complex reads give different matrices");
    }
    return 0;
}
