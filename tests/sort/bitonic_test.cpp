// loom::sort: the team/serial bitonic network in a user's team kernel, segmented sorts and
// whole-array sorts on every backend, checked against std::sort; bad input.
#include <algorithm>
#include <limits>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/launch/team.hpp"
#include "loom/sort/bitonic.hpp"
#include "support/executors.hpp"

namespace {

using namespace loom;

/// n keys drawn from a range of n / 4 + 1 values, so most of them repeat.
template <typename K>
std::vector<K> keys_with_duplicates(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> pick(-static_cast<int>(n / 8), static_cast<int>(n / 8));
    std::vector<K> keys(n);
    for (auto& k : keys) k = static_cast<K>(pick(rng));
    return keys;
}

/// Values that name their key's original position, to check pairs stayed together.
std::vector<int32> positions(std::size_t n)
{
    std::vector<int32> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int32>(i);
    return values;
}

/// keys is sorted by comp and (keys, values) is a permutation of the original pairs.
template <typename K, typename Compare>
void expect_sorted_pairs(const std::vector<K>& original, const std::vector<K>& keys,
                         const std::vector<int32>& values, Compare comp)
{
    auto expected = original;
    std::sort(expected.begin(), expected.end(), comp);
    ASSERT_EQ(keys, expected);
    std::vector<int> used(original.size(), 0);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        ASSERT_EQ(original[values[i]], keys[i]) << "entry " << i;
        ASSERT_EQ(used[values[i]]++, 0) << "value " << values[i] << " twice";
    }
}

TEST(SerialSort, EveryLengthUpTo1100WithDuplicates)
{
    for (std::size_t n = 0; n <= 1100; ++n) {
        const auto original = keys_with_duplicates<int32>(n, n);
        auto keys = original;
        auto values = positions(n);
        sort::serial_sort_pairs(keys.data(), values.data(), static_cast<int>(n));
        expect_sorted_pairs(original, keys, values, std::less<>{});
        auto only_keys = original;
        sort::serial_sort(only_keys.data(), static_cast<long long>(n));
        ASSERT_EQ(only_keys, keys) << "n " << n;
    }
}

/// A comparator of the user's: by absolute value, then negative first.
struct ByMagnitude {
    LOOM_HOST_DEVICE bool operator()(double a, double b) const
    {
        const double ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
        return ma < mb || (ma == mb && a < b);
    }
};

TEST(TeamSort, InsideAUserTeamKernelWithACustomComparator)
{
    // A team per length: each copies its keys to team scratch, sorts and writes them back.
    const int lengths = 300;
    std::vector<std::vector<double>> originals(lengths);
    for (int n = 0; n < lengths; ++n) {
        for (const auto k : keys_with_duplicates<int32>(n, 7 + n)) originals[n].push_back(k * 0.5);
    }
    auto sorted = originals;
    auto ranks = std::vector<std::vector<int32>>(lengths);
    for (int n = 0; n < lengths; ++n) ranks[n] = positions(n);
    for (const auto& exec :
         {test::reference(), std::shared_ptr<const Executor>(OmpExecutor::create())}) {
        auto data = originals;
        auto values = ranks;
        launch::team_parallel_for(
            *exec, launch::TeamPolicy{lengths, 1, 1}.set_scratch_bytes(lengths * 12 + 64),
            [&](const auto& m) {
                const auto n = static_cast<int>(m.league_rank());
                auto* keys = m.template team_scratch<double>(n);
                auto* vals = m.template team_scratch<int32>(n);
                std::copy(data[n].begin(), data[n].end(), keys);
                std::copy(values[n].begin(), values[n].end(), vals);
                sort::team_sort_pairs(m, keys, vals, n, ByMagnitude{});
                std::copy(keys, keys + n, data[n].begin());
                std::copy(vals, vals + n, values[n].begin());
            });
        for (int n = 0; n < lengths; ++n) {
            SCOPED_TRACE("n " + std::to_string(n));
            expect_sorted_pairs(originals[n], data[n], values[n], ByMagnitude{});
        }
    }
}

