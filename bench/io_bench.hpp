// The I/O benchmark behind `loom bench io`: Matrix Market text against the binary format.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace loom::bench {

/// Times read_csr on the Matrix Market file `mtx_path` (MB/s of text), then writes the
/// matrix as a binary file in the temporary folder and times read_binary_csr on it (GB/s).
/// Median of `samples` reads each, after a warm-up read (so files come from the page cache).
/// Prints a table and returns the numbers as JSON.
template <typename V, typename I>
nlohmann::ordered_json bench_io(const std::string& mtx_path, int samples);

}  // namespace loom::bench
