// Text files of indices, one 0-based index per line: what the graph commands write (a set's
// vertices, an aggregate per vertex, a permutation).
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"

namespace loom::cli {

/// Writes the array's values (copied to the host), one per line; IoError when the file cannot
/// be written.
template <typename I>
void write_index_file(const std::string& path, const Array<I>& indices)
{
    std::ofstream out(path);
    for (const auto index : indices.to_host()) out << index << '\n';
    if (!out.flush()) throw IoError("loom", "cannot write " + path);
}

}  // namespace loom::cli
