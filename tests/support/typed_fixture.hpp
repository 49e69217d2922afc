// The fixture of the typed tests over (value, index) pairs (support/types.hpp): the pair's
// types and matrix formats, and the reference executor that answers are checked against.
// A fixture of its own derives from it and names what its helpers use:
//     using Base = loom::test::TypedFixture<T>;
//     using typename Base::V, typename Base::Csr;
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
