// The JSON solver configuration: the input is the JSON text, built into a factory for real and
// for complex values. Besides crashes, hangs (a deep nesting) and sanitizer reports, a finding
// is any exception that is not a loom::Error (BadInput is what a bad config must give).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "loom/solver/config.hpp"

namespace {

using namespace loom;

template <typename V>
void build(std::string_view json)
{
    fuzz::expect_loom_error("from_config", [&] {
        return solver::from_config<V, int32>(json, detail::host_executor());
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view json(reinterpret_cast<const char*>(data), size);
    build<fuzz::Real>(json);
    build<fuzz::Complex>(json);
    return 0;
}
