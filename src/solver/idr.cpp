#include "loom/solver/idr.hpp"

#include <algorithm>
#include <cmath>

#include "base/instantiate.hpp"
#include "solver/state.hpp"

namespace loom::solver {
namespace {

/// The safeguard of the dimension reduction step: omega is enlarged until the angle
/// between t = A M r and r has cosine at least kappa.
constexpr double kappa = 0.7;

// Scalar slots: f_0..f_{s-1} (P^H r), m_0..m_{s-1} (a column of P^H G), c_0..c_{s-1} and
// -c_0..-c_{s-1}, then these.
enum Fixed : int { dot_fixed, neg_alpha_fixed, beta_fixed, neg_beta_fixed, omega_fixed,
                   neg_omega_fixed, tt_fixed, tr_fixed, rr_fixed, fixed_count };
// Vectors: these, then P_0..P_{s-1}, G_0..G_{s-1}, U_0..U_{s-1}.
enum Vector : int { r_vec, v_vec, t_vec, v_hat_vec, basis_vec };

/// Per right-hand side on the host: f (s), c (s), the s x s matrix P^H G (column-major),
/// omega.
template <typename V>
class Small {
public:
    static size_type values_per_column(size_type s) { return 2 * s + s * s + 1; }

    Small(std::span<V> storage, size_type s, size_type column)
        : data_(storage.data() + column * values_per_column(s)), s_(s)
    {}

    V& f(size_type i) { return data_[i]; }
    V& c(size_type i) { return data_[s_ + i]; }
    V& m(size_type i, size_type j) { return data_[2 * s_ + j * s_ + i]; }
    V& omega() { return data_[2 * s_ + s_ * s_]; }

