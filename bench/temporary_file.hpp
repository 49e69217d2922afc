// A uniquely named file in the temporary folder, removed when it goes out of scope.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

namespace loom::bench {

class TemporaryFile {
public:
    /// "<tmp>/loom-<pid>-<counter><suffix>"; the file is not created.
    explicit TemporaryFile(const std::string& suffix)
        : path_(std::filesystem::temp_directory_path() /
                ("loom-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++) + suffix))
    {}
    ~TemporaryFile()
    {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    std::string string() const { return path_.string(); }

private:
    static int& counter()
    {
        static int next = 0;
        return next;
    }
    std::filesystem::path path_;
};

}  // namespace loom::bench
