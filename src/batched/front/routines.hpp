// The front-level calls as functors over one matrix (or one SIMD pack) of a batch: what the
// OpenMP and CUDA drivers run for each league rank. A functor is called as
// f(mode, member, b, views...) by every worker of the team (once for Mode::Serial) and calls the
// batched routine of that mode; b is the matrix (for packs: the pack) whose pivots and info it
// owns. Host and device code alike; T is the device value type on CUDA.
#pragma once

#include <type_traits>

#include "loom/batched/routines.hpp"
#include "loom/launch/macros.hpp"

namespace loom::batched::front {

/// Routine::invoke with the member for team modes, without it for Serial.
template <typename ModeT, typename Routine, typename Member, typename... Args>
LOOM_HOST_DEVICE LOOM_INLINE auto invoke(const Member& member, const Args&... args)
{
    if constexpr (std::is_same_v<ModeT, Mode::Serial>) {
        return Routine::invoke(args...);
    } else {
        return Routine::invoke(member, args...);
    }
}

/// Stores a routine's result (an info, a dot product) for matrix b (for a pack: one per lane,
/// the padding lanes beyond count dropped). Every worker holds the same value, so every worker
/// may store it.
template <typename Out, typename Value>
LOOM_HOST_DEVICE LOOM_INLINE void store_result(Out* out, size_type b, size_type count,
                                               const Value& value)
{
    if (out == nullptr) return;
    if constexpr (!is_simd_v<Value>) {
        out[b] = value;
    } else {
        for (int l = 0; l < Value::width; ++l) {
            if (b * Value::width + l < count) out[b * Value::width + l] = value[l];
        }
    }
}
template <typename Info>
LOOM_HOST_DEVICE LOOM_INLINE void store_info(int32* info, size_type b, size_type count,
                                             const Info& value)
{
    store_result(info, b, count, value);
}

template <typename T, typename TA, typename TB>
struct GemmCall {
    T alpha;
    T beta;
    template <typename ModeT, typename Member, typename VA, typename VB, typename VC>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A, const VB& B,
                                     const VC& C) const
    {
        invoke<ModeT, Gemm<ModeT, TA, TB>>(m, alpha, A, B, beta, C);
    }
};

template <typename T, typename TA>
struct GemvCall {
    T alpha;
    T beta;
    template <typename ModeT, typename Member, typename VA, typename VX, typename VY>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A, const VX& x,
                                     const VY& y) const
    {
        invoke<ModeT, Gemv<ModeT, TA>>(m, alpha, A, x.col(0), beta, y.col(0));
    }
};

/// Triangular calls arrive as Side::Left (front::left_triangle).
template <typename T, typename UploT, typename TA, typename DiagT, bool solve>
struct TriangularCall {
    T alpha;
    template <typename ModeT, typename Member, typename VA, typename VB>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A,
                                     const VB& B) const
    {
        if constexpr (solve) {
            invoke<ModeT, Trsm<ModeT, Side::Left, UploT, TA, DiagT>>(m, alpha, A, B);
        } else {
            invoke<ModeT, Trmm<ModeT, Side::Left, UploT, TA, DiagT>>(m, alpha, A, B);
        }
    }
};

template <typename UploT, typename DiagT>
struct TrtriCall {
    int32* info;
    size_type count;
    template <typename ModeT, typename Member, typename VA>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A) const
    {
        store_info(info, b, count, invoke<ModeT, Trtri<ModeT, UploT, DiagT>>(m, A));
    }
};

struct GetrfCall {
    int32* pivots;
    int32* info;
    template <typename ModeT, typename Member, typename VA>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A) const
    {
        const VectorView<int> ipiv(pivots + b * A.rows(), A.rows());
        info[b] = invoke<ModeT, Getrf<ModeT, Pivot::Partial>>(m, A, ipiv);
    }
};

struct GetrfNoPivotCall {
    int32* info;
    size_type count;
    template <typename ModeT, typename Member, typename VA>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A) const
    {
        store_info(info, b, count, invoke<ModeT, Getrf<ModeT, Pivot::None>>(m, A));
    }
};

template <typename R>
struct AddRadialCall {
    R tiny;
    template <typename ModeT, typename Member, typename VA>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A) const
    {
        invoke<ModeT, AddRadial<ModeT>>(m, tiny, A);
    }
};

template <typename TA>
struct GetrsCall {
    const int32* pivots;
    template <typename ModeT, typename Member, typename VA, typename VB>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A,
                                     const VB& B) const
    {
        const VectorView<const int> ipiv(pivots + b * A.rows(), A.rows());
        invoke<ModeT, Getrs<ModeT, TA, Pivot::Partial>>(m, A, ipiv, B);
    }
};

struct GesvCall {
    int32* pivots;
    int32* info;
    template <typename ModeT, typename Member, typename VA, typename VB>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A,
                                     const VB& B) const
    {
        const VectorView<int> ipiv(pivots + b * A.rows(), A.rows());
        info[b] = invoke<ModeT, Gesv<ModeT, Pivot::Partial>>(m, A, ipiv, B);
    }
};

template <typename UploT>
struct PotrfCall {
    int32* info;
    size_type count;
    template <typename ModeT, typename Member, typename VA>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A) const
    {
        store_info(info, b, count, invoke<ModeT, Potrf<ModeT, UploT>>(m, A));
    }
};

