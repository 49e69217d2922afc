// The rigid-body modes of an elasticity problem from its nodal coordinates: the near-null
// space smoothed aggregation needs there (solver::Multigrid::Builder::with_coordinates).
//
// The unknowns are numbered node by node, `dofs_per_node` consecutive rows per node:
// displacements (x, y[, z]) first, then, where the element has them, rotations. The modes are
// the translations and the infinitesimal rotations about the coordinates' centroid (centred,
// so that the modes stay well conditioned far from the origin; the span is the same).
//   2D (coordinates nodes x 2): dofs_per_node 2 (u, v) or 3 (u, v, theta_z); 3 modes.
//   3D (coordinates nodes x 3): dofs_per_node 3 (u, v, w) or 6 (u, v, w, theta_x, theta_y,
//   theta_z); 6 modes.
#pragma once

#include "loom/base/types.hpp"
#include "loom/matrix/dense.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom::multigrid {

/// (nodes dofs_per_node) x (3 in 2D, 6 in 3D), on the coordinates' executor. BadInput for
/// coordinates without an executor, with other than 2 or 3 columns, or a dofs_per_node other
/// than the ones listed above.
template <typename V>
LOOM_EXPORT matrix::Dense<V> rigid_body_modes(const matrix::Dense<V>& coordinates,
                                              size_type dofs_per_node);

}  // namespace loom::multigrid

LOOM_PUBLIC_END
