// Format conversions: every pair of formats round-trips to the same matrix on every backend,
// every backend produces the reference's arrays bit for bit, Csr arrays survive the round
// trips that keep every entry, and bad arguments throw without touching the source.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/matrix/convert.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"
#include "support/typed_fixture.hpp"
#include "support/types.hpp"

namespace loom::test {
namespace {


/// Awkward shapes: empty, tiny, around a warp and a slice, empty rows, a dense row (also as
/// the only row), single columns, rectangles both ways, unsorted rows with duplicates.
std::vector<PatternSpec> conversion_specs()
{
    return {
        {0, 0, 1},
        {1, 1, 1, false, true, false, 2},
        {31, 31, 3, false, true, false, 3},
        {32, 32, 4, true, true, false, 4},
        {33, 33, 4, true, false, true, 5},
        {33, 40, 0.5, false, true, false, 6},
        {40, 100, 6, false, false, true, 7},
        {100, 31, 2, true, true, true, 8},
        {1, 200, 1, true, true, false, 9},
        {200, 1, 0.7, false, true, false, 10},
        {0, 7, 1},
        {7, 0, 1},
    };
}

/// Large enough for the OpenMP kernels to split their work (more rows than the OpenMP prefix
/// sum handles sequentially, several chunks in the Coo sort),
/// without a dense row that would make Ell and Dense costly.
const PatternSpec large_spec{20000, 3000, 3, false, false, true, 11};

/// conversion_specs() and the large one.
std::vector<PatternSpec> conversion_specs_and_large()
{
    auto specs = conversion_specs();
    specs.push_back(large_spec);
    return specs;
}

struct Slicing {
    size_type slice_size;
    size_type stride_factor;
};

const std::vector<Slicing> slicings{{1, 1}, {1, 4}, {32, 1}, {32, 4}, {64, 1}, {64, 4}};

/// Every array of a matrix, copied to the host, for exact comparisons.
template <typename V>
struct Layout {
    std::vector<std::vector<loom::int64>> indices;
    std::vector<V> values;
    bool operator==(const Layout&) const = default;
};

template <typename I>
std::vector<loom::int64> widened(const loom::Array<I>& array)
{
    const auto host = array.to_host();
    return {host.begin(), host.end()};
}

template <typename T>
class Convert : public loom::test::TypedFixture<T> {
protected:
    using Base = loom::test::TypedFixture<T>;
    using typename Base::V, typename Base::I, typename Base::Coo, typename Base::Csr,
        typename Base::Ell, typename Base::Sellp, typename Base::Dense, typename Base::Triplets;

    using AnyMatrix = std::variant<Coo, Csr, Ell, Sellp, Dense>;

    /// A target format; the Sellp ones differ by slicing.
    struct Target {
        std::size_t format;  // index into AnyMatrix
        Slicing slicing{32, 1};
    };

    static std::vector<Target> targets()
    {
        std::vector<Target> result{{0}, {1}, {2}, {4}};
        for (const auto& s : slicings) result.push_back({3, s});
        return result;
    }

    static std::string name_of(const Target& target)
    {
        static constexpr const char* names[] = {"coo", "csr", "ell", "sellp", "dense"};
        std::string name = names[target.format];
        if (target.format == 3) {
            name += "(" + std::to_string(target.slicing.slice_size) + "," +
                    std::to_string(target.slicing.stride_factor) + ")";
        }
        return name;
    }

    /// The triplets with their entries shuffled: an unsorted Coo.
    static Triplets shuffled(const Triplets& t, std::uint64_t seed)
    {
        std::vector<std::size_t> order(t.values.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
        Triplets result{t.size, {}, {}, {}};
        for (auto e : order) {
            result.rows.push_back(t.rows[e]);
            result.cols.push_back(t.cols[e]);
            result.values.push_back(t.values[e]);
        }
        return result;
    }

    /// Host oracle of to_csr(Coo): entries stably sorted by row.
    static Csr stable_csr(std::shared_ptr<const loom::Executor> exec, const Triplets& t)
    {
        std::vector<std::size_t> order(t.values.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](auto a, auto b) { return t.rows[a] < t.rows[b]; });
        std::vector<I> ptrs(t.size.rows + 1, 0), cols;
        std::vector<V> values;
        for (auto e : order) {
            ++ptrs[t.rows[e] + 1];
            cols.push_back(t.cols[e]);
            values.push_back(t.values[e]);
        }
        std::partial_sum(ptrs.begin(), ptrs.end(), ptrs.begin());
        return Csr::from_host(std::move(exec), t.size, ptrs, cols, values);
    }

