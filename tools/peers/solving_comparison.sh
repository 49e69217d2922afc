#!/usr/bin/env bash
# Issue 11's "Solving" target on the CPU: Loom's incomplete-factorization solvers against
# PETSc's on the shared real matrices, one loom-peer-petsc run per matrix (a PETSc error on
# one matrix, e.g. its ILU on a missing diagonal entry, does not stop the others):
#   nonsymmetric: GMRES(30) + ILU(0) and BiCGSTAB + ILU(0) (PETSc KSPGMRES / KSPBCGS + PCILU),
#   and BiCGSTAB + Loom's ILUT against PETSc's default PCILU (ILU(0); it has no ILUT);
#   symmetric positive definite: CG + IC(0) (PETSc KSPCG + PCICC).
# Usage: tools/peers/solving_comparison.sh [BUILD_DIR [MATRIX_DIR]] (extra options to the peer
# in LOOM_PEER_ARGS, e.g. "--threads 1 --reps 5"). Run it under nice on a shared machine.
set -euo pipefail
build=${1:-build/dev}
dir=${2:-${LOOM_MATRIX_DIR:-../shared/matrices}}
peer="$build/tools/peers/loom-peer-petsc"
nonsymmetric=(add32 bayer10 bp_1600 e05r0000 mcfe orani678 rdb968 sherman5 tomography west0989)
spd=(bcsstk01 bcsstk02 bcsstk03 bcsstk04 bcsstk05 bcsstk06 bcsstk07 bcsstk08 bcsstk09 bcsstk10
     bcsstk15 bcsstk18 bcsstk25 ex5 gr_30_30 lund_a nos3 nos4 nos5 nos6 nos7 plat362)
run() {
    local method=$1 name=$2
    [ -f "$dir/$name.mtx" ] || { echo "$name: not in $dir"; return; }
    # shellcheck disable=SC2086
    "$peer" --method "$method" ${LOOM_PEER_ARGS:-} "$dir/$name.mtx" 2>/dev/null |
        grep -E "^$name|^  (loom|petsc):" || echo "$name $method: the peer failed"
}
for name in "${nonsymmetric[@]}"; do run ilu,bicgstab-ilu,bicgstab-ilut "$name"; done
for name in "${spd[@]}"; do run ic "$name"; done
