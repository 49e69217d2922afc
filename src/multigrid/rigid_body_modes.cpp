// Rigid-body modes, built on the host: coordinates come from a file or a generator there,
// and the modes are O(rows) values copied to the executor once.
#include "loom/multigrid/rigid_body_modes.hpp"

#include <string>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/base/error.hpp"

namespace loom::multigrid {

template <typename V>
matrix::Dense<V> rigid_body_modes(const matrix::Dense<V>& coordinates, size_type dofs_per_node)
{
    constexpr const char* where = "loom::multigrid::rigid_body_modes";
    if (!coordinates.executor()) throw BadInput(where, "the coordinates have no executor");
    const size_type dim = coordinates.cols();
    if (dim != 2 && dim != 3) {
        throw BadInput(where, "coordinates must have 2 or 3 columns, not " + std::to_string(dim));
    }
    // The rotations' own unknowns (plates, shells) come after the displacements.
    if (dofs_per_node != dim && dofs_per_node != (dim == 2 ? 3 : 6)) {
        throw BadInput(where, std::to_string(dofs_per_node) + " unknowns per node in " +
                                  std::to_string(dim) + "D (expected " +
                                  (dim == 2 ? "2 or 3)" : "3 or 6)"));
    }
    const size_type nodes = coordinates.rows();
    const auto xyz = coordinates.to_host();  // row-major, nodes x dim
    std::vector<V> centroid(static_cast<std::size_t>(dim), V{0});
    for (size_type p = 0; p < nodes; ++p) {
        for (size_type c = 0; c < dim; ++c) centroid[c] += xyz[p * dim + c];
    }
    for (auto& c : centroid) c /= static_cast<V>(nodes > 0 ? static_cast<double>(nodes) : 1.0);

    const size_type modes = dim == 2 ? 3 : 6;
    const size_type rotations = modes - dim;
    std::vector<V> B(static_cast<std::size_t>(nodes * dofs_per_node * modes), V{0});
    const auto at = [&](size_type p, size_type dof, size_type mode) -> V& {
        return B[(p * dofs_per_node + dof) * modes + mode];
    };
    for (size_type p = 0; p < nodes; ++p) {
        const V x = xyz[p * dim] - centroid[0];
        const V y = xyz[p * dim + 1] - centroid[1];
        for (size_type c = 0; c < dim; ++c) at(p, c, c) = V{1};
        // Rotation k moves a point by e_k x (x, y, z); its own rotation unknown is 1.
        if (dim == 2) {
            at(p, 0, 2) = -y;
            at(p, 1, 2) = x;
        } else {
            const V z = xyz[p * dim + 2] - centroid[2];
            at(p, 1, 3) = -z;  // about x
            at(p, 2, 3) = y;
            at(p, 0, 4) = z;  // about y
            at(p, 2, 4) = -x;
            at(p, 0, 5) = -y;  // about z
            at(p, 1, 5) = x;
        }
        if (dofs_per_node > dim) {
            for (size_type k = 0; k < rotations; ++k) at(p, dim + k, dim + k) = V{1};
        }
    }
    return matrix::Dense<V>::from_host(coordinates.executor(), dim2{nodes * dofs_per_node, modes},
                                       B);
}

#define LOOM_INSTANTIATE_RIGID_BODY_MODES(V) \
    template matrix::Dense<V> rigid_body_modes(const matrix::Dense<V>&, size_type);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_RIGID_BODY_MODES)

}  // namespace loom::multigrid
