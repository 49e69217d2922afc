// What the fuzz targets share: the rule that bad input may only end in a loom::Error, a
// scratch file for readers that take a path, and comparisons of two reads of one input.
#pragma once

#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "loom/base/error.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::fuzz {

/// The value types the targets read. The fuzz build compiles float and complex<float> only
/// (scripts/run-fuzz.sh says why); the readers and the config parser are one template for
/// every value type, so these reach the same code as double and complex<double> would.
using Real = float;
using Complex = std::complex<float>;

/// f()'s result, or nothing when f raised a loom::Error (what bad input must end in). Any
/// other exception is a finding: it is printed and the process aborts, which libFuzzer reports
/// with the input.
template <typename F>
auto expect_loom_error(const char* what, F&& f) -> std::optional<decltype(f())>
{
    try {
        return f();
    } catch (const loom::Error&) {
        return std::nullopt;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: an exception that is not a loom::Error: %s\n", what, e.what());
        std::abort();
    }
}

/// A finding that is not a crash: two ways of reading one input disagree.
[[noreturn]] inline void mismatch(const char* what)
{
    std::fprintf(stderr, "finding: %s\n", what);
    std::abort();
}

/// A file holding the current input, for the readers that take a path. One per process and
/// extension (libFuzzer runs one input at a time), removed at exit.
class ScratchFile {
public:
    explicit ScratchFile(const std::string& extension)
        : path_((std::filesystem::temp_directory_path() /
                 ("loom-fuzz-" + std::to_string(::getpid()) + "." + extension))
                    .string())
    {}
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    ~ScratchFile() { std::remove(path_.c_str()); }

    const std::string& write(std::string_view bytes) const
    {
        std::FILE* file = std::fopen(path_.c_str(), "wb");
        if (file == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size() ||
            std::fclose(file) != 0) {
            std::perror(path_.c_str());
            std::abort();  // the machine's fault, not the input's: stop the run
        }
        return path_;
    }

private:
    std::string path_;
};

/// Equal values, NaN equal to NaN (both reads parse the same text).
template <typename A, typename B>
bool same_value(const A& a, const B& b)
{
    const auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    const std::complex<double> x(a), y(b);
    return same(x.real(), y.real()) && same(x.imag(), y.imag());
}

/// Same length and same values, for Array and std::vector alike.
template <typename A, typename B>
bool same_array(const A& a, const B& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < static_cast<std::size_t>(a.size()); ++k) {
        if (!same_value(a[k], b[k])) return false;
    }
    return true;
}

template <typename V1, typename V2, typename I>
bool same_matrix(const matrix::Csr<V1, I>& a, const matrix::Csr<V2, I>& b)
{
    return a.size() == b.size() && same_array(a.row_ptrs(), b.row_ptrs()) &&
           same_array(a.col_idxs(), b.col_idxs()) && same_array(a.values(), b.values());
}

template <typename V1, typename V2, typename I>
bool same_matrix(const matrix::Coo<V1, I>& a, const matrix::Coo<V2, I>& b)
{
    return a.size() == b.size() && same_array(a.row_idxs(), b.row_idxs()) &&
           same_array(a.col_idxs(), b.col_idxs()) && same_array(a.values(), b.values());
}

/// Both reads failed, or both gave the same matrix.
template <typename M1, typename M2>
void expect_same(const std::optional<M1>& a, const std::optional<M2>& b, const char* what)
{
    if (a.has_value() != b.has_value() || (a && !same_matrix(*a, *b))) mismatch(what);
}

}  // namespace loom::fuzz
