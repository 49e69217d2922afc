#!/usr/bin/env bash
# The GPU machine's script (Ubuntu, 16 cores, CUDA 13, no network): builds with CUDA for
# sm_90, runs every test (CUDA ones included), then every benchmark with an issue target on
# the GPU (against cuSPARSE/cuBLAS) and the CPU (against Eigen). Tables and JSON reports go to
# $OUT (build/cuda/results without it); a summary comes last.
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
        tee "$out/ctest.log" | grep -vE "^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed|^ +Start +[0-9]+:"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("tests")
    # The out-of-memory tests fill the device: alone, after everything else.
    LOOM_TEST_FILL_DEVICE=1 "$build/tests/test_sparse" --gtest_filter='DeviceMemory.*' 2>&1 |
        tee -a "$out/ctest.log" | tail -3
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed+=("device-memory tests")
fi

# Each benchmark's table goes to $out/NAME.txt and its JSON to $out/NAME.json.
bench() {
    local name=$1
    shift
    echo
    echo "== loom bench $*"
    "$loom" bench "$@" --json "$out/$name.json" 2>&1 | tee "$out/$name.txt" || failed+=("$name")
}

if wants bench; then
    # Issue 2: CSR SpMV against cuSPARSE, and OpenMP against Eigen.
    bench spmv-cuda-poisson3d-160 spmv --generate poisson3d:160 --exec cuda --peer cusparse
    bench spmv-cuda-powerlaw-2M-16 spmv --generate powerlaw:2000000:16 --exec cuda --peer cusparse
    bench spmv-cuda-poisson3d-100-27 spmv --generate poisson3d:100:27 --exec cuda --peer cusparse
    bench spmv-omp-poisson3d-160 spmv --generate poisson3d:160 --exec omp --peer eigen
    # Issue 3: CG bandwidth per iteration; 1x1 overhead on the CPU.
    bench solve-cuda-cg-160 solve --generate poisson3d:160 --exec cuda
    bench solve-omp-cg-overhead solve --generate poisson3d:8 --exec omp --threads 2 --iters 20
    # Issue 4: SpGEMM, SpAdd, stencil SpMV.
    bench spgemm-cuda-27pt-100 spgemm --generate poisson3d:100:27 --exec cuda --peer cusparse --reps 5
    bench spgemm-cuda-powerlaw spgemm --generate powerlaw:2000000:16 --exec cuda --peer cusparse --reps 3
    bench spgemm-omp-27pt-40 spgemm --generate poisson3d:40:27 --exec omp --threads 2 --peer eigen --reps 3
    bench spadd-cuda-random-1M-30 spadd --generate random:1000000:1000000:30 --exec cuda --peer cusparse
    bench stencil-cuda-7pt-160 spmv-stencil --grid 160 --points 7 --exec cuda
    bench stencil-cuda-27pt-100 spmv-stencil --grid 100 --points 27 --exec cuda
    # Issue 5: batched routines against cuBLAS, dense BLAS/LAPACK against cuBLAS/cuSOLVER.
    for routine in gemm getrf trsm potrf qr; do
        bench batched-$routine batched $routine --n 3,5,8,11,16,32 --batch 163840 --exec cuda --peer cublas --reps 5
    done
    for routine in trmm trtri; do
        bench batched-$routine batched $routine --n 3,5,8,11,16 --batch 163840 --exec cuda --reps 5
    done
    bench gemm-cuda gemm --exec cuda --shape 64,256,1024,4096 --peak-gflops 67000
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
    echo "== summary (tables in $out/*.txt, JSON in $out/*.json)"
    python3 scripts/bench-summary.py "$out"/spmv-*.json || ls -l "$out"
    # Issue 17's table: where Loom was behind, the ratios then and now.
    echo
    python3 scripts/behind-table.py "$out"
    # The other benchmarks: their result rows (the lines under each table's rule).
    for table in "$out"/*.txt; do
        case $(basename "$table") in spmv-*) continue ;; esac
        echo "-- $(basename "$table" .txt)"
        awk '/^---/ {rows = 1; next} rows && NF {print "   " $0}' "$table" | head -12
    done
fi
[ ${#failed[@]} -eq 0 ]
