#!/usr/bin/env bash
# The test command (CI runs exactly this): installs missing packages, configures and builds
# everything (CUDA too when nvcc and a GPU are found; with nvcc alone, the CUDA backend is only
# compiled, for two types), then runs every test, then a short run of the fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# A clean build parses the tests' and tools' third-party headers once per target (LOOM_PCH in
# CMakeLists.txt); ccache caches those files only with these sloppiness settings.
export LOOM_CMAKE_ARGS="-DLOOM_PCH=ON ${LOOM_CMAKE_ARGS:-}"
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"
has_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }
if has_nvcc && ! nvidia-smi -L >/dev/null 2>&1 && [ -z "${LOOM_FULL_CUDA:-}" ]; then
    # nvcc but no GPU (CI): the CUDA tests could only skip, so the CPU backends are built and
    # run for float, double and complex<double> (every precision and the complex code paths;
    # complex<float> is a combination of those, not a code path of its own, and is compiled by
    # the fuzz build below: a quarter of the build saved) and the CUDA backend is compiled and
    # linked for two value types (scripts/check-cuda-build.sh). LOOM_FULL_CUDA=1 builds CUDA
    # for every type anyway; a LOOM_VALUE_TYPES in LOOM_CMAKE_ARGS wins.
    ci_types="-DLOOM_VALUE_TYPES=float;double;complex<double>"
    LOOM_CMAKE_ARGS="$ci_types ${LOOM_CMAKE_ARGS:-} -DLOOM_WITH_CUDA=OFF" scripts/build.sh release
    scripts/check-cuda-build.sh
else
    scripts/build.sh release
fi
# Waiting OpenMP threads sleep (tests/CMakeLists.txt says why; the Python tests inherit it).
OMP_WAIT_POLICY=passive ctest --preset release --parallel "${LOOM_JOBS:-$(nproc)}"
# The fuzz targets (fuzz/README.md), 8 s each on their seed corpus: a finding fails the command.
# Every seed (the regression inputs among them) runs in the first second; the rest is new
# inputs, which the long runs (fuzz/README.md) are for.
scripts/run-fuzz.sh 8
