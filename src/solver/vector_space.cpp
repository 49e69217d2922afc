#include "loom/solver/vector_space.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include "base/instantiate.hpp"
#include "loom/blas/vector.hpp"

namespace loom::solver {

// The plain space is the blas vector kernels one to one: the solvers keep the launches and
// host copies they had when they called blas:: themselves.

namespace {

/// The one coefficient of `alpha` when it is a single value in host memory: then the kernels
/// taking a value serve (the same numbers), and those are the fast ones on the host (a value
/// the compiler keeps in a register; a coefficient read from memory at every element, which
/// y may alias, kept blas::axpy from vectorizing: 29% of a GMRES(30) + ILU(0) solve).
template <typename V>
const V* host_value(const matrix::Dense<V>& alpha)
{
    return alpha.cols() == 1 && alpha.rows() == 1 && alpha.executor()->is_host() ? alpha.data()
                                                                                  : nullptr;
}

}  // namespace

template <typename V>
VectorSpace<V>::VectorSpace(std::shared_ptr<const Executor> exec, size_type rows)
    : exec_(std::move(exec)), rows_(rows)
{}

template <typename V>
auto VectorSpace<V>::create(size_type columns) const -> Vector
{
    return Vector(exec_, {rows_, columns});
}

template <typename V>
auto VectorSpace<V>::create_scalars(size_type count) const -> Vector
{
    return Vector(exec_, {1, count});
}

template <typename V>
void VectorSpace<V>::conj_dot(const Vector& x, const Vector& y, Vector& out) const
{
    blas::conj_dot(x, y, out);
}

template <typename V>
void VectorSpace<V>::finish_reductions(Vector&) const
{}

template <typename V>
void VectorSpace<V>::fill_random(Vector& x, std::uint64_t seed) const
{
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    const auto rows = x.size().rows;
    const auto cols = x.size().cols;
    std::vector<V> values(static_cast<std::size_t>(rows * cols));
    for (size_type i = 0; i < rows; ++i) {
        V value;
        if constexpr (is_complex_v<V>) {
            const double re = uniform(engine);
            value = V(re, uniform(engine));
        } else {
            value = static_cast<V>(uniform(engine));
        }
        std::fill_n(values.begin() + i * cols, cols, value);
    }
    const auto staged = Vector::from_host(exec_, x.size(), values);
    blas::copy(staged, x);
}

template <typename V>
void VectorSpace<V>::copy(const Vector& x, Vector& y) const
{
    blas::copy(x, y);
}

template <typename V>
void VectorSpace<V>::fill(Vector& x, V value) const
{
    blas::fill(x, value);
}

template <typename V>
void VectorSpace<V>::axpy(V alpha, const Vector& x, Vector& y) const
{
    blas::axpy(alpha, x, y);
}

template <typename V>
void VectorSpace<V>::axpy(const Vector& alpha, const Vector& x, Vector& y) const
{
    if (const V* a = host_value(alpha)) return blas::axpy(*a, x, y);
    blas::axpy(alpha, x, y);
}

template <typename V>
void VectorSpace<V>::axpy_quotient(const Vector& num, const Vector& den, const Vector& x, Vector& y,
                                   bool subtract) const
{
    blas::axpy_quotient(num, den, x, y, subtract);
}

template <typename V>
void VectorSpace<V>::axpby(V alpha, const Vector& x, V beta, Vector& y) const
{
    blas::axpby(alpha, x, beta, y);
}

template <typename V>
void VectorSpace<V>::axpby(const Vector& alpha, const Vector& x, const Vector& beta,
                           Vector& y) const
{
    const V* a = host_value(alpha);
    const V* b = host_value(beta);
    if (a && b) return blas::axpby(*a, x, *b, y);
    blas::axpby(alpha, x, beta, y);
}

template <typename V>
void VectorSpace<V>::scal(V alpha, Vector& x) const
{
    blas::scal(alpha, x);
}

template <typename V>
void VectorSpace<V>::scal(const Vector& alpha, Vector& x) const
{
    if (const V* a = host_value(alpha)) return blas::scal(*a, x);
    blas::scal(alpha, x);
}

template <typename V>
void VectorSpace<V>::conj_dot2(const Vector& x1, const Vector& y1, Vector& out1, const Vector& x2,
                               const Vector& y2, Vector& out2) const
{
    blas::conj_dot2(x1, y1, out1, x2, y2, out2);
}

template <typename V>
void VectorSpace<V>::multi_conj_dot(std::span<const Vector* const> x, const Vector& y,
                                    Vector& out) const
{
    blas::multi_conj_dot(x, y, out);
}

template <typename V>
void VectorSpace<V>::multi_axpy(const Vector& alpha, std::span<const Vector* const> x,
                                Vector& y) const
{
    blas::multi_axpy(alpha, x, y);
}

template <typename V>
void VectorSpace<V>::cg_residual_step(const blas::CgStepScalars<V>& s, const Vector& q,
                                      Vector& r) const
{
    blas::cg_residual_step(s, q, r);
}

template <typename V>
void VectorSpace<V>::cg_direction_step(const blas::CgStepScalars<V>& s, const Vector& z,
                                       Vector& p, Vector& x) const
{
    blas::cg_direction_step(s, z, p, x);
}

template <typename V>
void VectorSpace<V>::normalize(const Vector& squares, Vector& x) const
{
    blas::normalize(squares, x);
}

template <typename V>
void VectorSpace<V>::bicgstab_direction_step(const blas::BicgstabStepScalars<V>& s,
                                             const Vector& r, const Vector& v, Vector& p,
                                             Vector& r_tld) const
{
    blas::bicgstab_direction_step(s, r, v, p, r_tld);
}

template <typename V>
void VectorSpace<V>::bicgstab_half_step(const blas::BicgstabStepScalars<V>& s, const Vector& v,
                                        Vector& r) const
{
    blas::bicgstab_half_step(s, v, r);
}

template <typename V>
void VectorSpace<V>::bicgstab_final_step(const blas::BicgstabStepScalars<V>& s,
                                         const Vector& p_hat, const Vector& s_hat,
                                         const Vector& t, const Vector& r_tld, Vector& r,
                                         Vector& x) const
{
    blas::bicgstab_final_step(s, p_hat, s_hat, t, r_tld, r, x);
}

template <typename V>
auto VectorSpace<V>::create_compressed(size_type columns) const -> Compressed
{
    return Compressed(exec_, rows_ * columns);
}

template <typename V>
void VectorSpace<V>::compress(const Vector& x, Compressed& y) const
{
    blas::pack(x, y);
}

template <typename V>
void VectorSpace<V>::decompress(const Compressed& x, Vector& y) const
{
    blas::unpack(x, y);
}

#define LOOM_INSTANTIATE_VECTOR_SPACE(V) template class VectorSpace<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_VECTOR_SPACE)

}  // namespace loom::solver
