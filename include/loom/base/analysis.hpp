// Analysis handles: the one design of every kernel that analyses once and runs many times
// (SpGEMM, SpAdd; SpTRSV, incomplete factorizations, coloring, multigrid setup next). A
// symbolic call analyses the patterns of its operands into the handle; numeric calls reuse
// that analysis for new values on the same patterns:
//
//     sparse::SpaddHandle<double> handle({.pattern_check = PatternCheck::always});
//     sparse::spadd_symbolic(handle, A, B, C);       // handle.analyzed() from here on
//     sparse::spadd_numeric(handle, 1.0, A, 2.0, B, C);
//     handle.reset();                                 // drops the analysis
//
// A handle holds its options (the algorithm choice among them), whether an analysis is
// current, and the backend state that analysis left (opaque here: each family defines it
// in its own sources). What the analysis found is answered by public queries of the
// family's handle (SpgemmHandle::result_nnz(), ...), which raise BadInput before any.
// Analysis of one matrix alone, which every caller may share (SpMV's row partition, a
// pattern's fingerprint), lives in that matrix's plan cache (loom/base/plan_cache.hpp)
// instead; a handle holds the analysis of one operation on its operands.
//
// The rule of every numeric call: its operands, and the outputs whose pattern the symbolic
// call made, must still have the patterns the analysis saw. A changed pattern raises
// BadInput naming the operand, and no output is touched. How the patterns are compared is
// the handle's PatternCheck option; the comparison is a pattern fingerprint
// (loom/sparse/fingerprint.hpp).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "loom/base/error.hpp"

namespace loom {

/// How a numeric call makes sure that a matrix still has the pattern its analysis saw.
enum class PatternCheck {
    /// By the fingerprint the matrix keeps in its plan cache (Csr::plans()), computed again
    /// only after the pattern was handed out for writing (non-const row_ptrs()/col_idxs()).
    /// Costs nothing per call, but misses a pattern rewritten through a pointer kept from
    /// before.
    cached,
    /// By a fingerprint computed on every numeric call: one pass over the row pointers and
    /// columns of each checked matrix; catches every change.
    always
};

/// The common part of every analysis handle: Options (a family's options struct, which
/// holds the algorithm choice and a `PatternCheck pattern_check`), and the State an
/// analysis leaves, which users only see forward-declared. Move-only: a numeric call may
/// update the state, so two handles never share one.
template <typename Options, typename State>
class AnalysisHandle {
public:
    explicit AnalysisHandle(Options options = {}) : options_(std::move(options)) {}
    AnalysisHandle(AnalysisHandle&&) noexcept = default;
    AnalysisHandle& operator=(AnalysisHandle&&) noexcept = default;
    AnalysisHandle(const AnalysisHandle&) = delete;
    AnalysisHandle& operator=(const AnalysisHandle&) = delete;
    ~AnalysisHandle() = default;

    const Options& options() const noexcept { return options_; }

    /// Whether an analysis is current, so that numeric calls may follow.
    bool analyzed() const noexcept { return state_ != nullptr; }

    /// Drops the analysis (and the memory it holds); the options stay.
    void reset() noexcept { state_.reset(); }

    // For the family's implementation, where State is a complete type.

    /// The current analysis, or nullptr.
    State* state() noexcept { return state_.get(); }
    const State* state() const noexcept { return state_.get(); }
    /// Makes `state` the current analysis, replacing the previous one.
    void adopt(std::unique_ptr<State> state) noexcept
    {
        state_ = Owned(state.release(), [](State* s) { delete s; });
    }

    /// The current analysis, for the call named `where` (a query, or a numeric call of the
    /// family); BadInput naming `symbolic`, the call that makes one, when there is none.
    const State& analysis(const char* where, const char* symbolic = "its symbolic phase") const
    {
        if (!state_) {
            throw BadInput(where, std::string("the handle holds no analysis; run ") + symbolic +
                                      " first");
        }
        return *state_;
    }
    State& analysis(const char* where, const char* symbolic = "its symbolic phase")
    {
        return const_cast<State&>(std::as_const(*this).analysis(where, symbolic));
    }

private:
    // The deleter is set where State is complete (adopt), so that destroying, moving and
    // resetting a handle compile where State is only declared.
    using Owned = std::unique_ptr<State, void (*)(State*)>;

    Options options_;
    Owned state_{nullptr, nullptr};
};

}  // namespace loom
