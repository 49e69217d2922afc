// y = A * ones for the 3D Poisson matrix on a 50^3 grid, on the OpenMP backend, and its norm.
#include <cstdio>

#include "loom/blas/vector.hpp"
#include "loom/matrix/generate.hpp"
#include "loom/sparse/spmv.hpp"

int main()
{
    using namespace loom;
    const auto exec = OmpExecutor::create();

    const auto A = matrix::poisson3d<double>(exec, 50);  // 125000 x 125000, 7-point stencil
    matrix::Dense<double> x(exec, {A.cols(), 1});
    matrix::Dense<double> y(exec, {A.rows(), 1});
    x.fill(1.0);

    sparse::spmv(sparse::Mode::none, 1.0, A, x, 0.0, y);  // y = 1 * A * x + 0 * y

    matrix::Dense<double> norm(exec, {1, 1});
    blas::nrm2(y, norm);
    std::printf("||A * ones|| = %.4f\n", norm.to_host()[0]);
}
