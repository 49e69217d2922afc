#!/usr/bin/env bash
# The main job: installs missing packages, builds the `loom` program and solves the 3D Poisson
# problem on a 64^3 grid by Jacobi-preconditioned CG with OpenMP. Extra arguments go to
# `loom solve` (e.g. --exec cuda, --generate poisson3d:100).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh release loom_cli
build/release/tools/loom/loom solve --generate poisson3d:64 --solver cg --precond jacobi --exec omp "$@"