    /// Host oracle of to_dense: duplicates summed.
    static std::vector<V> dense_of(const Triplets& t)
    {
        std::vector<V> result(static_cast<std::size_t>(t.size.count()), V{});
        for (std::size_t e = 0; e < t.values.size(); ++e) {
            result[t.rows[e] * t.size.cols + t.cols[e]] += t.values[e];
        }
        return result;
    }

    static AnyMatrix convert(const AnyMatrix& source, const Target& target)
    {
        return std::visit(
            [&](const auto& A) -> AnyMatrix {
                using S = std::decay_t<decltype(A)>;
                constexpr bool from_dense = std::is_same_v<S, Dense>;
                const auto [slice, factor] = target.slicing;
                switch (target.format) {
                case 0:
                    if constexpr (std::is_same_v<S, Coo>) return A;
                    else if constexpr (from_dense) return matrix::to_coo<I>(A);
                    else return matrix::to_coo(A);
                case 1:
                    if constexpr (std::is_same_v<S, Csr>) return A;
                    else if constexpr (from_dense) return matrix::to_csr<I>(A);
                    else return matrix::to_csr(A);
                case 2:
                    if constexpr (std::is_same_v<S, Ell>) return A;
                    else if constexpr (from_dense) return matrix::to_ell<I>(A);
                    else return matrix::to_ell(A);
                case 3:
                    if constexpr (std::is_same_v<S, Sellp>) {
                        return matrix::to_sellp(matrix::to_csr(A), slice, factor);
                    }
                    else if constexpr (from_dense) return matrix::to_sellp<I>(A, slice, factor);
                    else return matrix::to_sellp(A, slice, factor);
                default:
                    if constexpr (from_dense) return A;
                    else return matrix::to_dense(A);
                }
            },
            source);
    }

    static std::vector<V> dense_values(const AnyMatrix& A)
    {
        return std::visit(
            [](const auto& M) {
                if constexpr (std::is_same_v<std::decay_t<decltype(M)>, Dense>) {
                    return M.to_host();
                } else {
                    return matrix::to_dense(M).to_host();
                }
            },
            A);
    }

    static void validate(const AnyMatrix& A)
    {
        std::visit(
            [](const auto& M) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(M)>, Dense>) M.validate();
            },
            A);
    }

    static Layout<V> layout(const AnyMatrix& A)
    {
        return std::visit(
            [](const auto& M) -> Layout<V> {
                using M_t = std::decay_t<decltype(M)>;
                if constexpr (std::is_same_v<M_t, Coo>) {
                    return {{widened(M.row_idxs()), widened(M.col_idxs())}, M.values().to_host()};
                } else if constexpr (std::is_same_v<M_t, Csr>) {
                    return {{widened(M.row_ptrs()), widened(M.col_idxs())}, M.values().to_host()};
                } else if constexpr (std::is_same_v<M_t, Ell>) {
                    return {{widened(M.col_idxs()), {M.width(), M.stride()}}, M.values().to_host()};
                } else if constexpr (std::is_same_v<M_t, Sellp>) {
                    return {{widened(M.slice_lengths()), widened(M.slice_sets()),
                             widened(M.col_idxs())},
                            M.values().to_host()};
                } else {
                    return {{}, M.to_host()};
                }
            },
            A);
    }

    /// The matrix of t in every format on exec: an unsorted Coo, its Csr, Ell, Sellp, Dense.
    std::vector<AnyMatrix> sources(std::shared_ptr<const loom::Executor> exec, const Triplets& t,
                                   std::uint64_t seed)
    {
        const auto coo_t = shuffled(t, seed);
        auto csr = Csr(exec, stable_csr(this->ref, coo_t));
        std::vector<AnyMatrix> result;
        result.emplace_back(Coo::from_host(exec, t.size, coo_t.rows, coo_t.cols, coo_t.values));
        result.emplace_back(matrix::to_ell(csr));
        result.emplace_back(matrix::to_sellp(csr, 4, 3));
        result.emplace_back(Dense::from_host(exec, t.size, dense_of(t)));
        result.emplace_back(std::move(csr));
        return result;
    }

    static AnyMatrix on(std::shared_ptr<const loom::Executor> exec, const AnyMatrix& A)
    {
        return std::visit(
            [&](const auto& M) -> AnyMatrix { return std::decay_t<decltype(M)>(exec, M); }, A);
    }
};

TYPED_TEST_SUITE(Convert, loom::test::ValueIndexTypes);

