// The analysis-handle design (loom/base/analysis.hpp) on every handle that uses it: the
// pattern fingerprint kernel on every backend against the reference, its plan-cache policy,
// and the shared rules of the handles (a numeric call on a changed pattern raises BadInput
// naming the operand and leaves C untouched, under both PatternCheck policies; analyzed();
// reset(); moves).
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/analysis.hpp"
#include "loom/base/error.hpp"
#include "loom/sparse/fingerprint.hpp"
#include "loom/sparse/spadd.hpp"
#include "loom/sparse/spgemm.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


template <typename T>
class AnalysisHandle : public loom::test::TypedFixture<T> {
public:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Csr;

    /// Awkward patterns: no rows, one row, 31/32/33 rows, mostly empty rows, unsorted rows
    /// with duplicates, a dense row, and one large enough for a parallel OpenMP reduction.
    std::vector<Csr> awkward_patterns() const
    {
        std::vector<Csr> result;
        const auto add = [&](loom::test::PatternSpec spec) {
            result.push_back(loom::test::random_csr<V, I>(this->ref, spec));
        };
        add({0, 0, 1});
        add({0, 7, 1});
        add({7, 0, 1});
        add({1, 1, 1});
        add({1, 40, 5});
        for (size_type n : {31, 32, 33}) add({n, n, 3, false, n != 32, n == 33, static_cast<std::uint64_t>(n)});
        add({100, 50, 0.3, false, true, false, 5});  // mostly empty rows
        add({64, 64, 4, true, false, true, 6});      // a dense row, unsorted, duplicates
        add({20000, 3000, 3, false, true, false, 7});
        return result;
    }

    /// A copy of M on exec whose column `k` is moved to another valid column.
    static Csr with_moved_column(const Csr& M, size_type k)
    {
        auto cols = M.col_idxs().to_host();
        cols[k] = static_cast<I>((cols[k] + 1) % static_cast<I>(M.cols()));
        return Csr::from_host(M.executor(), M.size(), M.row_ptrs().to_host(), cols,
                              M.values().to_host());
    }
};

TYPED_TEST_SUITE(AnalysisHandle, loom::test::ValueIndexTypes);

TYPED_TEST(AnalysisHandle, FingerprintOfEveryBackendMatchesReference)
{
    using Csr = typename TestFixture::Csr;
    for (const auto& M : this->awkward_patterns()) {
        SCOPED_TRACE(loom::to_string(M.size()) + " with " + std::to_string(M.nnz()) +
                     " entries");
        const auto expected = sparse::pattern_fingerprint(M);
        EXPECT_EQ(expected.size, M.size());
        EXPECT_EQ(expected.nnz, M.nnz());
        for (const auto& exec : loom::test::backends()) {
            SCOPED_TRACE(exec->name());
            const Csr M_e(exec, M);
            EXPECT_EQ(sparse::pattern_fingerprint(M_e), expected);
            EXPECT_EQ(sparse::pattern_fingerprint(M_e, PatternCheck::cached), expected);
        }
    }
    // a default-constructed matrix: no executor, no arrays
    EXPECT_EQ(sparse::pattern_fingerprint(Csr{}), sparse::PatternFingerprint{});
}

TYPED_TEST(AnalysisHandle, FingerprintOnCudaMatchesReference)
{
    using Csr = typename TestFixture::Csr;
    LOOM_CUDA_OR_SKIP(cuda);
    for (const auto& M : this->awkward_patterns()) {
        EXPECT_EQ(sparse::pattern_fingerprint(Csr(cuda, M)), sparse::pattern_fingerprint(M))
            << loom::to_string(M.size());
    }
}

TYPED_TEST(AnalysisHandle, FingerprintSeesEveryPatternChange)
{
    LOOM_TYPED_TEST_TYPES;
    const auto M = loom::test::random_csr<typename TestFixture::V, I>(this->ref, {33, 33, 4});
    const auto print = sparse::pattern_fingerprint(M);
    const auto ptrs = M.row_ptrs().to_host();
    const auto cols = M.col_idxs().to_host();
    const auto vals = M.values().to_host();
    EXPECT_NE(sparse::pattern_fingerprint(TestFixture::with_moved_column(M, 5)), print);
    {  // two columns of one row swapped
        auto swapped = cols;
        std::size_t r = 0;
        while (ptrs[r + 1] - ptrs[r] < 2) ++r;
        std::swap(swapped[ptrs[r]], swapped[ptrs[r] + 1]);
        EXPECT_NE(sparse::pattern_fingerprint(Csr::from_host(this->ref, M.size(), ptrs, swapped,
                                                             vals)),
                  print);
    }
    {  // an entry moved to the next row: same count, other row pointers
        auto shifted = ptrs;
        std::size_t r = 1;
        while (shifted[r] == shifted[r - 1]) ++r;
        --shifted[r];
        const auto moved = Csr::from_host(this->ref, M.size(), shifted, cols, vals);
        EXPECT_EQ(sparse::pattern_fingerprint(moved).nnz, print.nnz);
        EXPECT_NE(sparse::pattern_fingerprint(moved).hash, print.hash);
    }
    // new values, same pattern
    Csr revalued(M);
    revalued.values().fill(typename TestFixture::V{3});
    EXPECT_EQ(sparse::pattern_fingerprint(revalued), print);
}

