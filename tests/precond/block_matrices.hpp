// Matrices with a known block structure for the block-diagonal and Jacobi tests, and a host
// decoder of stored block inverses (independent of the library's: float16 through the
// compiler's _Float16).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "loom/matrix/csr.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/sparse/block_diagonal.hpp"
#include "support/random.hpp"

namespace loom::test {

/// Rows as (column, value) lists, turned into a Csr in the order given.
template <typename V, typename I>
struct RowLists {
    std::vector<std::vector<std::pair<size_type, V>>> rows;

    explicit RowLists(size_type n) : rows(static_cast<std::size_t>(n)) {}
    void add(size_type row, size_type col, V value) { rows[row].emplace_back(col, value); }

    matrix::Csr<V, I> to_csr(std::shared_ptr<const Executor> exec, size_type cols = -1) const
    {
        const auto n = static_cast<size_type>(rows.size());
        std::vector<I> ptrs{0}, col_idxs;
        std::vector<V> values;
        for (const auto& row : rows) {
            for (const auto& [c, v] : row) {
                col_idxs.push_back(static_cast<I>(c));
                values.push_back(v);
            }
            ptrs.push_back(static_cast<I>(col_idxs.size()));
        }
        return matrix::Csr<V, I>::from_host(std::move(exec), {n, cols < 0 ? n : cols}, ptrs,
                                            col_idxs, values);
    }
};

/// Boundaries of consecutive blocks of the given sizes.
template <typename I>
std::vector<I> pointers_of(const std::vector<size_type>& sizes)
{
    std::vector<I> ptrs{0};
    for (auto s : sizes) ptrs.push_back(static_cast<I>(ptrs.back() + s));
    return ptrs;
}

/// Dense, strictly diagonally dominant (so well-conditioned) diagonal blocks of the given
/// sizes. With `coupling`, each row also gets that many random entries outside its block
/// (which the block diagonal ignores). With `scramble`, columns within rows are shuffled
/// and some entries are split into two duplicates that sum to the value.
template <typename V, typename I>
matrix::Csr<V, I> block_matrix(std::shared_ptr<const Executor> exec,
                               const std::vector<size_type>& sizes, std::uint64_t seed = 1,
                               int coupling = 0, bool scramble = false)
{
    std::mt19937_64 rng(seed);
    const size_type n = std::accumulate(sizes.begin(), sizes.end(), size_type{0});
    RowLists<V, I> lists(n);
    size_type begin = 0;
    for (auto s : sizes) {
        for (size_type i = begin; i < begin + s; ++i) {
            for (size_type j = begin; j < begin + s; ++j) {
                V value = random_value<V>(rng);
                if (i == j) value += static_cast<V>(static_cast<double>(s) + 1);
                if (scramble && rng() % 4 == 0) {
                    lists.add(i, j, value / V(4));
                    value = value * V(3) / V(4);
                }
                lists.add(i, j, value);
            }
            for (int c = 0; c < coupling && n > s; ++c) {
                auto col = static_cast<size_type>(rng() % static_cast<std::uint64_t>(n - s));
                if (col >= begin) col += s;
                lists.add(i, col, random_value<V>(rng));
            }
            if (scramble) std::shuffle(lists.rows[i].begin(), lists.rows[i].end(), rng);
        }
        begin += s;
    }
    return lists.to_csr(std::move(exec));
}

/// The 5-point Laplacian on an n x n grid Kronecker-multiplied by an m x m SPD coupling of
/// the unknowns of a node: m unknowns per node, rows node * m + a, SPD. All m rows of a node
/// share one pattern; neighbouring nodes do not. With `scaled`, S A S for a diagonal S with
/// entries from 1 to 11 (still SPD; a diagonal that Jacobi has something to do with).
template <typename V, typename I>
matrix::Csr<V, I> poisson_kron(std::shared_ptr<const Executor> exec, size_type n, size_type m,
                               bool scaled = false)
{
    const auto s = [scaled](size_type row) {
        return scaled ? 1.0 + static_cast<double>(row * 37 % 11) : 1.0;
    };
    const auto host = ReferenceExecutor::create();
    const auto P = matrix::poisson2d<double, I>(host, n);
    const auto* ptrs = P.row_ptrs().data();
    const auto* cols = P.col_idxs().data();
    const auto* vals = P.values().data();
    const auto coupling = [m](size_type a, size_type b) {
        const auto distance = static_cast<double>(a > b ? a - b : b - a);
        return a == b ? static_cast<double>(m) + 1 : 0.5 / (1 + distance);
    };
    RowLists<V, I> lists(n * n * m);
    for (size_type node = 0; node < n * n; ++node) {
        for (size_type a = 0; a < m; ++a) {
            for (auto k = ptrs[node]; k < ptrs[node + 1]; ++k) {
                for (size_type b = 0; b < m; ++b) {
                    const size_type row = node * m + a;
                    const size_type col = cols[k] * m + b;
                    lists.add(row, col, static_cast<V>(vals[k] * coupling(a, b) * s(row) * s(col)));
                }
            }
        }
    }
    return lists.to_csr(std::move(exec));
}

/// Splits supervariables longer than max_size, then merges neighbours greedily: the block
/// boundaries find_blocks promises for supervariables of the given lengths.
template <typename I>
std::vector<I> expected_blocks(const std::vector<size_type>& supervariables, size_type max_size)
{
    std::vector<size_type> pieces;
    for (auto s : supervariables) {
        for (; s > max_size; s -= max_size) pieces.push_back(max_size);
        pieces.push_back(s);
    }
    std::vector<I> ptrs{0};
    size_type current = 0;
    for (auto p : pieces) {
        if (current + p > max_size) {
            ptrs.push_back(static_cast<I>(ptrs.back() + current));
            current = 0;
        }
        current += p;
    }
    if (current > 0) ptrs.push_back(static_cast<I>(ptrs.back() + current));
    return ptrs;
}

/// A stored block inverse decoded on the host: block k as a row-major dense matrix.
template <typename V>
struct DecodedBlocks {
    std::vector<std::vector<V>> blocks;
    std::vector<size_type> sizes;
    std::vector<sparse::StoragePrecision> precisions;
    std::vector<double> conditions;
};

template <typename V, typename I>
DecodedBlocks<V> decode(const sparse::BlockDiagonalInverse<V, I>& inverse)
{
    using R = remove_complex_t<V>;
    const auto ptrs = inverse.block_ptrs().to_host();
    const auto offsets = inverse.offsets().to_host();
    const auto precisions = inverse.precisions().to_host();
    const auto scales = inverse.scales().to_host();
    const auto conditions = inverse.conditions().to_host();
    const auto storage = inverse.storage().to_host();
    const auto real_at = [&](std::int64_t byte, sparse::StoragePrecision p, size_type e) -> R {
        const unsigned char* at = storage.data() + byte;
        switch (p) {
        case sparse::StoragePrecision::float64: {
            double v;
            std::memcpy(&v, at + 8 * e, 8);
            return static_cast<R>(v);
        }
        case sparse::StoragePrecision::float32: {
            float v;
            std::memcpy(&v, at + 4 * e, 4);
            return static_cast<R>(v);
        }
        default: {
            _Float16 v;
            std::memcpy(&v, at + 2 * e, 2);
            return static_cast<R>(static_cast<float>(v));
        }
        }
    };
    DecodedBlocks<V> out;
    for (std::size_t k = 0; k + 1 < ptrs.size(); ++k) {
        const size_type s = ptrs[k + 1] - ptrs[k];
        const auto p = static_cast<sparse::StoragePrecision>(precisions[k]);
        std::vector<V> block(static_cast<std::size_t>(s * s));
        for (size_type i = 0; i < s; ++i) {
            for (size_type j = 0; j < s; ++j) {
                const size_type e = j * s + i;  // column-major
                V value;
                if constexpr (is_complex_v<V>) {
                    value = V(real_at(offsets[k], p, 2 * e), real_at(offsets[k], p, 2 * e + 1));
                } else {
                    value = real_at(offsets[k], p, e);
                }
                block[i * s + j] = value * scales[k];
            }
        }
        out.blocks.push_back(std::move(block));
        out.sizes.push_back(s);
        out.precisions.push_back(p);
        out.conditions.push_back(static_cast<double>(conditions[k]));
    }
    return out;
}

/// The diagonal blocks of A (host arrays) as row-major dense matrices, duplicates summed.
template <typename V, typename I>
std::vector<std::vector<V>> diagonal_blocks(const matrix::Csr<V, I>& A, const std::vector<I>& ptrs)
{
    const auto rp = A.row_ptrs().to_host();
    const auto ci = A.col_idxs().to_host();
    const auto vs = A.values().to_host();
    std::vector<std::vector<V>> blocks;
    for (std::size_t k = 0; k + 1 < ptrs.size(); ++k) {
        const size_type begin = ptrs[k];
        const size_type s = ptrs[k + 1] - begin;
        std::vector<V> block(static_cast<std::size_t>(s * s), V{0});
        for (size_type i = 0; i < s; ++i) {
            for (auto e = rp[begin + i]; e < rp[begin + i + 1]; ++e) {
                const size_type c = static_cast<size_type>(ci[e]) - begin;
                if (c >= 0 && c < s) block[i * s + c] += vs[e];
            }
        }
        blocks.push_back(std::move(block));
    }
    return blocks;
}

/// max |(X Y - I)(i, j)| for s x s row-major X and Y.
template <typename V>
double distance_from_identity(const std::vector<V>& X, const std::vector<V>& Y, size_type s)
{
    double worst = 0;
    for (size_type i = 0; i < s; ++i) {
        for (size_type j = 0; j < s; ++j) {
            V sum{0};
            for (size_type l = 0; l < s; ++l) sum += X[i * s + l] * Y[l * s + j];
            if (i == j) sum -= V{1};
            worst = std::max(worst, static_cast<double>(std::abs(sum)));
        }
    }
    return worst;
}

}  // namespace loom::test