TYPED_TEST(Convert, CooToCsrSortsStablyByRow)
{
    LOOM_TYPED_TEST_TYPES;
    const auto execs = loom::test::all_executors();
    for (const auto& spec : conversion_specs_and_large()) {
        const auto t = this->shuffled(loom::test::random_triplets<V, I>(spec), spec.seed);
        const auto expected = this->layout(this->stable_csr(this->ref, t));
        for (const auto& exec : execs) {
            SCOPED_TRACE(exec->name() + " " + loom::to_string(t.size));
            const auto coo = TestFixture::Coo::from_host(exec, t.size, t.rows, t.cols, t.values);
            const auto csr = matrix::to_csr(coo);
            EXPECT_EQ(csr.executor(), exec);
            EXPECT_EQ(this->layout(csr), expected);
        }
    }
}

TYPED_TEST(Convert, EveryPairRoundTripsOnEveryBackend)
{
    LOOM_TYPED_TEST_TYPES;
    const auto backends = loom::test::backends();
    for (const auto& spec : conversion_specs()) {
        const auto t = loom::test::random_triplets<V, I>(spec);
        const auto expected = this->dense_of(t);
        const auto sources = this->sources(this->ref, t, spec.seed);
        for (const auto& source : sources) {
            for (const auto& target : this->targets()) {
                SCOPED_TRACE(loom::to_string(t.size) + " source " + std::to_string(source.index()) +
                             " to " + this->name_of(target));
                const auto result = this->convert(source, target);
                ASSERT_EQ(result.index(), target.format);
                this->validate(result);
                EXPECT_EQ(this->dense_values(result), expected);
                const auto reference_layout = this->layout(result);
                for (const auto& exec : backends) {
                    SCOPED_TRACE(exec->name());
                    const auto there = this->convert(this->on(exec, source), target);
                    std::visit([&](const auto& M) { EXPECT_EQ(M.executor(), exec); }, there);
                    EXPECT_EQ(this->layout(there), reference_layout);
                }
            }
        }
    }
}

TYPED_TEST(Convert, CsrArraysSurviveRoundTrips)
{
    LOOM_TYPED_TEST_TYPES;
    const auto execs = loom::test::all_executors();
    for (const auto& spec : conversion_specs_and_large()) {
        const auto t = loom::test::random_triplets<V, I>(spec);
        for (const auto& exec : execs) {
            SCOPED_TRACE(exec->name() + " " + loom::to_string(t.size));
            const auto csr = this->stable_csr(exec, t);
            const auto original = this->layout(csr);
            EXPECT_EQ(this->layout(matrix::to_csr(matrix::to_coo(csr))), original);
            EXPECT_EQ(this->layout(matrix::to_csr(matrix::to_ell(csr))), original);
            for (const auto& [slice, factor] : slicings) {
                EXPECT_EQ(this->layout(matrix::to_csr(matrix::to_sellp(csr, slice, factor))),
                          original);
            }
            if (spec.sorted && !spec.duplicates) {
                // Dense keeps neither duplicates nor an order within rows.
                EXPECT_EQ(this->layout(matrix::to_csr<I>(matrix::to_dense(csr))), original);
            }
        }
    }
}

TYPED_TEST(Convert, SellpSlicesFollowTheirLongestRow)
{
    LOOM_TYPED_TEST_TYPES;
    const PatternSpec spec{133, 70, 3, true, true, true, 21};
    const auto t = loom::test::random_triplets<V, I>(spec);
    const auto csr = this->stable_csr(this->ref, t);
    const auto ptrs = csr.row_ptrs().to_host();
    for (const auto& [slice, factor] : slicings) {
        SCOPED_TRACE(std::to_string(slice) + " " + std::to_string(factor));
        const auto sellp = matrix::to_sellp(csr, slice, factor);
        EXPECT_EQ(sellp.slice_size(), slice);
        EXPECT_EQ(sellp.stride_factor(), factor);
        ASSERT_EQ(sellp.num_slices(), (spec.rows + slice - 1) / slice);
        const auto lengths = sellp.slice_lengths().to_host();
        for (size_type s = 0; s < sellp.num_slices(); ++s) {
            I longest = 0;
            for (size_type r = s * slice; r < std::min(spec.rows, (s + 1) * slice); ++r) {
                longest = std::max<I>(longest, ptrs[r + 1] - ptrs[r]);
            }
            EXPECT_EQ(lengths[s], (longest + factor - 1) / factor * factor) << "slice " << s;
        }
        EXPECT_NO_THROW(sellp.validate());
    }
}

