// Configs that fuzzing (fuzz/, fuzz_config) found from_config to mishandle. Each input is also
// in the seed corpus, fuzz/corpus/config/regression-*.
#include <gtest/gtest.h>

#include "loom/base/error.hpp"
#include "loom/solver/config.hpp"
#include "support/executors.hpp"
#include "support/types.hpp"

namespace {

using namespace loom;

using Value = std::tuple_element_t<0, test::value_tuple>;

TEST(ConfigFuzzFindings, ANumberBeyondDoubleIsBadInput)
{
    // nlohmann::json's out_of_range escaped from_config: not a loom::Error.
    EXPECT_THROW(solver::from_config<Value>(
                     R"({"solver": "cg", "criteria": {"relative_residual": 1e400}})",
                     test::reference()),
                 BadInput);
}

}  // namespace
