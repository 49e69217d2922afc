// Every batched routine: header-only, device-callable, in the modes Serial, Team and
// TeamVector, on strided views (view.hpp) of scalars or SIMD packs (simd.hpp).
//
//   level 1     Axpy Scale Copy Set SetIdentity Dot Nrm2 AddRadial   (level1.hpp)
//   level 2/3   Gemv Gemm GemmFixed (gemm.hpp), Syr (level1.hpp), Trsv Trsm Trmm Trtri
//               (triangular.hpp)
//   LU          Getrf (Pivot::Partial / None, alias LU), Getrs, Gesv, InverseLU (lu.hpp)
//   Cholesky    Potrf Potrs (cholesky.hpp)
//   QR          QR ApplyQ (qr.hpp), UTV SolveUTV (utv.hpp)
//   banded      Gbtrf Gbtrs (banded.hpp)
//
// Conventions: routines check sizes only in debug builds (LOOM_BATCHED_ASSERT; the front-level
// calls check and throw) and never throw; numerical failures come back as LAPACK-style info
// (k + 1 at the first failing step, per lane for packs); pivots are 0-based. In the team modes every thread of the team calls the routine,
// its inputs must already be visible to the team (member.team_barrier() after writing them),
// and its outputs are visible to the whole team on return. Launch teams with
// loom/launch/team.hpp.
#pragma once

#include "loom/batched/banded.hpp"
#include "loom/batched/cholesky.hpp"
#include "loom/batched/gemm.hpp"
#include "loom/batched/level1.hpp"
#include "loom/batched/lu.hpp"
#include "loom/batched/qr.hpp"
#include "loom/batched/simd.hpp"
#include "loom/batched/triangular.hpp"
#include "loom/batched/utv.hpp"
#include "loom/batched/view.hpp"
