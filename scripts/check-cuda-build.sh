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
# The host code at -O0: nothing of it runs here but the loading test, and the release build
# compiles each C++ file at -O3 for every type already. -O0 inlines nothing away, so the link
# and load checks stay as strict; it takes about 40% off the C++ objects' compile time. For
# the .cu files nvcc's -O is the host compiler's alone (cicc and ptxas get the same arguments,
# `nvcc --dryrun`): the device code is the GPU build's, and the host half of each .cu file
# compiles 38% faster (src/sparse/spmv/cuda.cu: 22.3 -> 13.9 s of its 72 s).
# The device code too is checked, not optimized: PTX alone (the virtual architecture: no ptxas,
# which the GPU build runs) from cicc at -O0 (-Xcicc -O0; the front end, where the compile
# errors come from, is the same). CPU s per file, -O3 SASS+PTX -> -O0 PTX: spmv/cuda.cu 20.2
# -> 14.7, sort/cuda_vendor.cu 25.9 -> 17.5, batched/front/cuda_blas.cu 40.5 -> 13.6.
# Without the OpenMP backend: its 34 files know nothing of CUDA (no .cu file reaches it, and
# the dispatch's OpenMP and CUDA branches are independent, src/base/dispatch.hpp), the release
# build compiles and tests them, and here they were ~60 CPU s at -O0 (1.4-2.2 each).
cmake -S . -B "$build" -G Ninja "${launchers[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
    -DCMAKE_CUDA_FLAGS_RELEASE="-O0 -DNDEBUG -Xcicc -O0" -DCMAKE_CUDA_ARCHITECTURES=90-virtual \
    -DLOOM_WITH_CUDA=ON -DLOOM_WITH_OPENMP=OFF \
    -DLOOM_VALUE_TYPES="complex<double>" -DLOOM_INDEX_TYPES=int32 \
    -DLOOM_BUILD_TESTS=ON -DLOOM_BUILD_TOOLS=OFF -DLOOM_WITH_PYTHON=OFF \
    >/dev/null
targets=(loom)
ninja -C "$build" -t targets all | grep -q '^loom_distributed:' && targets+=(loom_distributed)
cuda_tests=$(ninja -C "$build" -t targets all | sed -n 's/^\(tests\/[^:]*\.cu\.o\):.*/\1/p')
# libloom_cuda (the CUDA backend, loaded on demand) and the test that loads it without a GPU.
ninja -C "$build" -t targets all | grep -q '^loom_cuda:' && targets+=(loom_cuda test_cuda_loading)
cmake --build "$build" --parallel "${LOOM_JOBS:-$(nproc)}" --target "${targets[@]}" -- $cuda_tests
if [[ " ${targets[*]} " == *" loom_cuda "* ]]; then
    # libloom and loom_distributed need no CUDA library; libloom_cuda exports its table of
    # functions and nothing else; and loading it connects every trampoline (the test counts
    # devices, finds none, and creating an executor says so rather than "cannot load" or
    # "does not match").
    for library in "$build"/libloom.so "$build"/libloom_distributed.so; do
        [ -e "$library" ] || continue
        if readelf -d "$library" | grep NEEDED | grep -Ei 'cuda|cublas|cusparse|cusolver'; then
            echo "check-cuda-build: $library needs a CUDA library" >&2
            exit 1
        fi
    done
    exports=$(nm -D --defined-only "$build/libloom_cuda.so" | awk '{print $3}' | sort | xargs)
    if [ "$exports" != "loom_cuda_function_names loom_cuda_functions" ]; then
        echo "check-cuda-build: libloom_cuda.so exports more than its table: $exports" >&2
        exit 1
    fi
    # One process per test: each starts with nothing of CUDA loaded.
    ctest --test-dir "$build" -R '^CudaLoading\.' --output-on-failure
fi
echo "check-cuda-build: the CUDA backend compiles, links and loads (double, complex<double>; int32)"
