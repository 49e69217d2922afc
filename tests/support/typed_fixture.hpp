// The fixture of the typed tests over (value, index) pairs (support/types.hpp): the pair's
// types and matrix formats, and the reference executor that answers are checked against.
// A fixture of its own derives from it and names what its helpers use:
//     using Base = loom::test::TypedFixture<T>;
//     using typename Base::V, typename Base::Csr;
// and its tests name the types with LOOM_TYPED_TEST_TYPES.
#pragma once

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "loom/matrix/coo.hpp"
#include "loom/matrix/csr.hpp"
#include "loom/matrix/dense.hpp"
#include "loom/matrix/ell.hpp"
#include "loom/matrix/sellp.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace loom::test {

template <typename T>
class TypedFixture : public ::testing::Test {
public:
    using V = typename T::value_type;
    using I = typename T::index_type;
    using Coo = matrix::Coo<V, I>;
    using Csr = matrix::Csr<V, I>;
    using Ell = matrix::Ell<V, I>;
    using Sellp = matrix::Sellp<V, I>;
    using Dense = matrix::Dense<V>;
    using Triplets = test::Triplets<V, I>;

    std::shared_ptr<const Executor> ref = reference();
};

}  // namespace loom::test

/// In a TYPED_TEST of a TypedFixture: the pair's value and index types and its CSR and Dense
/// types by their short names (V, I, Csr, Dense), instead of one alias line each per test.
#define LOOM_TYPED_TEST_TYPES                                          \
    using V [[maybe_unused]] = typename TestFixture::V;                \
    using I [[maybe_unused]] = typename TestFixture::I;                \
    using Csr [[maybe_unused]] = typename TestFixture::Csr;            \
    using Dense [[maybe_unused]] = typename TestFixture::Dense