    /// c(k:s) = M(k:s, k:s)^-1 f(k:s), M lower triangular there (its diagonal non-zero).
    void solve_lower(size_type k)
    {
        for (size_type i = k; i < s_; ++i) {
            V sum = f(i);
            for (size_type l = k; l < i; ++l) sum -= m(i, l) * c(l);
            c(i) = sum / m(i, i);
        }
    }

private:
    V* data_;
    size_type s_;
};

}  // namespace

template <typename V>
Idr<V>::Idr(std::shared_ptr<const Executor> exec, std::shared_ptr<const LinOp<V>> system,
            const IdrParameters<V>& params)
    : EnableIterativeSolver<Idr<V>, V, IdrParameters<V>>(std::move(exec), std::move(system),
                                                         params),
      s_(std::min(params.subspace_dim,
                  std::max<size_type>(this->vector_space()->global_rows(), 1)))
{
    if (params.subspace_dim < 1) {
        throw BadInput("loom::solver::idr", "subspace_dim must be at least 1, got " +
                                                std::to_string(params.subspace_dim));
    }
}

template <typename V>
void Idr<V>::solve(const matrix::Dense<V>& b, matrix::Dense<V>& x) const
{
    // References, not a structured binding: the lambdas below use them, and clang 14 (the
    // fuzz build) cannot capture a binding.
    const auto parts = detail::begin_solve(
        *this, this->state(b.cols(), {static_cast<int>(basis_vec + 3 * s_),
                                      static_cast<int>(4 * s_ + fixed_count),
                                      Small<V>::values_per_column(s_)}));
    auto& st = parts.st;
    [[maybe_unused]] const auto& A = parts.A;
    [[maybe_unused]] const auto* M = parts.M;
    [[maybe_unused]] const auto& space = parts.space;
    [[maybe_unused]] auto& s = parts.s;
    const auto ns = s_;
    const int S = static_cast<int>(ns);
    auto& r = st.vector(r_vec);
    auto& v = st.vector(v_vec);
    auto& t = st.vector(t_vec);
    auto& v_hat = M ? st.vector(v_hat_vec) : v;
    auto P = [&](int i) -> matrix::Dense<V>& { return st.vector(basis_vec + i); };
    auto G = [&](int i) -> matrix::Dense<V>& { return st.vector(basis_vec + S + i); };
    auto U = [&](int i) -> matrix::Dense<V>& { return st.vector(basis_vec + 2 * S + i); };
    const int f_slot = 0, m_slot = S, c_slot = 2 * S, neg_c_slot = 3 * S, fixed = 4 * S;
    const int dot_slot = fixed + dot_fixed, neg_alpha_slot = fixed + neg_alpha_fixed,
              beta_slot = fixed + beta_fixed, omega_slot = fixed + omega_fixed,
              tt_slot = fixed + tt_fixed, rr_slot = fixed + rr_fixed;
    const auto k = st.columns();
    auto small = [&](size_type j) { return Small<V>(st.host_values(), ns, j); };

    if (st.start(A, b, x, r)) return;

    // The shadow space: random, then orthonormal (modified Gram-Schmidt).
    for (int i = 0; i < S; ++i) {
        auto& p = P(i);
        space.fill_random(p, this->parameters().seed + static_cast<std::uint64_t>(i));
        for (int l = 0; l < i; ++l) {
            s.conj_dot(dot_slot, P(l), p);
            s.finish(dot_slot);
            s.negate(dot_slot);
            space.axpy(s[dot_slot], P(l), p);
        }
        s.conj_dot(dot_slot, p, p);
        s.fetch(dot_slot);
        for (size_type j = 0; j < k; ++j) {
            s.host(dot_slot, j) = static_cast<V>(1 / detail::norm_from_square(s.host(dot_slot, j)));
        }
        s.push(dot_slot);
        s.scal(dot_slot, p);
        space.fill(G(i), V{0});
        space.fill(U(i), V{0});
    }
    for (size_type j = 0; j < k; ++j) {
        auto q = small(j);
        for (size_type a = 0; a < ns; ++a) {
            for (size_type c = 0; c < ns; ++c) q.m(a, c) = a == c ? V{1} : V{0};
        }
        q.omega() = V{1};
    }

    // Sets the step coefficient pair (beta, -beta) or (omega, -omega) of each column to
    // `value(j)` (0 for a stopped column) and pushes it.
    auto set_pair = [&](int slot, auto&& value) {
        for (size_type j = 0; j < k; ++j) {
            const V c = st.running(j) ? value(j) : V{0};
            s.host(slot, j) = c;
            s.host(slot + 1, j) = -c;
        }
        s.push(slot, 2);
    };
    auto residual_norms = [&]() {
        s.conj_dot(rr_slot, r, r);
        s.fetch(rr_slot);
        st.set_norms_from_squares(rr_slot);
    };

    size_type it = 0;
    for (;;) {
        for (int i = 0; i < S; ++i) s.conj_dot(f_slot + i, P(i), r);
        s.fetch(f_slot, S);
        for (size_type j = 0; j < k; ++j) {
            auto q = small(j);
            for (size_type i = 0; i < ns; ++i) q.f(i) = s.host(f_slot + static_cast<int>(i), j);
        }
        for (int kk = 0; kk < S; ++kk) {
            ++it;
            const auto uk = static_cast<size_type>(kk);
            // c = M(k:s, k:s)^-1 f(k:s); v = r - G c; U_k = omega M v + U c.
            for (size_type j = 0; j < k; ++j) {
                auto q = small(j);
                if (st.running(j)) q.solve_lower(uk);
                for (int i = 0; i < S; ++i) {
                    const V c = st.running(j) && i >= kk ? q.c(static_cast<size_type>(i)) : V{0};
                    s.host(c_slot + i, j) = c;
                    s.host(neg_c_slot + i, j) = -c;
                }
                s.host(omega_slot, j) = st.running(j) ? q.omega() : V{0};
            }
            s.push(c_slot, 2 * S);
            s.push(omega_slot);
            space.copy(r, v);
            for (int i = kk; i < S; ++i) s.axpy(neg_c_slot + i, G(i), v);
            if (M) M->apply(v, v_hat);
            s.axpby(omega_slot, v_hat, c_slot + kk, U(kk));
            for (int i = kk + 1; i < S; ++i) s.axpy(c_slot + i, U(i), U(kk));
            A.apply(U(kk), G(kk));
            // G_k orthogonal to P_0..P_{k-1}.
            for (int i = 0; i < kk; ++i) {
                s.conj_dot(dot_slot, P(i), G(kk));
                s.fetch(dot_slot);
                for (size_type j = 0; j < k; ++j) {
                    const V alpha = st.coefficient(j, s.host(dot_slot, j),
                                                   small(j).m(static_cast<size_type>(i),
                                                              static_cast<size_type>(i)),
                                                   "alpha", "P^H G", it);
                    s.host(neg_alpha_slot, j) = -alpha;
                }
                s.push(neg_alpha_slot);
                s.axpy(neg_alpha_slot, G(i), G(kk));
                s.axpy(neg_alpha_slot, U(i), U(kk));
            }
            for (int i = kk; i < S; ++i) s.conj_dot(m_slot + i, P(i), G(kk));
            s.fetch(m_slot + kk, S - kk);
            set_pair(beta_slot, [&](size_type j) {
                auto q = small(j);
                for (int i = kk; i < S; ++i) {
                    q.m(static_cast<size_type>(i), uk) = s.host(m_slot + i, j);
                }
                return st.coefficient(j, q.f(uk), q.m(uk, uk), "beta", "P^H A u", it);
            });
            if (st.all_stopped()) return;
            s.axpy(beta_slot + 1, G(kk), r);
            s.axpy(beta_slot, U(kk), x);
            for (size_type j = 0; j < k; ++j) {
                auto q = small(j);
                for (size_type i = uk + 1; i < ns; ++i) {
                    q.f(i) -= s.host(beta_slot, j) * q.m(i, uk);
                }
            }
            residual_norms();
            if (st.check(it, &x)) return;
        }

        // Dimension reduction: x += omega M r, r -= omega A M r.
        ++it;
        if (M) M->apply(r, v_hat);
        A.apply(M ? v_hat : r, t);
        s.conj_dot(tt_slot, t, t);
        s.conj_dot(tt_slot + 1, t, r);
        s.conj_dot(tt_slot + 2, r, r);
        s.fetch(tt_slot, 3);
        set_pair(omega_slot, [&](size_type j) {
            const V tt = s.host(tt_slot, j);
            const V tr = s.host(tt_slot + 1, j);
            V omega = st.coefficient(j, tr, tt, "omega", "t^H t", it);
            const double norms = detail::norm_from_square(tt) *
                                 detail::norm_from_square(s.host(tt_slot + 2, j));
            const double cosine = norms > 0 ? std::abs(tr) / norms : 0.0;
            if (cosine > 0 && cosine < kappa) omega *= static_cast<V>(kappa / cosine);
            if (st.running(j) && omega == V{0}) {
                st.stop(j, stop::Reason::breakdown, "omega", it);
            }
            small(j).omega() = omega;
            return omega;
        });
        if (st.all_stopped()) return;
        s.axpy(omega_slot, M ? v_hat : r, x);  // before r changes: v_hat may be r
        s.axpy(omega_slot + 1, t, r);
        residual_norms();
        if (st.check(it, &x)) return;
    }
}

#define LOOM_INSTANTIATE_IDR(V) template class Idr<V>;
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_IDR)

}  // namespace loom::solver
