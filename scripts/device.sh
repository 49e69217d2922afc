#!/usr/bin/env bash
# The GPU machine's script (Ubuntu, 16 cores, CUDA 13, no network): builds with CUDA for
# sm_90, runs every test (CUDA ones included), then the SpMV benchmarks on the GPU against
# cuSPARSE and on the CPU against Eigen. JSON reports go to $OUT (build/cuda/results without
# it); a summary table comes last.
#
#   scripts/device.sh [build] [test] [bench]     (no argument: all three, in that order)
#
# LOOM_JOBS sets the build parallelism (16), LOOM_CMAKE_ARGS adds configure arguments
# (e.g. -DLOOM_VALUE_TYPES=double for a quick build).
set -uo pipefail
cd "$(dirname "$0")/.."

stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build test bench)
build=build/cuda
out=${OUT:-$build/results}
loom=$build/tools/loom/loom
mkdir -p "$out"
failed=()

wants() { [[ " ${stages[*]} " == *" $1 "* ]]; }

if wants build; then
    args=(--preset cuda -DCMAKE_CUDA_ARCHITECTURES=90)
    if command -v ccache >/dev/null 2>&1; then
        args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    fi
    # The device copy of the repository carries the shared test matrices here.
    [ -d .device-data/matrices ] && args+=("-DLOOM_MATRIX_DIR=$PWD/.device-data/matrices")
    cmake "${args[@]}" ${LOOM_CMAKE_ARGS:-} || exit 1
    cmake --build "$build" --parallel "${LOOM_JOBS:-16}" || exit 1
fi

if wants test; then
    nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader || true
    ctest --test-dir "$build" --output-on-failure --parallel 8 --timeout 900 2>&1 |
        tee "$out/ctest.log" | grep -vE "^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("tests")
fi

spmv() {
    local name=$1
    shift
    echo
    echo "== loom bench spmv $*"
    "$loom" bench spmv "$@" --json "$out/spmv-$name.json" || failed+=("spmv-$name")
}

if wants bench; then
    spmv cuda-poisson3d-160 --generate poisson3d:160 --exec cuda --peer cusparse
    spmv cuda-powerlaw-2M-16 --generate powerlaw:2000000:16 --exec cuda --peer cusparse
    spmv cuda-poisson3d-100-27 --generate poisson3d:100:27 --exec cuda --peer cusparse
    spmv omp-poisson3d-160 --generate poisson3d:160 --exec omp --peer eigen
fi

echo
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
else
    echo "passed: ${stages[*]}"
fi
# The summary table comes last: it is what a reader of the log sees first.
if wants bench; then
    echo
    echo "== summary (JSON in $out)"
    python3 scripts/bench-summary.py "$out"/spmv-*.json || ls -l "$out"
fi
[ ${#failed[@]} -eq 0 ]
