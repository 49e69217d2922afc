// Fast text input and output for the Matrix Market reader and writer: a line reader over
// large blocks (no iostreams per token, no allocation per line), std::from_chars /
// std::to_chars number conversion, and errors that name the file and the line.
#pragma once

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/base/types.hpp"

namespace loom::matrix::io {

struct FileCloser {
    void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

/// Opens `path` with fopen `mode`; IoError naming the path and the system's reason otherwise.
FilePtr open_file(const std::string& where, const std::string& path, const char* mode);

/// Hands out the lines of a file or stream one at a time, reading blocks of `block_bytes`.
class LineReader {
public:
    static constexpr std::size_t large_block = std::size_t{16} << 20;
    static constexpr std::size_t small_block = std::size_t{64} << 10;

    LineReader(std::string where, const std::string& path, std::size_t block_bytes);
    LineReader(std::string where, std::istream& in, std::size_t block_bytes);

    /// The next line without its '\n' or "\r\n" (Windows line ends are accepted); false at
    /// the end of the input. A UTF-8 byte order mark before the first line is skipped: editors
    /// add it, and it would otherwise hide the banner behind bytes a message cannot show.
    bool next(std::string_view& line);
    /// Whether the line last returned ended with a line break. Only the last line of the
    /// input can lack one, which a file cut off inside its last number does.
    bool line_terminated() const noexcept { return terminated_; }
    /// Number of the line last returned by next(), counting from 1.
    size_type line_number() const noexcept { return line_; }
    /// Bytes not yet returned as lines, or -1 for a stream of unknown length.
    size_type remaining_bytes() const noexcept;

    const std::string& where() const noexcept { return where_; }
    /// The path, or "<stream>".
    const std::string& name() const noexcept { return name_; }
    /// BadInput "where: name:line: what" for the line last returned.
    [[noreturn]] void fail(const std::string& what) const { fail_at(line_, what); }
    [[noreturn]] void fail_at(size_type line, const std::string& what) const;

private:
    /// Reads more input behind the unconsumed bytes; false when there is none left.
    bool refill();
    std::size_t read_some(char* dst, std::size_t bytes);

    std::string where_;
    std::string name_;
    FilePtr file_;
    std::istream* stream_ = nullptr;
    std::vector<char> buffer_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
    bool eof_ = false;
    size_type line_ = 0;
    bool terminated_ = true;
    size_type total_bytes_ = -1;
    size_type consumed_bytes_ = 0;
};

inline bool is_blank(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

/// Input text for a message: control characters escaped ("\\r", "\\x01"), and cut after
/// `limit` characters with "..." so that a huge line echoes in bounded form.
std::string shown(std::string_view text, std::size_t limit = 60);

/// A cursor over one line, for reading whitespace-separated numbers.
class Tokens {
public:
    explicit Tokens(std::string_view line) noexcept
        : p_(line.data()), end_(line.data() + line.size())
    {}

    /// True when only blanks remain.
    bool done() noexcept
    {
        skip_blanks();
        return p_ == end_;
    }

    /// The next token as an integer; false when there is none or it is not an integer.
    template <typename T>
    bool integer(T& out) noexcept
    {
        const char* first = start_of_number();
        const auto [ptr, ec] = std::from_chars(first, end_, out);
        return finish_token(ptr, ec == std::errc{});
    }

    /// The next token as a floating-point number (decimal or exponent form, inf, nan).
    template <typename R>
    bool real(R& out) noexcept
    {
        const char* first = start_of_number();
        auto [ptr, ec] = std::from_chars(first, end_, out);
        if (ec == std::errc::result_out_of_range) {
            // from_chars leaves out untouched on underflow / overflow: strtod rounds to
            // zero, a denormal or infinity, as a text reader should.
            out = out_of_range_value<R>(first, ptr);
            ec = std::errc{};
        }
        return finish_token(ptr, ec == std::errc{});
    }

    /// The rest of the line, for messages.
    std::string_view rest() const noexcept { return {p_, static_cast<std::size_t>(end_ - p_)}; }

private:
    void skip_blanks() noexcept
    {
        while (p_ != end_ && is_blank(*p_)) ++p_;
    }
    /// Skips blanks and a leading '+', which from_chars does not accept.
    const char* start_of_number() noexcept
    {
        skip_blanks();
        const bool plus = p_ != end_ && *p_ == '+' && p_ + 1 != end_ && p_[1] != '-';
        return plus ? p_ + 1 : p_;
    }
    /// A number must end at a blank or the end of the line ("1.5x" is not a number).
    bool finish_token(const char* ptr, bool ok) noexcept
    {
        if (!ok || (ptr != end_ && !is_blank(*ptr))) return false;
        p_ = ptr;
        return true;
    }
    template <typename R>
    static R out_of_range_value(const char* first, const char* last)
    {
        const std::string token(first, last);
        if constexpr (std::is_same_v<R, float>) {
            return std::strtof(token.c_str(), nullptr);
        } else {
            return std::strtod(token.c_str(), nullptr);
        }
    }

    const char* p_;
    const char* end_;
};

/// Buffered text output to a file or a stream; numbers through std::to_chars.
class TextWriter {
public:
    TextWriter(std::string where, const std::string& path);
    TextWriter(std::string where, std::ostream& out);
    TextWriter(const TextWriter&) = delete;
    TextWriter& operator=(const TextWriter&) = delete;

    void text(std::string_view s)
    {
        reserve(s.size());
        for (char c : s) buffer_[used_++] = c;
    }
    void put(char c)
    {
        reserve(1);
        buffer_[used_++] = c;
    }
    void integer(size_type value)
    {
        reserve(max_number_chars);
        used_ = static_cast<std::size_t>(
            std::to_chars(buffer_.data() + used_, buffer_.data() + buffer_.size(), value).ptr -
            buffer_.data());
    }
    /// The shortest text that reads back to exactly `value`.
    template <typename R>
    void real(R value)
    {
        reserve(max_number_chars);
        used_ = static_cast<std::size_t>(
            std::to_chars(buffer_.data() + used_, buffer_.data() + buffer_.size(), value).ptr -
            buffer_.data());
    }
    /// Flushes and reports any write error as IoError. Without it (after an exception) the
    /// rest of the buffer is dropped.
    void finish();

private:
    static constexpr std::size_t max_number_chars = 64;
    void reserve(std::size_t bytes)
    {
        if (buffer_.size() - used_ < bytes) flush();
        if (buffer_.size() - used_ < bytes) buffer_.resize(used_ + bytes);
    }
    void flush();

    std::string where_;
    std::string name_;
    FilePtr file_;
    std::ostream* stream_ = nullptr;
    std::vector<char> buffer_;
    std::size_t used_ = 0;
};

}  // namespace loom::matrix::io
