// The operand rule of every numeric call of an analysis handle (loom/base/analysis.hpp):
// each operand, and each output whose pattern the symbolic call made, lives in the memory of
// the executor the analysis ran on and still has the pattern the analysis saw. Written once
// for SpGEMM, SpAdd, SpTRSV and ILU, whose numeric calls each spelled it out.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>

#include "loom/base/analysis.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/fingerprint.hpp"

namespace loom::sparse::detail {

/// An executor's name in messages; "none" for a default-constructed matrix's.
inline std::string executor_name(const std::shared_ptr<const Executor>& exec)
{
    return exec ? exec->name() : "none";
}

/// Whether A and B hold the same pattern arrays (A * A), so that one fingerprint serves both.
template <typename V, typename I>
bool same_pattern_arrays(const matrix::Csr<V, I>& A, const matrix::Csr<V, I>& B)
{
    return A.size() == B.size() && A.nnz() == B.nnz() &&
           A.row_ptrs().data() == B.row_ptrs().data() &&
           A.col_idxs().data() == B.col_idxs().data();
}

/// One operand of a numeric call: its name in messages, the pattern its analysis saw, and
/// the matrix passed now.
template <typename V, typename I>
struct AnalyzedOperand {
    const char* name;
    const PatternFingerprint& seen;
    const matrix::Csr<V, I>& matrix;
};

/// BadInput from `where` unless every operand lives in the memory of `exec`, the executor
/// the analysis ran on, and has the pattern it had there, compared as `check` says. Every
/// memory is checked before any pattern (a fingerprint runs where its matrix lives); an
/// operand with an earlier one's arrays and fingerprint (A * A) is not hashed again.
/// Touches nothing.
template <typename V, typename I>
void check_analyzed_operands(const char* where, const Executor& exec, PatternCheck check,
                             std::span<const AnalyzedOperand<V, I>> operands)
{
    for (const auto& operand : operands) {
        const auto& on = operand.matrix.executor();
        if (!on || !exec.same_memory_as(*on)) {
            throw BadInput(where, std::string(operand.name) +
                                      " must live in the memory of the executor the analysis "
                                      "ran on (" +
                                      exec.name() + "), not on " + executor_name(on));
        }
    }
    for (auto it = operands.begin(); it != operands.end(); ++it) {
        const auto hashed_before = [&](const AnalyzedOperand<V, I>& earlier) {
            return earlier.seen == it->seen && same_pattern_arrays(earlier.matrix, it->matrix);
        };
        if (std::none_of(operands.begin(), it, hashed_before)) {
            check_pattern(where, it->name, it->seen, it->matrix, check);
        }
    }
}

template <typename V, typename I>
void check_analyzed_operands(const char* where, const Executor& exec, PatternCheck check,
                             std::initializer_list<AnalyzedOperand<V, I>> operands)
{
    check_analyzed_operands<V, I>(where, exec, check,
                                  std::span(operands.begin(), operands.size()));
}

}  // namespace loom::sparse::detail
