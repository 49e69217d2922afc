// The Stencil container: validation, the interior box, and the CSR forms (boundary rows,
// and the whole operator), built on the host and copied to the executor once.
#include "loom/matrix/stencil.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/sparse/spmv_stencil.hpp"
#include "matrix/sparse_format.hpp"

namespace loom::matrix {
namespace {

constexpr const char* where = "loom::matrix::Stencil";

/// The Laplacian's weights: points - 1 at the centre, -1 elsewhere.
template <typename V>
std::vector<V> laplacian_weights(int points)
{
    std::vector<V> weights;
    for (const auto& offset : stencil_offsets(points)) {
        weights.push_back(offset == StencilOffset{} ? V(points - 1) : V(-1));
    }
    return weights;
}

/// Index of -offsets[i] in offsets (stencils are symmetric).
std::vector<std::size_t> mirrors(const std::vector<StencilOffset>& offsets)
{
    std::vector<std::size_t> result(offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        const StencilOffset mirrored{-offsets[i].dx, -offsets[i].dy, -offsets[i].dz};
        for (std::size_t j = 0; j < offsets.size(); ++j) {
            if (offsets[j] == mirrored) result[i] = j;
        }
    }
    return result;
}

/// Calls visit(row, column, i) for every entry of the rows that `include(x, y, z)` selects,
/// i the index of the entry's offset; rows in order, columns ascending within a row.
template <typename Include, typename Visit>
void for_each_entry(const Box& box, const std::vector<StencilOffset>& offsets, Include&& include,
                    Visit&& visit)
{
    const auto inside = [&](size_type x, size_type y, size_type z) {
        return x >= 0 && x < box.nx && y >= 0 && y < box.ny && z >= 0 && z < box.nz;
    };
    for (size_type z = 0; z < box.nz; ++z) {
        for (size_type y = 0; y < box.ny; ++y) {
            for (size_type x = 0; x < box.nx; ++x) {
                if (!include(x, y, z)) continue;
                const size_type row = (z * box.ny + y) * box.nx + x;
                for (std::size_t i = 0; i < offsets.size(); ++i) {
                    const auto& o = offsets[i];
                    if (inside(x + o.dx, y + o.dy, z + o.dz)) {
                        visit(row, row + (o.dz * box.ny + o.dy) * box.nx + o.dx, i);
                    }
                }
            }
        }
    }
}

}  // namespace

std::vector<StencilOffset> stencil_offsets(int points)
{
    if (!in_stencil(points, {})) {
        throw BadInput("loom::matrix::stencil_offsets",
                       "a stencil has 3, 5, 7, 9 or 27 points, not " + std::to_string(points));
    }
    std::vector<StencilOffset> offsets;
    for (int dz = -1; dz <= 1; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                if (in_stencil(points, {dx, dy, dz})) offsets.push_back({dx, dy, dz});
            }
        }
    }
    return offsets;
}

template <typename V, typename I>
Stencil<V, I>::Stencil(std::shared_ptr<const Executor> exec, Box box, int points)
    : Stencil(std::move(exec), box, points, laplacian_weights<V>(points))
{}

