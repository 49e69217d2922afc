// The whole public API of Loom in one include: every header under loom/ except the CUDA
// device headers (.cuh, for .cu files only). tests/base/public_headers_test.cpp checks that
// no header is missing here.
#pragma once

#include "loom/config.hpp"

#include "loom/base/array.hpp"
#include "loom/base/error.hpp"
#include "loom/base/executor.hpp"
#include "loom/base/export.hpp"
#include "loom/base/linop.hpp"
#include "loom/base/linop_factory.hpp"
#include "loom/base/operators.hpp"
#include "loom/base/plan_cache.hpp"
#include "loom/base/types.hpp"

#include "loom/launch/host_team.hpp"
#include "loom/launch/macros.hpp"
#include "loom/launch/omp_team.hpp"
#include "loom/launch/policy.hpp"
#include "loom/launch/team.hpp"

#include "loom/blas/dense_blas.hpp"
#include "loom/blas/types.hpp"
#include "loom/blas/vector.hpp"

#include "loom/lapack/dense_lapack.hpp"

#include "loom/matrix/batch_dense.hpp"
#include "loom/matrix/convert.hpp"
#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/matrix/io.hpp"
#include "loom/matrix/sellp.hpp"
#include "loom/matrix/stencil.hpp"

#include "loom/sparse/block_diagonal.hpp"
#include "loom/sparse/csr_utils.hpp"
#include "loom/sparse/spadd.hpp"
#include "loom/sparse/spgemm.hpp"
#include "loom/sparse/spmv.hpp"
#include "loom/sparse/spmv_stencil.hpp"

#include "loom/batched/banded.hpp"
#include "loom/batched/cholesky.hpp"
#include "loom/batched/common.hpp"
#include "loom/batched/front.hpp"
#include "loom/batched/gemm.hpp"
#include "loom/batched/level1.hpp"
#include "loom/batched/lu.hpp"
#include "loom/batched/par.hpp"
#include "loom/batched/qr.hpp"
#include "loom/batched/routines.hpp"
#include "loom/batched/scalar.hpp"
#include "loom/batched/simd.hpp"
#include "loom/batched/tags.hpp"
#include "loom/batched/triangular.hpp"
#include "loom/batched/utv.hpp"
#include "loom/batched/vendor_peer.hpp"
#include "loom/batched/view.hpp"

#include "loom/log/logger.hpp"
#include "loom/log/loggers.hpp"

#include "loom/stop/criterion.hpp"
#include "loom/stop/status.hpp"

#include "loom/precond/jacobi.hpp"

#include "loom/solver/bicg.hpp"
#include "loom/solver/bicgstab.hpp"
#include "loom/solver/cg.hpp"
#include "loom/solver/cgs.hpp"
#include "loom/solver/config.hpp"
#include "loom/solver/fcg.hpp"
#include "loom/solver/gmres.hpp"
#include "loom/solver/ir.hpp"
#include "loom/solver/result.hpp"
#include "loom/solver/solver.hpp"
#include "loom/solver/solvers.hpp"
