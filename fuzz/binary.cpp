// The binary CSR reader: the input is the file, read with real and complex values. Besides
// crashes, hangs and sanitizer reports, a finding is any exception that is not a loom::Error,
// a matrix that fails its own validate(), or a real read that the complex one contradicts.
#include <complex>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "loom/matrix/io.hpp"

namespace {

using namespace loom;

template <typename V>
std::optional<matrix::Csr<V, int32>> read_as(const std::string& path)
{
    auto csr = fuzz::expect_loom_error("read_binary_csr", [&] {
        return matrix::read_binary_csr<V>(detail::host_executor(), path);
    });
    if (csr) csr->validate();  // throws (a finding: the exception escapes) for a broken structure
    return csr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const fuzz::ScratchFile file("bin");
    const auto& path = file.write({reinterpret_cast<const char*>(data), size});
    const auto real = read_as<fuzz::Real>(path);
    const auto complex = read_as<fuzz::Complex>(path);
    if (real && !complex) fuzz::mismatch("a real read succeeds where the complex one fails");
    if (real && !fuzz::same_matrix(*real, *complex)) {
        fuzz::mismatch("real and complex reads give different matrices");
    }
    return 0;
}
