// loom/loom.hpp is the whole public API: it compiles on its own and names every public header.
#include "loom/loom.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(PublicHeaders, LoomHppIncludesEveryPublicHeader)
{
    const std::filesystem::path include = std::filesystem::path(LOOM_SOURCE_DIR) / "include";
    std::ifstream file(include / "loom" / "loom.hpp");
    ASSERT_TRUE(file) << "cannot read loom/loom.hpp";
    std::stringstream text;
    text << file.rdbuf();
    for (const auto& entry : std::filesystem::recursive_directory_iterator(include / "loom")) {
        const auto name = entry.path().lexically_relative(include).generic_string();
        if (entry.path().extension() != ".hpp" || name == "loom/loom.hpp") continue;
        EXPECT_NE(text.str().find("#include \"" + name + "\""), std::string::npos)
            << name << " is missing from loom/loom.hpp";
    }
}

TEST(PublicHeaders, LoomHppGivesAWorkingLibrary)
{
    const auto exec = loom::ReferenceExecutor::create();
    const auto A = loom::matrix::Csr<double, loom::int32>::from_host(exec, {2, 2}, {0, 1, 2},
                                                                     {0, 1}, {2.0, 3.0});
    const auto x = loom::matrix::Dense<double>::from_host(exec, {2, 1}, {1.0, 1.0});
    loom::matrix::Dense<double> y(exec, {2, 1});
    loom::sparse::spmv(loom::sparse::Mode::none, 1.0, A, x, 0.0, y);
    EXPECT_EQ(y.to_host(), (std::vector<double>{2.0, 3.0}));
}

}  // namespace
