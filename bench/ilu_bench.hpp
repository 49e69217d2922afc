// The incomplete-factorization benchmark behind `loom bench ilu`: checks Loom's factors
// against the reference backend (ParILUT / ParICT on CUDA: against OpenMP's, and by the
// budget and the quality where ties made the patterns differ), then times the symbolic
// phase, the numeric phase and one preconditioner solve (L, then U or L^H, by SpTRSV) and the
// peer's setup and solve in the same run (Eigen's IncompleteLUT / IncompleteCholesky on the host). Both preconditioners'
// quality is reported as ||A M^-1 b - b|| / ||b||.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/spmv_bench.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/sparse/ilu.hpp"

namespace loom::bench {

struct IluBenchOptions {
    std::shared_ptr<const Executor> exec;
    sparse::IluOptions factorization;
    /// eigen (host; IncompleteLUT for ILU kinds, IncompleteCholesky for IC kinds).
    Peer peer = Peer::none;
    /// Also time cuSPARSE csrilu02 (sparse::IluAlgorithm::vendor; CUDA, ILU(0)), last: its
    /// failure is reported as "csrilu02: <status>" and the run goes on. A CUDA run then also
    /// times Loom's OpenMP ILU(0) numeric on the same machine, the fallback comparison.
    bool csrilu02 = false;
    int samples = 10;
    std::string a_name;
};

/// Runs the benchmark for a square A (on any executor), prints the report on stdout and
/// returns it as JSON. NumericalError when Loom's factors fail the check.
template <typename V, typename I>
nlohmann::ordered_json bench_ilu(const matrix::Csr<V, I>& A, const IluBenchOptions& options);

}  // namespace loom::bench
