// The definitions of SparseFormat's apply and what the formats' validations share: each
// format's source includes this and instantiates SparseFormat<Format<V, I>, V, I> next to the
// format (LOOM_INSTANTIATE_SPARSE_FORMAT).
#pragma once

#include "loom/base/error.hpp"
#include "loom/base/half.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sparse_format.hpp"
#include "loom/sparse/spmv.hpp"

/// A format's explicit instantiations, its SparseFormat base first:
/// LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE_ON(LOOM_INSTANTIATE_SPARSE_FORMAT, Csr).
#define LOOM_INSTANTIATE_SPARSE_FORMAT(Format, V, I) \
    template class SparseFormat<Format<V, I>, V, I>; \
    template class Format<V, I>;

namespace loom::matrix {

template <typename Derived, typename V, typename I>
void SparseFormat<Derived, V, I>::apply_impl(const Dense<V>& b, Dense<V>& x) const
{
    apply_impl(V{1}, b, V{0}, x);
}

template <typename Derived, typename V, typename I>
void SparseFormat<Derived, V, I>::apply_impl(V alpha, const Dense<V>& b, V beta, Dense<V>& x) const
{
    if constexpr (is_storage_only_v<V>) {
        // SpMV has no 16-bit kernels; sparse::spmm takes these with float scalars.
        throw NotSupported("loom::matrix::apply",
                           "a sparse matrix of a 16-bit storage type is applied by "
                           "loom::sparse::spmm (or converted to float first, "
                           "loom/matrix/precision.hpp)");
    } else {
        sparse::spmv(sparse::Mode::none, alpha, static_cast<const Derived&>(*this), b, beta, x);
    }
}

/// BadInput from `where` unless a format's col_idxs and values both hold `expected` slots, the
/// number `rule` names ("width * stride").
inline void check_slot_count(const char* where, size_type col_idxs, size_type values,
                             size_type expected, const char* rule)
{
    if (col_idxs != expected || values != expected) {
        throw BadInput(where, "col_idxs and values have " + std::to_string(col_idxs) + " and " +
                                  std::to_string(values) + " slots, expected " + rule + " = " +
                                  std::to_string(expected));
    }
}

/// OutOfRange from `where` unless the column index `col` stored in slot k of row r is a column
/// of a `cols`-column matrix or invalid_index (an unused slot of ELL and SELL-P).
template <typename I>
void check_slot_column(const char* where, I col, size_type k, size_type r, size_type cols)
{
    if (col != invalid_index && (col < 0 || col >= cols)) {
        throw OutOfRange(
            where, "column index of slot " + std::to_string(k) + " in row " + std::to_string(r),
            col, cols);
    }
}

}  // namespace loom::matrix
