// What the whole-matrix dense BLAS/LAPACK tests run on: every executor with Loom's kernels,
// with the automatic choice and with the vendor library where this build has one.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "loom/blas/types.hpp"
#include "loom/config.hpp"
#include "support/executors.hpp"
#include "support/random.hpp"

namespace loom::test {

struct DenseTarget {
    std::shared_ptr<const Executor> exec;
    blas::Backend backend;
    std::string name() const { return exec->name() + "/" + blas::to_string(backend); }
};

inline std::vector<DenseTarget> dense_targets()
{
    std::vector<DenseTarget> result{{reference(), blas::Backend::native}};
    for (const auto& exec : backends()) {
        result.push_back({exec, blas::Backend::native});
        result.push_back({exec, blas::Backend::automatic});
        if (exec->kind() == ExecKind::cuda || LOOM_HAS_BLAS) {
            result.push_back({exec, blas::Backend::vendor});
        }
    }
    return result;
}

/// The relative error of actual against expected (infinite when the sizes differ), for
/// EXPECT_LE with a message.
template <typename V>
double error_of(const std::vector<V>& actual, const std::vector<V>& expected)
{
    if (actual.size() != expected.size()) return std::numeric_limits<double>::infinity();
    return relative_error(actual, expected);
}

}  // namespace loom::test
