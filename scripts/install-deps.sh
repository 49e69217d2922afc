#!/usr/bin/env bash
# Installs the Debian packages Loom builds with, those that are missing (clang-14 with libFuzzer,
# the sanitizers' runtime and its OpenMP: the fuzz build of scripts/run-fuzz.sh). Stops with a
# clear message when some are missing and cannot be installed (not root, or no apt-get).
set -euo pipefail

packages=(cmake g++ ninja-build libgtest-dev libbenchmark-dev libcli11-dev libfmt-dev
          nlohmann-json3-dev libeigen3-dev
          clang-14 libfuzzer-14-dev libclang-rt-14-dev libomp-14-dev)
# Installed when possible, never required: OpenBLAS/LAPACK turn on LOOM_WITH_BLAS (the CPU
# vendor path of dense BLAS/LAPACK); a machine without them builds without it.
# libsuitesparse-dev: CHOLMOD, the supernodal Cholesky factors of sparse/cholmod.hpp, and AMD,
# the approximate minimum degree ordering of graph/amd.hpp.
# petsc-dev: the CPU peer of the solver benchmarks (tools/peers: PETSc's KSP/PC, hypre's
# BoomerAMG through PETSc); nothing of the library needs it.
# openmpi-bin, libopenmpi-dev: the distributed layer (LOOM_WITH_MPI); libmetis-dev: METIS partitions.
optional=(libopenblas-dev liblapack-dev libsuitesparse-dev petsc-dev
          openmpi-bin libopenmpi-dev libmetis-dev)

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian system, not checking packages; CMake will say what is missing" >&2
    exit 0
fi
# python3-dev pybind11-dev python3-pybind11 python3-numpy: the Python module (import loom);
# python3-scipy python3-pytest: its tests.
optional+=(python3-dev pybind11-dev python3-pybind11 python3-numpy python3-scipy python3-pytest)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for package in "${packages[@]}"; do
    installed "$package" || missing+=("$package")
done
missing_optional=()
for package in "${optional[@]}"; do
    installed "$package" || missing_optional+=("$package")
done
if [ ${#missing_optional[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        missing+=("${missing_optional[@]}")
    else
        echo "install-deps: optional packages not installed: ${missing_optional[*]} (building without LOOM_WITH_BLAS or CHOLMOD)" >&2
    fi
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing packages: ${missing[*]}, and there is no apt-get to install them" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: run as root, or first: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "install-deps: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
