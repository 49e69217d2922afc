#!/usr/bin/env bash
# The test command (CI runs exactly this): installs missing packages, configures and builds
# everything (CUDA too when nvcc and a GPU are found; with nvcc alone, the CUDA backend is only
# compiled, for two types), then runs every test while the CUDA check and the fuzz targets
# build, then a short run of the fuzz targets.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
# A clean build parses the tests' and tools' third-party headers once per target (LOOM_PCH in
# CMakeLists.txt); ccache caches those files only with these sloppiness settings.
export LOOM_CMAKE_ARGS="-DLOOM_PCH=ON ${LOOM_CMAKE_ARGS:-}"
export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"
has_nvcc() { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }
jobs=${LOOM_JOBS:-$(nproc)}
cuda_check=
if has_nvcc && ! nvidia-smi -L >/dev/null 2>&1 && [ -z "${LOOM_FULL_CUDA:-}" ]; then
    # nvcc but no GPU (CI): the CUDA tests could only skip, so the CPU backends are built and
    # run for float, double and complex<double> (every precision and the complex code paths;
    # complex<float> is a combination of those, not a code path of its own, and is compiled by
    # the fuzz build below: a quarter of the build saved) and the CUDA backend is compiled and
    # linked for two value types (scripts/check-cuda-build.sh). LOOM_FULL_CUDA=1 builds CUDA
    # for every type anyway; a LOOM_VALUE_TYPES in LOOM_CMAKE_ARGS wins.
    ci_types="-DLOOM_VALUE_TYPES=float;double;complex<double>"
    LOOM_CMAKE_ARGS="$ci_types ${LOOM_CMAKE_ARGS:-} -DLOOM_WITH_CUDA=OFF" scripts/build.sh release
    cuda_check=1
else
    scripts/build.sh release
fi
# Then the tests, the CUDA check's build and the fuzz build side by side: they need nothing of
# one another, and each alone leaves a core idle part of its time (configuring, linking, tests
# that wait), which the others take; the builds a little niced, so that the tests, which
# wait on their slowest, get a core when they have work. Each one's output is shown when it ends.
mkdir -p build/logs
side_names=() side_pids=()
side() {
    local name=$1
    shift
    "$@" >"build/logs/$name.log" 2>&1 &
    side_names+=("$name") side_pids+=($!)
}
# Waiting OpenMP threads sleep (tests/CMakeLists.txt says why; the Python tests inherit it).
side tests env OMP_WAIT_POLICY=passive ctest --preset release --parallel "$jobs"
if [ -n "$cuda_check" ]; then side cuda-check nice -n 5 scripts/check-cuda-build.sh; fi
side fuzz-build nice -n 5 scripts/run-fuzz.sh --build-only
failed=()
for i in "${!side_pids[@]}"; do
    status=0
    wait "${side_pids[$i]}" || status=$?
    echo "run-tests: ${side_names[$i]} (exit $status, build/logs/${side_names[$i]}.log):"
    cat "build/logs/${side_names[$i]}.log"
    [ "$status" -eq 0 ] || failed+=("${side_names[$i]}")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run-tests: failed: ${failed[*]}" >&2
    exit 1
fi
# The fuzz targets (fuzz/README.md), 8 s each on their seed corpus: a finding fails the command.
# Every seed (the regression inputs among them) runs in the first second; the rest is new
# inputs, which the long runs (fuzz/README.md) are for.
scripts/run-fuzz.sh 8