template <typename V, typename I>
Stencil<V, I>::Stencil(std::shared_ptr<const Executor> exec, Box box, int points,
                       std::vector<V> weights)
    : SparseFormat<Stencil, V, I>(exec, {0, 0}),
      box_(box),
      points_(points),
      weights_(std::move(weights)),
      offsets_(stencil_offsets(points))
{
    if (!exec) throw BadInput(where, "no executor given");
    if (weights_.size() != offsets_.size()) {
        throw BadInput(where, "a " + std::to_string(points) + "-point stencil needs " +
                                  std::to_string(offsets_.size()) + " weights, got " +
                                  std::to_string(weights_.size()));
    }
    if (box.nx < 0 || box.ny < 0 || box.nz < 0) {
        throw BadInput(where, "negative box extent " + std::to_string(box.nx) + " x " +
                                  std::to_string(box.ny) + " x " + std::to_string(box.nz));
    }
    const double count = static_cast<double>(box.nx) * box.ny * box.nz;
    if (count > static_cast<double>(std::numeric_limits<I>::max())) {
        throw NotSupported(where, "a box of " + std::to_string(count) +
                                      " points does not fit the index type " + type_name<I>() +
                                      " (use 64-bit indices)");
    }
    this->set_size({box.points(), box.points()});
    // Interior along a direction: the points 1 away from both ends, where the stencil reaches
    // in that direction; every point where it does not.
    const auto reach = [&](auto member) {
        int r = 0;
        for (const auto& o : offsets_) r = std::max(r, std::abs(o.*member));
        return r;
    };
    const int rx = reach(&StencilOffset::dx);
    const int ry = reach(&StencilOffset::dy);
    const int rz = reach(&StencilOffset::dz);
    interior_first_ = {rx, ry, rz};
    interior_last_ = {std::max<size_type>(box.nx - rx, rx), std::max<size_type>(box.ny - ry, ry),
                      std::max<size_type>(box.nz - rz, rz)};
    build_boundary();
}

template <typename V, typename I>
void Stencil<V, I>::build_boundary()
{
    const auto& first = interior_first_;
    const auto& last = interior_last_;
    const auto boundary = [&](size_type x, size_type y, size_type z) {
        return x < first.nx || x >= last.nx || y < first.ny || y >= last.ny || z < first.nz ||
               z >= last.nz;
    };
    const auto mirror = mirrors(offsets_);
    std::vector<I> rows;
    std::vector<I> row_ptrs{0};
    std::vector<I> cols;
    std::vector<V> values;
    std::vector<V> transposed;
    size_type previous = -1;
    for_each_entry(box_, offsets_, boundary, [&](size_type row, size_type col, std::size_t i) {
        if (row != previous) {
            if (previous >= 0) row_ptrs.push_back(static_cast<I>(cols.size()));
            rows.push_back(static_cast<I>(row));
            previous = row;
        }
        cols.push_back(static_cast<I>(col));
        values.push_back(weights_[i]);
        transposed.push_back(weights_[mirror[i]]);
    });
    if (previous >= 0) row_ptrs.push_back(static_cast<I>(cols.size()));
    const auto& exec = this->executor();
    boundary_ = Csr<V, I>::from_host(exec, {static_cast<size_type>(rows.size()), box_.points()},
                                     row_ptrs, cols, values);
    boundary_rows_ = Array<I>(exec, rows);
    boundary_transposed_values_ = Array<V>(exec, transposed);
}

template <typename V, typename I>
Stencil<V, I>::Stencil(std::shared_ptr<const Executor> exec, const Stencil& other)
    : SparseFormat<Stencil, V, I>(exec, other.size()),
      box_(other.box_),
      points_(other.points_),
      weights_(other.weights_),
      offsets_(other.offsets_),
      interior_first_(other.interior_first_),
      interior_last_(other.interior_last_),
      boundary_(exec, other.boundary_),
      boundary_rows_(exec, other.boundary_rows_),
      boundary_transposed_values_(exec, other.boundary_transposed_values_)
{}

template <typename V, typename I>
Csr<V, I> Stencil<V, I>::to_csr() const
{
    std::vector<I> row_ptrs(static_cast<std::size_t>(box_.points() + 1), 0);
    std::vector<I> cols;
    std::vector<V> values;
    for_each_entry(
        box_, offsets_, [](size_type, size_type, size_type) { return true; },
        [&](size_type row, size_type col, std::size_t i) {
            cols.push_back(static_cast<I>(col));
            values.push_back(weights_[i]);
            row_ptrs[row + 1] = static_cast<I>(cols.size());  // every row holds its centre
        });
    return Csr<V, I>::from_host(this->executor(), this->size(), row_ptrs, cols, values);
}

LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPARSE_FORMAT, Stencil)

}  // namespace loom::matrix
