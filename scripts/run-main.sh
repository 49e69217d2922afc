#!/usr/bin/env bash
# The main job: installs missing packages, builds the `loom` program and solves the 3D Poisson
# problem on a 64^3 grid by Jacobi-preconditioned CG with OpenMP. Extra arguments go to
# `loom solve` (e.g. --exec cuda, --generate poisson3d:100). When CMake found Python and
# pybind11, it also builds the Python module and installs it with libloom (the install
# component "python") under LOOM_PREFIX (default /usr/local) where it may write, so that
# `/usr/bin/python3 -c "import loom"` works afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh release loom_cli
if grep -q '^LOOM_WITH_PYTHON:BOOL=ON' build/release/CMakeCache.txt; then
    cmake --build build/release --target loom_python --parallel "${LOOM_JOBS:-$(nproc)}"
    prefix=${LOOM_PREFIX:-/usr/local}
    if [ -w "$prefix" ] || { [ ! -e "$prefix" ] && [ -w "$(dirname "$prefix")" ]; }; then
        cmake --install build/release --component python --prefix "$prefix" >/dev/null
        echo "run-main: installed the Python package (and libloom) under $prefix"
    else
        echo "run-main: $prefix is not writable: use PYTHONPATH=$PWD/build/release/python" >&2
    fi
fi
build/release/tools/loom/loom solve --generate poisson3d:64 --solver cg --precond jacobi --exec omp "$@"
