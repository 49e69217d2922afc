// Every iterative solver, stopping criterion and logger.
#pragma once

#include "loom/log/loggers.hpp"
#include "loom/solver/bicg.hpp"
#include "loom/solver/bicgstab.hpp"
#include "loom/solver/cb_gmres.hpp"
#include "loom/solver/cg.hpp"
#include "loom/solver/cgs.hpp"
#include "loom/solver/chebyshev.hpp"
#include "loom/solver/fcg.hpp"
#include "loom/solver/fgmres.hpp"
#include "loom/solver/gcr.hpp"
#include "loom/solver/gmres.hpp"
#include "loom/solver/idr.hpp"
#include "loom/solver/ir.hpp"
#include "loom/solver/minres.hpp"
#include "loom/solver/pipe_cg.hpp"
#include "loom/stop/criterion.hpp"