template <typename UploT>
struct PotrsCall {
    template <typename ModeT, typename Member, typename VA, typename VB>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A,
                                     const VB& B) const
    {
        invoke<ModeT, Potrs<ModeT, UploT>>(m, A, B);
    }
};

struct QrCall {
    template <typename ModeT, typename Member, typename VA, typename VT>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A,
                                     const VT& tau) const
    {
        invoke<ModeT, QR<ModeT>>(m, A, tau.col(0));
    }
};

template <typename SideT, typename TransT>
struct ApplyQCall {
    template <typename ModeT, typename Member, typename VA, typename VT, typename VB>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A,
                                     const VT& tau, const VB& B) const
    {
        invoke<ModeT, ApplyQ<ModeT, SideT, TransT>>(m, A, tau.col(0), B);
    }
};

template <typename T, typename UploT, typename TA, typename DiagT>
struct TrsvCall {
    T alpha;
    template <typename ModeT, typename Member, typename VA, typename VX>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VA& A,
                                     const VX& x) const
    {
        invoke<ModeT, Trsv<ModeT, UploT, TA, DiagT>>(m, alpha, A, x.col(0));
    }
};

template <typename T, typename UploT, typename TransT>
struct SyrCall {
    T alpha;
    template <typename ModeT, typename Member, typename VX, typename VA>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VX& x,
                                     const VA& A) const
    {
        invoke<ModeT, Syr<ModeT, UploT, TransT>>(m, alpha, x.col(0), A);
    }
};

template <typename T>
struct AxpyCall {
    T alpha;
    template <typename ModeT, typename Member, typename VX, typename VY>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VX& x,
                                     const VY& y) const
    {
        invoke<ModeT, Axpy<ModeT>>(m, alpha, x, y);
    }
};

template <typename T>
struct ScaleCall {
    T alpha;
    template <typename ModeT, typename Member, typename VX>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type, const VX& x) const
    {
        invoke<ModeT, Scale<ModeT>>(m, alpha, x);
    }
};

/// Dot with Trans::Transpose (no conjugation) or Trans::ConjTranspose; one result per matrix.
template <typename T, typename TransT>
struct DotCall {
    T* result;
    size_type count;
    template <typename ModeT, typename Member, typename VX, typename VY>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VX& x,
                                     const VY& y) const
    {
        store_result(result, b, count, invoke<ModeT, Dot<ModeT, TransT>>(m, x.col(0), y.col(0)));
    }
};

template <typename R>
struct Nrm2Call {
    R* result;
    size_type count;
    template <typename ModeT, typename Member, typename VX>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VX& x) const
    {
        store_result(result, b, count, invoke<ModeT, Nrm2<ModeT>>(m, x.col(0)));
    }
};

/// work: an n x 1 scratch operand (staged on CUDA, never copied in or out).
struct InverseLuCall {
    const int32* pivots;
    int32* info;
    template <typename ModeT, typename Member, typename VA, typename VW>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A,
                                     const VW& work) const
    {
        const VectorView<const int> ipiv(pivots + b * A.rows(), A.rows());
        info[b] = invoke<ModeT, InverseLU<ModeT, Pivot::Partial>>(m, A, ipiv, work.col(0));
    }
};

struct InverseLuNoPivotCall {
    int32* info;
    size_type count;
    template <typename ModeT, typename Member, typename VA, typename VW>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A,
                                     const VW& work) const
    {
        store_info(info, b, count, invoke<ModeT, InverseLU<ModeT, Pivot::None>>(m, A, work.col(0)));
    }
};

/// jpiv: n per matrix; rank: one per matrix; work: a q x 1 scratch operand.
template <typename R>
struct UtvCall {
    int32* jpiv;
    int32* rank;
    R tol;
    template <typename ModeT, typename Member, typename VA, typename VU, typename VV, typename VW>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VA& A, const VU& U,
                                     const VV& V, const VW& work) const
    {
        const VectorView<int> p(jpiv + b * A.cols(), A.cols());
        rank[b] = invoke<ModeT, UTV<ModeT>>(m, A, p, U, V, work.col(0), tol);
    }
};

/// Banded LU of the n x n matrix in LAPACK band storage AB ((2 kl + ku + 1) x n).
struct GbtrfCall {
    int32* pivots;
    int32* info;
    int kl;
    int ku;
    template <typename ModeT, typename Member, typename VB>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VB& AB) const
    {
        const VectorView<int> ipiv(pivots + b * AB.cols(), AB.cols());
        info[b] = invoke<ModeT, Gbtrf<ModeT>>(m, AB, ipiv, kl, ku);
    }
};

template <typename TA>
struct GbtrsCall {
    const int32* pivots;
    int kl;
    int ku;
    template <typename ModeT, typename Member, typename VB, typename VX>
    LOOM_HOST_DEVICE void operator()(ModeT, const Member& m, size_type b, const VB& AB,
                                     const VX& B) const
    {
        const VectorView<const int> ipiv(pivots + b * AB.cols(), AB.cols());
        invoke<ModeT, Gbtrs<ModeT, TA>>(m, AB, ipiv, kl, ku, B);
    }
};

}  // namespace loom::batched::front
