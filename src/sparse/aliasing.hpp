// The output of a sparse kernel must not be one of its inputs: the kernels read the inputs
// while they write the output, so C = A + C would read entries already overwritten.
#pragma once

#include <string>

#include "loom/base/error.hpp"
#include "loom/matrix/csr.hpp"

namespace loom::sparse::detail {

/// BadInput when `output` is `input` or shares one of its arrays (a view of it).
template <typename V, typename I>
void check_not_aliased(const char* where, const matrix::Csr<V, I>& output,
                       const char* output_name, const matrix::Csr<V, I>& input,
                       const char* input_name)
{
    const auto shares = [](const auto& a, const auto& b) {
        return a.size() > 0 && b.size() > 0 && a.const_data() == b.const_data();
    };
    if (&output == &input || shares(output.row_ptrs(), input.row_ptrs()) ||
        shares(output.col_idxs(), input.col_idxs()) || shares(output.values(), input.values())) {
        throw BadInput(where, std::string(output_name) + " is " + input_name +
                                  " (or shares its arrays): the output must be a matrix of its "
                                  "own, as the kernel reads " +
                                  input_name + " while it writes " + output_name);
    }
}

}  // namespace loom::sparse::detail