/// (keys, values) in lexicographic order: the one result KeyThenValue allows.
void expect_lexicographic(std::vector<int32> keys, std::vector<int32> values,
                          const std::vector<int32>& got_keys, const std::vector<int32>& got_values)
{
    std::vector<std::pair<int32, int32>> expected(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = {keys[i], values[i]};
    std::sort(expected.begin(), expected.end());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        ASSERT_EQ(got_keys[i], expected[i].first) << "entry " << i;
        ASSERT_EQ(got_values[i], expected[i].second) << "entry " << i;
    }
}

TEST(TeamSort, KeyThenValueSortsAndMergesPairsInOneOrder)
{
    // Team t sorts t keys with many duplicates by (key, value), and merges two sorted runs of
    // t / 3 and t - t / 3 keys laid out as SpAdd does: the first ascending, padding, the
    // second reversed at the end of a power-of-two buffer.
    const int teams = 200;
    constexpr int32 padding = std::numeric_limits<int32>::max();
    for (const auto& exec :
         {test::reference(), std::shared_ptr<const Executor>(OmpExecutor::create())}) {
        std::vector<std::vector<int32>> sorted_keys(teams), sorted_values(teams);
        std::vector<std::vector<int32>> merged_keys(teams), merged_values(teams);
        launch::team_parallel_for(*exec, launch::TeamPolicy{teams, 4, 1}, [&](const auto& m) {
            const auto t = static_cast<int>(m.league_rank());
            auto keys = keys_with_duplicates<int32>(t, 100 + t);
            auto values = positions(t);
            std::reverse(values.begin(), values.end());  // duplicates arrive out of value order
            sort::team_sort_pairs(m, keys.data(), values.data(), t, sort::KeyThenValue<>{});
            sorted_keys[t] = keys;
            sorted_values[t] = values;

            auto first = keys_with_duplicates<int32>(t / 3, 300 + t);
            auto second = keys_with_duplicates<int32>(t - t / 3, 400 + t);
            std::sort(first.begin(), first.end());
            std::sort(second.begin(), second.end());
            int n = 1;
            while (n < t) n *= 2;
            std::vector<int32> buffer(n, padding);
            std::vector<int32> origin(n);
            for (int i = 0; i < n; ++i) origin[i] = i;
            std::copy(first.begin(), first.end(), buffer.begin());
            for (std::size_t j = 0; j < second.size(); ++j) {
                buffer[n - 1 - j] = second[j];
                origin[n - 1 - j] = static_cast<int32>(first.size() + j);
            }
            sort::team_merge_bitonic_pairs(m, buffer.data(), origin.data(), n,
                                           sort::KeyThenValue<>{});
            merged_keys[t] = buffer;
            merged_values[t] = origin;
        });
        for (int t = 0; t < teams; ++t) {
            SCOPED_TRACE(exec->name() + ", team " + std::to_string(t));
            auto values = positions(t);
            std::reverse(values.begin(), values.end());
            expect_lexicographic(keys_with_duplicates<int32>(t, 100 + t), values, sorted_keys[t],
                                 sorted_values[t]);
            // The merge: the runs' entries in (key, origin) order, then the padding.
            auto first = keys_with_duplicates<int32>(t / 3, 300 + t);
            auto second = keys_with_duplicates<int32>(t - t / 3, 400 + t);
            std::sort(first.begin(), first.end());
            std::sort(second.begin(), second.end());
            std::vector<int32> keys = first, origins = positions(t);
            keys.insert(keys.end(), second.begin(), second.end());
            const std::vector<int32> got_keys(merged_keys[t].begin(), merged_keys[t].begin() + t);
            const std::vector<int32> got_origins(merged_values[t].begin(),
                                                 merged_values[t].begin() + t);
            expect_lexicographic(keys, origins, got_keys, got_origins);
            for (std::size_t i = t; i < merged_keys[t].size(); ++i) {
                ASSERT_EQ(merged_keys[t][i], padding);
            }
        }
    }
}

template <typename K>
class Sort : public ::testing::Test {};
using KeyTypes = ::testing::Types<int32, int64, float, double>;
TYPED_TEST_SUITE(Sort, KeyTypes);

