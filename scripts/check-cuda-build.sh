#!/usr/bin/env bash
# Compiles and links the CUDA backend on a machine with nvcc but no GPU (CI), where its tests
# could only skip: libloom with every .cu file, and the CUDA test files, for (double,
# complex<double>) x int32 — real and complex device arithmetic. Every type pair is built
# and run where a GPU is (scripts/device.sh; the test command itself on a GPU machine).
# LOOM_JOBS overrides the parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvcc >/dev/null 2>&1 && ! [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "check-cuda-build: no nvcc on PATH, nothing to check"
    exit 0
fi
launchers=()
if command -v ccache >/dev/null 2>&1; then
    launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="$PWD"
fi
build=build/cuda-check
cmake -S . -B "$build" -G Ninja "${launchers[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DLOOM_WITH_CUDA=ON -DLOOM_VALUE_TYPES="complex<double>" -DLOOM_INDEX_TYPES=int32 \
    -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_TOOLS=OFF -DLOOM_WITH_PYTHON=OFF \
    >/dev/null
targets=(loom)
ninja -C "$build" -t targets all | grep -q '^loom_distributed:' && targets+=(loom_distributed)
cuda_tests=$(ninja -C "$build" -t targets all | sed -n 's/^\(tests\/[^:]*\.cu\.o\):.*/\1/p')
cmake --build "$build" --parallel "${LOOM_JOBS:-$(nproc)}" --target "${targets[@]}" -- $cuda_tests
echo "check-cuda-build: the CUDA backend compiles and links (double, complex<double>; int32)"
