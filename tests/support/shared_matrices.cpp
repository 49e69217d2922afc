#include "support/shared_matrices.hpp"

#include <filesystem>

namespace loom::test {

std::string shared_matrix_folder() { return LOOM_SHARED_MATRICES; }

std::string shared_matrix_path(const std::string& name)
{
    return shared_matrix_folder() + "/" + name + ".mtx";
}

bool have_shared_matrices() { return std::filesystem::is_directory(shared_matrix_folder()); }

bool have_shared_matrix(const std::string& name)
{
    return std::filesystem::is_regular_file(shared_matrix_path(name));
}

std::string missing_shared_matrices()
{
    return "the shared matrices folder " + shared_matrix_folder() +
           " is missing (a clone without ../shared?); configure with "
           "-DLOOM_MATRIX_DIR=<folder of .mtx files> to run this test";
}

std::string missing_shared_matrix(const std::string& name)
{
    if (!have_shared_matrices()) return missing_shared_matrices();
    return "the shared matrix " + name + ".mtx is missing from " + shared_matrix_folder();
}

}  // namespace loom::test
