// Stencil<V, I>: a constant-coefficient stencil operator on a box of grid points, stored
// without column indices. Grid point (x, y, z) is row (z * ny + y) * nx + x; row p holds, for
// every offset o of the stencil whose neighbour p + o lies inside the box, the weight of o
// in column p + o (Dirichlet boundaries: neighbours outside the box are dropped).
//
// Stencils: 3 points (x neighbours), 5 and 9 points (the x-y plane: faces, or the whole 3 x 3
// square), 7 and 27 points (3D: faces, or the whole 3 x 3 x 3 cube). A lower-dimensional
// stencil on a box with more dimensions acts on every line (plane) of it separately.
//
// Interior rows, whose neighbours all lie inside, are computed from the grid alone, reading
// x and writing y once per row. The other (boundary) rows are kept as a CSR matrix of those
// rows only. SpMV: sparse::spmv(mode, alpha, A, x, beta, y) from loom/sparse/spmv_stencil.hpp.
#pragma once

#include <memory>
#include <vector>

#include "loom/base/array.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/sparse_format.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::matrix {

/// The extents of a box of grid points.
struct Box {
    size_type nx = 1;
    size_type ny = 1;
    size_type nz = 1;

    constexpr size_type points() const { return nx * ny * nz; }
    constexpr bool operator==(const Box&) const = default;
};

/// The offset of a neighbour from the centre point.
struct StencilOffset {
    int dx = 0;
    int dy = 0;
    int dz = 0;
    constexpr bool operator==(const StencilOffset&) const = default;
};

/// Whether `offset` belongs to the stencil of `points` points (3, 5, 7, 9 or 27).
constexpr bool in_stencil(int points, StencilOffset offset)
{
    const auto abs = [](int v) { return v < 0 ? -v : v; };
    if (abs(offset.dx) > 1 || abs(offset.dy) > 1 || abs(offset.dz) > 1) return false;
    const int manhattan = abs(offset.dx) + abs(offset.dy) + abs(offset.dz);
    switch (points) {
    case 3: return offset.dy == 0 && offset.dz == 0;
    case 5: return offset.dz == 0 && manhattan <= 1;
    case 9: return offset.dz == 0;
    case 7: return manhattan <= 1;
    case 27: return true;
    default: return false;
    }
}

/// The offsets of the stencil of `points` points ordered by (dz, dy, dx): the order of the
/// weights, and of the columns within a row. BadInput for another number of points.
std::vector<StencilOffset> stencil_offsets(int points);

template <typename V, typename I = int32>
class Stencil : public SparseFormat<Stencil<V, I>, V, I> {
public:
    Stencil() = default;
    /// The Laplacian with Dirichlet boundaries: points - 1 at the centre, -1 at every
    /// neighbour (the matrices matrix::poisson2d / poisson3d generate on square boxes).
    Stencil(std::shared_ptr<const Executor> exec, Box box, int points);
    /// weights[i] is the coefficient of the neighbour at stencil_offsets(points)[i].
    /// BadInput for another number of points or of weights, or a negative extent;
    /// NotSupported when the box has more points than I can index.
    Stencil(std::shared_ptr<const Executor> exec, Box box, int points, std::vector<V> weights);
    /// Deep copy of other, placed on exec.
    Stencil(std::shared_ptr<const Executor> exec, const Stencil& other);

    Stencil(const Stencil& other) : Stencil(other.executor(), other) {}
    Stencil(Stencil&&) noexcept = default;
    Stencil& operator=(const Stencil& other) { return this->copy_assign(other); }
    Stencil& operator=(Stencil&&) noexcept = default;

    const Box& box() const noexcept { return box_; }
    int points() const noexcept { return points_; }
    const std::vector<V>& weights() const noexcept { return weights_; }
    const std::vector<StencilOffset>& offsets() const noexcept { return offsets_; }

    /// The interior: rows [first, last) in every direction whose neighbours are all inside.
    /// Empty (first >= last in some direction) when the box is too thin to have one.
    const Box& interior_first() const noexcept { return interior_first_; }
    const Box& interior_last() const noexcept { return interior_last_; }
    size_type interior_rows() const noexcept { return this->size().rows - boundary_.rows(); }

    /// The boundary rows as CSR (columns are grid rows, sorted): row b is grid row
    /// boundary_rows()[b], which increase with b.
    const Csr<V, I>& boundary() const noexcept { return boundary_; }
    const Array<I>& boundary_rows() const noexcept { return boundary_rows_; }
    /// The same rows of A^T (same pattern, A^T(p, q) = A(q, p)), for transposed products.
    const Array<V>& boundary_transposed_values() const noexcept
    {
        return boundary_transposed_values_;
    }

    /// Every row of the operator as CSR on the stencil's executor, columns sorted.
    Csr<V, I> to_csr() const;

private:
    void build_boundary();

    Box box_{0, 0, 0};
    int points_ = 0;
    std::vector<V> weights_;
    std::vector<StencilOffset> offsets_;
    Box interior_first_{0, 0, 0};
    Box interior_last_{0, 0, 0};
    Csr<V, I> boundary_;
    Array<I> boundary_rows_;
    Array<V> boundary_transposed_values_;
};

}  // namespace loom::matrix

LOOM_PUBLIC_END
