#include "matrix/io/text.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <istream>
#include <ostream>

namespace loom::matrix::io {

FilePtr open_file(const std::string& where, const std::string& path, const char* mode)
{
    FilePtr file(std::fopen(path.c_str(), mode));
    if (!file) {
        throw IoError(where, "cannot open '" + path + "': " + std::strerror(errno));
    }
    return file;
}

LineReader::LineReader(std::string where, const std::string& path, std::size_t block_bytes)
    : where_(std::move(where)), name_(path), file_(open_file(where_, path, "rb"))
{
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (!ec) {
        total_bytes_ = static_cast<size_type>(bytes);
        // Small files get a small buffer; the block size is only an upper bound.
        block_bytes = std::min<std::size_t>(block_bytes, std::max<std::size_t>(bytes + 1, 4096));
    }
    buffer_.resize(block_bytes);
}

LineReader::LineReader(std::string where, std::istream& in, std::size_t block_bytes)
    : where_(std::move(where)), name_("<stream>"), stream_(&in)
{
    buffer_.resize(std::min<std::size_t>(block_bytes, small_block));
}

size_type LineReader::remaining_bytes() const noexcept
{
    return total_bytes_ < 0 ? -1 : total_bytes_ - consumed_bytes_;
}

void LineReader::fail_at(size_type line, const std::string& what) const
{
    throw BadInput(where_, name_ + ":" + std::to_string(line) + ": " + what);
}

std::size_t LineReader::read_some(char* dst, std::size_t bytes)
{
    if (file_) {
        const auto got = std::fread(dst, 1, bytes, file_.get());
        if (got < bytes && std::ferror(file_.get())) {
            throw IoError(where_, "error reading '" + name_ + "': " + std::strerror(errno));
        }
        return got;
    }
    stream_->read(dst, static_cast<std::streamsize>(bytes));
    if (stream_->bad()) throw IoError(where_, "error reading " + name_);
    return static_cast<std::size_t>(stream_->gcount());
}

bool LineReader::refill()
{
    if (eof_) return false;
    const auto pending = end_ - begin_;
    if (begin_ > 0) {
        std::memmove(buffer_.data(), buffer_.data() + begin_, pending);
        begin_ = 0;
        end_ = pending;
    }
    if (end_ == buffer_.size()) buffer_.resize(2 * buffer_.size());  // a very long line
    const auto got = read_some(buffer_.data() + end_, buffer_.size() - end_);
    if (got == 0) {
        eof_ = true;
        return false;
    }
    end_ += got;
    return true;
}

namespace {

/// The line without the '\r' of a "\r\n" line end.
std::string_view without_carriage_return(std::string_view line)
{
    return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

}  // namespace

std::string shown(std::string_view text, std::size_t limit)
{
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (out.size() >= limit) {
            out += "...";
            break;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

bool LineReader::next(std::string_view& line)
{
    if (line_ == 0) {
        while (end_ - begin_ < utf8_bom.size() && refill()) {
        }
        if (std::string_view(buffer_.data() + begin_, end_ - begin_).starts_with(utf8_bom)) {
            begin_ += utf8_bom.size();
            consumed_bytes_ += static_cast<size_type>(utf8_bom.size());
        }
    }
    for (;;) {
        const char* start = buffer_.data() + begin_;
        const auto available = end_ - begin_;
        if (const void* newline = std::memchr(start, '\n', available)) {
            const auto length = static_cast<std::size_t>(static_cast<const char*>(newline) - start);
            line = without_carriage_return({start, length});
            terminated_ = true;
            begin_ += length + 1;
            consumed_bytes_ += static_cast<size_type>(length + 1);
            ++line_;
            return true;
        }
        if (!refill()) break;
    }
    if (begin_ == end_) return false;
    // The last line has no '\n'.
    line = without_carriage_return({buffer_.data() + begin_, end_ - begin_});
    terminated_ = false;
    consumed_bytes_ += static_cast<size_type>(end_ - begin_);
    begin_ = end_;
    ++line_;
    return true;
}

TextWriter::TextWriter(std::string where, const std::string& path)
    : where_(std::move(where)), name_(path), file_(open_file(where_, path, "wb"))
{
    buffer_.resize(std::size_t{1} << 20);
}

TextWriter::TextWriter(std::string where, std::ostream& out)
    : where_(std::move(where)), name_("<stream>"), stream_(&out)
{
    buffer_.resize(std::size_t{1} << 16);
}

void TextWriter::flush()
{
    if (used_ == 0) return;
    if (file_) {
        if (std::fwrite(buffer_.data(), 1, used_, file_.get()) != used_) {
            throw IoError(where_, "error writing '" + name_ + "': " + std::strerror(errno));
        }
    } else {
        stream_->write(buffer_.data(), static_cast<std::streamsize>(used_));
        if (!*stream_) throw IoError(where_, "error writing " + name_);
    }
    used_ = 0;
}

void TextWriter::finish()
{
    flush();
    // fclose reports the errors of the last, buffered write.
    if (file_ && std::fclose(file_.release()) != 0) {
        throw IoError(where_, "error writing '" + name_ + "': " + std::strerror(errno));
    }
    if (stream_) stream_->flush();
}

}  // namespace loom::matrix::io
