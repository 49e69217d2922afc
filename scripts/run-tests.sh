#!/usr/bin/env bash
# The test command (CI runs exactly this): installs missing packages, configures and builds
# everything (CUDA too when nvcc is found), then runs every test, then a short run of the fuzz
# targets. CUDA tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh release
ctest --preset release --parallel "${LOOM_JOBS:-$(nproc)}"
# The fuzz targets (fuzz/README.md), 15 s each on their seed corpus: a finding fails the command.
scripts/run-fuzz.sh 15