/// cached: kept until the pattern is handed out for writing (so a column rewritten through
/// a pointer kept from before is missed, as documented); always: computed every time.
TYPED_TEST(AnalysisHandle, CachedFingerprintLastsUntilThePatternIsHandedOut)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        Csr M(exec, loom::test::random_csr<V, I>(this->ref, {40, 30, 4}));
        const auto changed = TestFixture::with_moved_column(M, 3);
        I* kept = M.col_idxs().data();
        const auto cached = sparse::pattern_fingerprint(M, PatternCheck::cached);
        EXPECT_EQ(cached, sparse::pattern_fingerprint(M));
        const auto new_cols = changed.col_idxs().to_host();
        exec->copy_from(*this->ref, sizeof(I) * new_cols.size(), new_cols.data(), kept);
        EXPECT_EQ(sparse::pattern_fingerprint(M, PatternCheck::cached), cached);
        const auto now = sparse::pattern_fingerprint(changed);
        EXPECT_NE(now, cached);
        EXPECT_EQ(sparse::pattern_fingerprint(M, PatternCheck::always), now);
        M.col_idxs();  // handed out for writing: the cached fingerprint is dropped
        EXPECT_EQ(sparse::pattern_fingerprint(M, PatternCheck::cached), now);
    }
}

// ------------------------------------------------------------- the handles, one adapter each

/// SpGEMM through the handle calls the rules are about (C = A * B, A and B square).
template <typename V, typename I>
struct SpgemmFamily {
    using Handle = sparse::SpgemmHandle<V, I>;
    using Csr = matrix::Csr<V, I>;
    static Handle make(PatternCheck check) { return Handle({.pattern_check = check}); }
    static void symbolic(Handle& h, const Csr& A, const Csr& B, Csr& C)
    {
        sparse::spgemm_symbolic(h, A, B, C);
    }
    static void numeric(Handle& h, const Csr& A, const Csr& B, Csr& C)
    {
        sparse::spgemm_numeric(h, A, B, C);
    }
};

/// SpAdd likewise (C = 2 A - B).
template <typename V, typename I>
struct SpaddFamily {
    using Handle = sparse::SpaddHandle<V, I>;
    using Csr = matrix::Csr<V, I>;
    static Handle make(PatternCheck check) { return Handle({.pattern_check = check}); }
    static void symbolic(Handle& h, const Csr& A, const Csr& B, Csr& C)
    {
        sparse::spadd_symbolic(h, A, B, C);
    }
    static void numeric(Handle& h, const Csr& A, const Csr& B, Csr& C)
    {
        sparse::spadd_numeric(h, V{2}, A, V{-1}, B, C);
    }
};

/// Runs `call` and expects BadInput whose message contains `names`.
template <typename Call>
void expect_bad_input(Call&& call, const std::string& names)
{
    try {
        call();
        ADD_FAILURE() << "no BadInput (expected one naming '" << names << "')";
    } catch (const loom::BadInput& e) {
        EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    }
}

