// Where the tests find the shared Matrix Market files, and a clean skip where they are missing.
// The folder lives beside the checkout (../shared/matrices), so a plain clone has none; CMake
// passes it as LOOM_SHARED_MATRICES (the cache variable LOOM_MATRIX_DIR moves it).
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace loom::test {

/// The folder of the shared matrices, whether or not it exists.
std::string shared_matrix_folder();

/// "<folder>/<name>.mtx", whether or not it exists.
std::string shared_matrix_path(const std::string& name);

bool have_shared_matrices();
bool have_shared_matrix(const std::string& name);

/// Why a test skipped: what is missing, and how to point the tests at the matrices.
std::string missing_shared_matrices();
std::string missing_shared_matrix(const std::string& name);

}  // namespace loom::test

/// Skips the current test (call in its body or SetUp) when the shared folder is missing.
#define LOOM_SKIP_WITHOUT_SHARED_MATRICES()    \
    if (!::loom::test::have_shared_matrices()) \
    GTEST_SKIP() << ::loom::test::missing_shared_matrices()

/// Skips the current test when the shared matrix `name` (no .mtx) is missing.
#define LOOM_SKIP_WITHOUT_SHARED_MATRIX(name)    \
    if (!::loom::test::have_shared_matrix(name)) \
    GTEST_SKIP() << ::loom::test::missing_shared_matrix(name)
