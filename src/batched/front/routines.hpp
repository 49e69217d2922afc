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

/// Stores a routine's info for matrix b (for a pack: one per lane, the padding lanes beyond
/// count dropped). Every worker holds the same value, so every worker may store it.
template <typename Info>
LOOM_HOST_DEVICE LOOM_INLINE void store_info(int32* info, size_type b, size_type count,
                                             const Info& value)
{
    if (info == nullptr) return;
    if constexpr (std::is_same_v<Info, int>) {
        info[b] = value;
    } else {
        for (int l = 0; l < Info::width; ++l) {
            if (b * Info::width + l < count) info[b * Info::width + l] = value[l];
        }
    }
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

}  // namespace loom::batched::front