template <typename Family, typename Fixture>
void expect_changed_patterns_refused(const Fixture& test, PatternCheck check)
{
    using Csr = typename Family::Csr;
    using V = typename Fixture::V;
    using I = typename Fixture::I;
    auto execs = loom::test::backends();
    execs.push_back(test.ref);
    const auto A0 = loom::test::random_csr<V, I>(test.ref, {60, 60, 4, false, true, false, 11});
    const auto B0 = loom::test::random_csr<V, I>(test.ref, {60, 60, 3, false, false, true, 12});
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        Csr A(exec, A0);
        const Csr B(exec, B0);
        auto handle = Family::make(check);
        Csr C;
        Family::symbolic(handle, A, B, C);
        Family::numeric(handle, A, B, C);
        const auto cols = C.col_idxs().to_host();
        const auto vals = C.values().to_host();
        const auto untouched = [&] {
            EXPECT_EQ(C.col_idxs().to_host(), cols);
            EXPECT_EQ(C.values().to_host(), vals);
        };
        // another matrix whose column moved
        const auto moved = Fixture::with_moved_column(A, 7);
        expect_bad_input([&] { Family::numeric(handle, moved, B, C); }, "of A changed");
        untouched();
        // another number of entries, another shape
        const Csr more(exec, loom::test::random_csr<V, I>(test.ref, {60, 60, 5, false, true,
                                                                     false, 13}));
        expect_bad_input([&] { Family::numeric(handle, A, more, C); }, "B has");
        untouched();
        const Csr taller(exec, loom::test::random_csr<V, I>(test.ref, {61, 60, 3}));
        EXPECT_THROW(Family::numeric(handle, A, taller, C), loom::Error);
        untouched();
        // A's pattern rewritten through the matrix: its cached fingerprint is dropped
        Csr rewritten(A);
        Family::symbolic(handle, rewritten, B, C);
        Family::numeric(handle, rewritten, B, C);
        const auto cols2 = C.col_idxs().to_host();
        const auto vals2 = C.values().to_host();
        rewritten.col_idxs() = moved.col_idxs();
        expect_bad_input([&] { Family::numeric(handle, rewritten, B, C); }, "of A changed");
        EXPECT_EQ(C.col_idxs().to_host(), cols2);
        EXPECT_EQ(C.values().to_host(), vals2);
        if (check == PatternCheck::always) {
            // rewritten through a pointer kept from before: only `always` sees it
            Csr raw(A);
            I* kept = raw.col_idxs().data();
            Family::symbolic(handle, raw, B, C);
            Family::numeric(handle, raw, B, C);
            const auto cols3 = C.col_idxs().to_host();
            const auto vals3 = C.values().to_host();
            const auto moved_cols = moved.col_idxs().to_host();
            exec->copy_from(*test.ref, sizeof(I) * moved_cols.size(), moved_cols.data(), kept);
            expect_bad_input([&] { Family::numeric(handle, raw, B, C); }, "of A changed");
            EXPECT_EQ(C.col_idxs().to_host(), cols3);
            EXPECT_EQ(C.values().to_host(), vals3);
        }
    }
}

TYPED_TEST(AnalysisHandle, NumericOnChangedPatternRaisesBadInputAndLeavesCUntouched)
{
    LOOM_TYPED_TEST_TYPES;
    for (const auto check : {PatternCheck::cached, PatternCheck::always}) {
        SCOPED_TRACE(check == PatternCheck::cached ? "cached" : "always");
        {
            SCOPED_TRACE("spgemm");
            expect_changed_patterns_refused<SpgemmFamily<V, I>>(*this, check);
        }
        {
            SCOPED_TRACE("spadd");
            expect_changed_patterns_refused<SpaddFamily<V, I>>(*this, check);
        }
    }
}

template <typename Family, typename Fixture>
void expect_analysis_lifecycle(const Fixture& test)
{
    using Csr = typename Family::Csr;
    using V = typename Fixture::V;
    using I = typename Fixture::I;
    const Csr A = loom::test::random_csr<V, I>(test.ref, {50, 50, 4, false, true, false, 21});
    const Csr B = loom::test::random_csr<V, I>(test.ref, {50, 50, 4, false, true, false, 22});
    auto handle = Family::make(PatternCheck::always);
    Csr C;
    EXPECT_FALSE(handle.analyzed());
    EXPECT_THROW(handle.result_nnz(), loom::BadInput);
    EXPECT_THROW(Family::numeric(handle, A, B, C), loom::BadInput);

    Family::symbolic(handle, A, B, C);
    EXPECT_TRUE(handle.analyzed());
    EXPECT_EQ(handle.result_nnz(), C.nnz());
    Family::numeric(handle, A, B, C);

    // a move carries the analysis along
    auto moved = std::move(handle);
    EXPECT_TRUE(moved.analyzed());
    Family::numeric(moved, A, B, C);

    // reset drops it and keeps the options
    moved.reset();
    EXPECT_FALSE(moved.analyzed());
    EXPECT_EQ(moved.options().pattern_check, PatternCheck::always);
    EXPECT_THROW(moved.result_nnz(), loom::BadInput);
    const auto vals = C.values().to_host();
    EXPECT_THROW(Family::numeric(moved, A, B, C), loom::BadInput);
    EXPECT_EQ(C.values().to_host(), vals);
    Family::symbolic(moved, A, B, C);
    EXPECT_TRUE(moved.analyzed());
    Family::numeric(moved, A, B, C);
}

TYPED_TEST(AnalysisHandle, AnalyzedResetAndMove)
{
    LOOM_TYPED_TEST_TYPES;
    {
        SCOPED_TRACE("spgemm");
        expect_analysis_lifecycle<SpgemmFamily<V, I>>(*this);
    }
    {
        SCOPED_TRACE("spadd");
        expect_analysis_lifecycle<SpaddFamily<V, I>>(*this);
    }
}

}  // namespace
}  // namespace loom::test
