// eigen-solvable: which matrices Eigen solves with its incomplete factorizations, default
// settings — the list issue 11's "Solving" target must meet (src/sparse/ilu/NOTES.md).
// Nonsymmetric (general) files: BiCGSTAB + IncompleteLUT; symmetric ones: CG +
// IncompleteCholesky. b = ones, x0 = 0, ||b - A x|| <= 1e-8 ||b||, at most 10000 iterations.
// Needs only Eigen (not built by CMake, nothing of Loom):
//   g++ -O2 -std=c++17 -I/usr/include/eigen3 tools/peers/eigen_solvable.cpp -o eigen-solvable
//   ./eigen-solvable ../shared/matrices/*.mtx
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Matrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// A Matrix Market coordinate file (real, integer or pattern; symmetric ones mirrored).
bool read_market(const std::string& path, Matrix& A, bool& symmetric)
{
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return false;
    symmetric = line.find("symmetric") != std::string::npos;
    const bool pattern = line.find("pattern") != std::string::npos;
    while (std::getline(in, line) && line[0] == '%') {}
    long rows = 0, cols = 0, entries = 0;
    std::istringstream(line) >> rows >> cols >> entries;
    std::vector<Eigen::Triplet<double>> triplets;
    for (long k = 0; k < entries; ++k) {
        long r = 0, c = 0;
        double v = 1;
        in >> r >> c;
        if (!pattern) in >> v;
        triplets.emplace_back(r - 1, c - 1, v);
        if (symmetric && r != c) triplets.emplace_back(c - 1, r - 1, v);
    }
    A.resize(rows, cols);
    A.setFromTriplets(triplets.begin(), triplets.end());
    return rows == cols;
}

template <typename Solver>
void report(const char* name, const char* method, const Matrix& A, Solver& solver)
{
    const auto start = std::chrono::steady_clock::now();
    solver.setTolerance(1e-8);
    solver.setMaxIterations(10000);
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(A.rows());
    solver.compute(A);
    Eigen::VectorXd x = solver.solve(b);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double residual = (b - A * x).norm() / b.norm();
    std::printf("%-14s %-24s %-8s its %5ld  true residual %.1e  %.3f s\n", name, method,
                solver.info() == Eigen::Success && residual <= 1e-8 ? "solves" : "FAILS",
                static_cast<long>(solver.iterations()), residual, seconds);
}

}  // namespace

int main(int argc, char** argv)
{
    for (int a = 1; a < argc; ++a) {
        std::string path = argv[a];
        std::string name = path.substr(path.find_last_of('/') + 1);
        name = name.substr(0, name.find(".mtx"));
        Matrix A;
        bool symmetric = false;
        if (!read_market(path, A, symmetric)) continue;
        if (symmetric) {
            Eigen::ConjugateGradient<Matrix, Eigen::Lower | Eigen::Upper,
                                     Eigen::IncompleteCholesky<double>> cg;
            report(name.c_str(), "cg+IncompleteCholesky", A, cg);
        } else {
            Eigen::BiCGSTAB<Matrix, Eigen::IncompleteLUT<double>> bicgstab;
            report(name.c_str(), "bicgstab+IncompleteLUT", A, bicgstab);
        }
    }
}
