// Text files of indices, one 0-based index per line: what the graph commands write (a set's
// vertices, an aggregate per vertex, a permutation).
#pragma once

#include <string>
#include <vector>

#include "loom/base/array.hpp"
#include "output_file.hpp"

namespace loom::cli {

/// Writes the array's values (copied to the host), one per line, through write_output;
/// IoError when the file cannot be written.
template <typename I>
void write_index_file(const std::string& path, const Array<I>& indices)
{
    std::string text;
    for (const auto index : indices.to_host()) (text += std::to_string(index)) += '\n';
    write_text_output(path, text);
}

}  // namespace loom::cli
