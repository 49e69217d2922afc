#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang-14, ASan + UBSan, the reference backend only —
# no target runs a kernel —, float and complex<float> with int32 indices) in build/fuzz and
# runs each on its seed corpus. The targets read float and complex<float>: this build is where
# CI compiles complex<float> (CI's release build leaves it out, scripts/run-tests.sh), and the
# readers and the config parser are one template for every value type, so double and
# complex<double> (built and tested by the release build) would add compile time, not code.
#   scripts/run-fuzz.sh [SECONDS]    each target for SECONDS (default 15): the short run
#   scripts/run-fuzz.sh --runs N     each target for N executions: the long run (10^6)
#   scripts/run-fuzz.sh --build-only     build the targets for a short run, run nothing
#   FUZZ_TARGETS="fuzz_mtx fuzz_cli" scripts/run-fuzz.sh ...   only these targets
# Exits non-zero on a finding (crash, hang, leak, sanitizer report); the input that caused it
# is kept as build/fuzz/findings/<target>/crash-... (fuzz/README.md says how to replay it).
# LOOM_JOBS overrides the build's parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=(-max_total_time="${1:-15}")
# A short run builds fuzz_config's JSON reader at -O0 (fuzz/CMakeLists.txt says why), a long
# one at -O1: 2.5 times its compile time for its speed.
config_o1=OFF
if [ "${1:-}" = "--runs" ]; then
    limit=(-runs="${2:?--runs needs a count}")
    config_o1=ON
fi
targets=(${FUZZ_TARGETS:-fuzz_mtx fuzz_binary fuzz_config fuzz_cli})

launchers=()
if command -v ccache >/dev/null 2>&1; then
    launchers=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    export CCACHE_BASEDIR="$PWD"
    # ccache caches a file that uses a precompiled header (LOOM_PCH) only with these.
    export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"
fi
cmake -S . -B build/fuzz -G Ninja "${launchers[@]}" \
    -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Fuzz \
    -DLOOM_WITH_FUZZ=ON -DLOOM_WITH_CUDA=OFF -DLOOM_WITH_OPENMP=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLOOM_BUILD_TESTS=OFF -DLOOM_BUILD_TOOLS=ON -DLOOM_PCH=ON -DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON \
    -DLOOM_VALUE_TYPES="float;complex<float>" -DLOOM_INDEX_TYPES=int32 \
    -DLOOM_FUZZ_CONFIG_O1=$config_o1 >/dev/null
cmake --build build/fuzz --parallel "${LOOM_JOBS:-$(nproc)}" --target "${targets[@]}"
if [ "${1:-}" = "--build-only" ]; then
    exit 0
fi

# Short allocation stacks: recording them is a tenth of the run time otherwise (a finding is
# replayed with the defaults). The readers' scratch files go to memory where there is some.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:malloc_context_size=5}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR="${TMPDIR:-/dev/shm}"
# The targets run side by side, as many at a time as the build's jobs (each is one process
# on one core): the same time per target, the wall time of the runs divided by the cores.
run_target() {
    local target=$1 name=${1#fuzz_}
    # New inputs go to build/fuzz/corpus; the seeds in fuzz/corpus stay as they are.
    mkdir -p "build/fuzz/corpus/$name" "build/fuzz/findings/$name"
    rm -f "build/fuzz/$name.failed"
    local dict=()
    [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
    echo "run-fuzz: $target ${limit[*]}"
    "build/fuzz/fuzz/$target" "${limit[@]}" "${dict[@]}" -timeout=10 -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="build/fuzz/findings/$name/" \
        "build/fuzz/corpus/$name" "fuzz/corpus/$name" 2>"build/fuzz/$name.log" ||
        touch "build/fuzz/$name.failed"
}
parallel=${LOOM_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
    run_target "$target" &
done
wait
failed=()
for target in "${targets[@]}"; do
    name=${target#fuzz_}
    if [ -e "build/fuzz/$name.failed" ]; then
        failed+=("$target")
        tail -n 60 "build/fuzz/$name.log" >&2
    fi
    echo "run-fuzz: $target"
    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec)' \
        "build/fuzz/$name.log" || true
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run-fuzz: findings in ${failed[*]} (inputs in build/fuzz/findings/)" >&2
    exit 1
fi
echo "run-fuzz: no findings"