TYPED_TEST(Sort, SegmentsOfEveryLengthUpTo1100)
{
    using K = TypeParam;
    // Segments 0, 1, ..., 1100 in a shuffled order, and a few empty ones at the ends.
    std::vector<int32> lengths(1101);
    for (int32 n = 0; n <= 1100; ++n) lengths[n] = n;
    std::shuffle(lengths.begin(), lengths.end(), std::mt19937_64(3));
    lengths.push_back(0);
    std::vector<int32> offsets{0};
    for (const auto n : lengths) offsets.push_back(offsets.back() + n);
    const auto original = keys_with_duplicates<K>(offsets.back(), 11);
    for (const auto& exec : loom::test::all_executors()) {
        for (const auto order : {sort::Order::ascending, sort::Order::descending}) {
            SCOPED_TRACE(exec->name());
            Array<K> keys(exec, original);
            Array<int32> values(exec, positions(original.size()));
            sort::sort_segments(Array<int32>(exec, offsets), keys, values, order);
            const auto k = keys.to_host();
            const auto v = values.to_host();
            for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
                const auto b = offsets[s], e = offsets[s + 1];
                std::vector<K> seg(original.begin() + b, original.begin() + e);
                std::vector<K> got(k.begin() + b, k.begin() + e);
                std::vector<int32> at(v.begin() + b, v.begin() + e);
                for (auto& p : at) p -= b;  // positions relative to the segment
                if (order == sort::Order::ascending) {
                    expect_sorted_pairs(seg, got, at, std::less<>{});
                } else {
                    expect_sorted_pairs(seg, got, at, std::greater<>{});
                }
            }
            Array<K> only_keys(exec, original);
            sort::sort_segments(Array<int32>(exec, offsets), only_keys, order);
            ASSERT_EQ(only_keys.to_host(), k);
        }
    }
}

TYPED_TEST(Sort, WholeArraysOfEveryLengthUpTo1100AndALongOne)
{
    using K = TypeParam;
    std::vector<std::size_t> sizes;
    for (std::size_t n = 0; n <= 1100; ++n) sizes.push_back(n);
    for (std::size_t n : {2047u, 2048u, 2049u, 4096u, 10000u, 100003u}) sizes.push_back(n);
    for (const auto& exec : loom::test::all_executors()) {
        SCOPED_TRACE(exec->name());
        for (const auto n : sizes) {
            SCOPED_TRACE("n " + std::to_string(n));
            const auto original = keys_with_duplicates<K>(n, n + 1);
            Array<K> keys(exec, original);
            Array<int32> values(exec, positions(n));
            sort::sort(keys, values);
            expect_sorted_pairs(original, keys.to_host(), values.to_host(), std::less<>{});
            Array<K> descending(exec, original);
            sort::sort(descending, sort::Order::descending);
            auto expected = original;
            std::sort(expected.begin(), expected.end(), std::greater<>{});
            ASSERT_EQ(descending.to_host(), expected);
        }
    }
}

TEST(Sort, BadInputIsRejectedAndKeysUntouched)
{
    const auto ref = test::reference();
    const std::vector<int32> original{3, 1, 2};
    Array<int32> keys(ref, original);
    Array<int32> short_values(ref, std::vector<int32>{1, 2});
    EXPECT_THROW(sort::sort(keys, short_values), BadInput);
    EXPECT_THROW(sort::sort_segments(Array<int32>(ref, std::vector<int32>{0, 2, 1}), keys),
                 BadInput);
    EXPECT_THROW(sort::sort_segments(Array<int32>(ref, std::vector<int32>{0, 4}), keys), BadInput);
    EXPECT_THROW(sort::sort_segments(Array<int32>(ref, std::vector<int32>{}), keys), BadInput);
    EXPECT_THROW(
        sort::sort_segments(Array<int32>(ref, std::vector<int32>{0, 2}), keys, short_values),
        BadInput);
    EXPECT_EQ(keys.to_host(), original);
}

}  // namespace
