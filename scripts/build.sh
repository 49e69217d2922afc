#!/usr/bin/env bash
# Configures and builds one CMake preset: scripts/build.sh [PRESET [TARGET...]].
# PRESET defaults to release (CUDA included when nvcc is found); no TARGET builds everything.
# Uses ccache when present; LOOM_JOBS overrides the parallelism (default: all cores).
set -euo pipefail
cd "$(dirname "$0")/.."

preset=${1:-release}
shift || true
launchers=()
if command -v ccache >/dev/null 2>&1; then
    launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    # Paths relative to the checkout in the cache keys: a second clone reuses the objects.
    export CCACHE_BASEDIR="$PWD"
fi
cmake --preset "$preset" "${launchers[@]}" ${LOOM_CMAKE_ARGS:-}
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
cmake --build --preset "$preset" --parallel "${LOOM_JOBS:-$(nproc)}" "${targets[@]}"
