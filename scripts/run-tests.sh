#!/usr/bin/env bash
# The test command (CI runs exactly this): installs missing packages, configures and builds
# everything (CUDA too when nvcc is found), then runs every test. CUDA tests skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh release
ctest --preset release --parallel "${LOOM_JOBS:-$(nproc)}"