TYPED_TEST(Convert, EllIsAsWideAsTheLongestRow)
{
    LOOM_TYPED_TEST_TYPES;
    const auto execs = loom::test::all_executors();
    for (const auto& exec : execs) {
        const auto csr = TestFixture::Csr::from_host(exec, {4, 5}, {0, 2, 2, 7, 8},
                                                     {4, 0, 0, 1, 2, 3, 4, 2},
                                                     {1, 2, 3, 4, 5, 6, 7, 8});
        const auto ell = matrix::to_ell(csr);
        EXPECT_EQ(ell.width(), 5);
        EXPECT_EQ(ell.stride(), 4);
        const auto pad = I{matrix::invalid_index};
        // Slot k of row r at k * stride + r: columns of rows 0..3, slot after slot.
        EXPECT_EQ(ell.col_idxs().to_host(),
                  (std::vector<I>{4, pad, 0, 2, 0, pad, 1, pad, pad, pad, 2, pad, pad, pad, 3,
                                  pad, pad, pad, 4, pad}));
        EXPECT_EQ(ell.values().to_host(),
                  (std::vector<V>{1, 0, 3, 8, 2, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0}));
    }
}

TYPED_TEST(Convert, DenseWithRowStride)
{
    LOOM_TYPED_TEST_TYPES;
    const auto execs = loom::test::all_executors();
    for (const auto& exec : execs) {
        SCOPED_TRACE(exec->name());
        // Zeros in a strided matrix, and padding that holds non-zeros to be ignored.
        using Dense = typename TestFixture::Dense;
        auto dense = loom::test::random_dense<V>(exec, {37, 45}, 5, 50);
        auto host = Dense(this->ref, dense);
        for (size_type r = 0; r < 37; ++r) {
            for (size_type c = 0; c < 45; ++c) {
                if ((r * 7 + c) % 3 != 0) host.at(r, c) = V{};
            }
        }
        dense = Dense(exec, host);
        const auto csr = matrix::to_csr<I>(dense);
        EXPECT_EQ(csr.nnz(), (37 * 45 + 2) / 3);
        EXPECT_EQ(matrix::to_dense(csr).to_host(), host.to_host());
        EXPECT_EQ(matrix::to_dense(matrix::to_sellp<I>(dense, 8, 2)).to_host(), host.to_host());
    }
}

TYPED_TEST(Convert, BadSlicingThrowsAndLeavesSourceUntouched)
{
    LOOM_TYPED_TEST_TYPES;
    const auto t = loom::test::random_triplets<V, I>({20, 20, 3, true, false, true, 3});
    const auto csr = this->stable_csr(this->ref, t);
    const auto coo = matrix::to_coo(csr);
    const auto before_csr = this->layout(csr);
    const auto before_coo = this->layout(coo);
    EXPECT_THROW(matrix::to_sellp(csr, 0), loom::BadInput);
    EXPECT_THROW(matrix::to_sellp(csr, 32, 0), loom::BadInput);
    EXPECT_THROW(matrix::to_sellp(coo, -1), loom::BadInput);
    EXPECT_THROW(matrix::to_sellp(matrix::to_ell(csr), 4, -2), loom::BadInput);
    EXPECT_THROW(matrix::to_sellp<I>(matrix::to_dense(csr), 0, 1), loom::BadInput);
    EXPECT_EQ(this->layout(csr), before_csr);
    EXPECT_EQ(this->layout(coo), before_coo);
}

TYPED_TEST(Convert, SourceWithoutExecutorIsBadInput)
{
    EXPECT_THROW(matrix::to_coo(typename TestFixture::Csr{}), loom::BadInput);
    EXPECT_THROW(matrix::to_csr(typename TestFixture::Coo{}), loom::BadInput);
    EXPECT_THROW(matrix::to_dense(typename TestFixture::Ell{}), loom::BadInput);
}

TYPED_TEST(Convert, CountsBeyondTheIndexTypeAreNotSupported)
{
    LOOM_TYPED_TEST_TYPES;
    if constexpr (!std::is_same_v<I, loom::int32>) GTEST_SKIP() << "64-bit indices fit";
    // A view claims 2^32 elements over one: the check comes before anything is read.
    std::vector<V> one{V{1}};
    const auto huge = matrix::Dense<V>::view(this->ref, {65536, 65536}, 65536, one.data());
    EXPECT_THROW(matrix::to_csr<I>(huge), loom::NotSupported);
}

}  // namespace
}  // namespace loom::test
