#!/usr/bin/env bash
# The main job: installs missing packages, builds the `loom` program and runs the OpenMP SpMV
# benchmark on a 3D Poisson matrix against Eigen. Extra arguments go to `loom bench spmv`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh release loom_cli
build/release/tools/loom/loom bench spmv --generate poisson3d:100 --exec omp --peer eigen "$@"
