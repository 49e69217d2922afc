#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "loom/base/error.hpp"

namespace loom::cli {
namespace {

constexpr const char* where = "loom";

[[noreturn]] void fail(const std::string& what, const std::string& path)
{
    throw IoError(where, "cannot write '" + path + "': " + what);
}

/// Whether path names something other than a regular file: written in place.
bool is_special(const std::string& path)
{
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
}

/// The mode the target gets: an existing file's, else what a plain create gives (0666 less
/// the umask), not mkstemp's 0600.
mode_t target_mode(const std::string& target)
{
    struct stat info {};
    if (::stat(target.c_str(), &info) == 0) return info.st_mode & 07777;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

/// Flushes the file's data to the disk: a rename must not outrun the data it publishes.
void sync_to_disk(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) fail(std::strerror(errno), path);
    const bool synced = ::fsync(fd) == 0;
    const int saved = errno;
    ::close(fd);
    if (!synced) fail(std::strerror(saved), path);
}

/// A new empty file next to target, named after it ("x.mtx.tmp-AbC123").
std::string temporary_next_to(const std::string& target)
{
    std::string name = target + ".tmp-XXXXXX";
    std::vector<char> buffer(name.begin(), name.end());
    buffer.push_back('\0');
    const int fd = ::mkstemp(buffer.data());
    if (fd < 0) fail(std::strerror(errno), target);
    ::close(fd);
    return buffer.data();
}

}  // namespace

void write_output(const std::string& target, const std::function<void(const std::string&)>& fill)
{
    if (is_special(target)) {
        fill(target);
        return;
    }
    const auto temporary = temporary_next_to(target);
    try {
        fill(temporary);
        sync_to_disk(temporary);
        if (::chmod(temporary.c_str(), target_mode(target)) != 0 ||
            std::rename(temporary.c_str(), target.c_str()) != 0) {
            fail(std::strerror(errno), target);
        }
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw;
    }
}

void write_text_output(const std::string& target, std::string_view text)
{
    write_output(target, [&](const std::string& path) {
        std::FILE* file = std::fopen(path.c_str(), "wb");
        if (file == nullptr) fail(std::strerror(errno), path);
        const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() &&
                             std::fflush(file) == 0;
        const int saved = errno;
        // fclose reports the errors of the last, buffered write.
        if (std::fclose(file) != 0 || !written) fail(std::strerror(written ? errno : saved), path);
    });
}

}  // namespace loom::cli
