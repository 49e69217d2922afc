// A fixture for tests that run the `loom` program as a child process, as a user would, each
// in a temporary folder of its own.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/base/executor.hpp"
#include "loom/matrix/io.hpp"

namespace loom::test {

inline const std::string loom_program = LOOM_BINARY_DIR "/tools/loom/loom";

struct Outcome {
    int status = -1;
    std::string output;  ///< stdout and stderr together
};

/// What `loom bench` gave: how it ended, and its JSON report when it succeeded (else null).
struct BenchOutcome {
    Outcome run;
    nlohmann::json report;
};

class LoomProgram : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!std::filesystem::exists(loom_program)) {
            GTEST_SKIP() << "the loom program was not built";
        }
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = std::filesystem::temp_directory_path() /
               ("loom-cli-test-" + std::to_string(::getpid()) + "-" + test->test_suite_name() +
                "-" + test->name());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override
    {
        std::error_code ignored;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
    }

    /// Runs `loom args` in the test's folder; its output is a pipe, not a terminal.
    Outcome loom(const std::string& args) const
    {
        const auto command =
            "cd '" + dir_.string() + "' && '" + loom_program + "' " + args + " 2>&1";
        Outcome run;
        std::FILE* pipe = ::popen(command.c_str(), "r");
        if (pipe == nullptr) return run;
        char buffer[4096];
        std::size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
        const int status = ::pclose(pipe);
        run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return run;
    }

    /// Runs `loom bench args --json report.json` and reads the report it wrote.
    BenchOutcome bench(const std::string& args) const
    {
        BenchOutcome outcome{loom("bench " + args + " --json report.json"), {}};
        if (outcome.run.status == 0) outcome.report = nlohmann::json::parse(read("report.json"));
        return outcome;
    }

    /// The --exec of a test that times on the host: omp where built, else reference.
    static std::string host_exec() { return OmpExecutor::available() ? "omp" : "reference"; }

    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    void write(const std::string& name, const std::string& text) const
    {
        std::ofstream(path(name)) << text;
    }

    std::string read(const std::string& name) const
    {
        std::ifstream in(path(name));
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }

    /// The entries of a Matrix Market array file in the test's folder, row-major.
    template <typename V = double>
    std::vector<V> result(const std::string& name) const
    {
        return matrix::read_dense<V>(ReferenceExecutor::create(), path(name)).to_host();
    }

    /// The --exec names of the backends this build and machine have.
    static std::vector<std::string> execs()
    {
        std::vector<std::string> execs{"reference"};
        if (OmpExecutor::available()) execs.push_back("omp");
        if (CudaExecutor::available()) execs.push_back("cuda");
        return execs;
    }

    std::filesystem::path dir_;
};

}  // namespace loom::test
