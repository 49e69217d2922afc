#include <unistd.h>

#include <cstdio>
#include <limits>


#include "matrix/io/mtx.hpp"

namespace loom::matrix {
namespace io {
namespace {

/// The blank-separated words of a line.
std::vector<std::string_view> words(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_blank(line[i])) ++i;
        const auto start = i;
        while (i < line.size() && !is_blank(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

using loom::detail::equal_ignoring_case;

/// The enumerator whose banner word is `word`; fails at the banner line otherwise.
template <typename E>
E banner_word(LineReader& in, std::string_view word)
{
    const auto table = names_of(E{});
    if (const auto value = table.find(word)) return *value;
    in.fail(table.unknown(shown(word)));
}

void read_banner(LineReader& in, MtxHeader& header)
{
    std::string_view line;
    if (!in.next(line)) in.fail_at(1, "empty input, expected a %%MatrixMarket banner");
    // Lines that end in a bare '\r' (classic Mac) make the whole file one line.
    if (line.find('\r') != std::string_view::npos) {
        in.fail("the lines end in a bare carriage return ('\\r'); Matrix Market lines end in "
                "'\\n' (or \"\\r\\n\")");
    }
    const auto w = words(line);
    if (w.empty() || !equal_ignoring_case(w[0], "%%MatrixMarket")) {
        in.fail("expected a banner '%%MatrixMarket matrix <format> <field> <symmetry>', got '" +
                shown(line) + "'");
    }
    if (w.size() != 5) {
        in.fail("bad banner '" + shown(line) +
                "': expected '%%MatrixMarket matrix <format> <field> <symmetry>'");
    }
    if (!equal_ignoring_case(w[1], "matrix")) {
        in.fail("unsupported object '" + shown(w[1]) + "' (only 'matrix' is supported)");
    }
    const auto format = banner_word<MtxFormat>(in, w[2]);
    const auto field = banner_word<MtxField>(in, w[3]);
    const auto symmetry = banner_word<MtxSymmetry>(in, w[4]);
    if (format == MtxFormat::array && field == MtxField::pattern) {
        in.fail("an array file cannot have the field 'pattern'");
    }
    if (field == MtxField::pattern && symmetry == MtxSymmetry::skew_symmetric) {
        in.fail("a pattern file cannot be skew-symmetric (its mirrored entries need values)");
    }
    header.format = format;
    header.field = field;
    header.symmetry = symmetry;
}

/// n (n + 1) / 2 without overflowing when n * n just fits.
size_type triangle(size_type n)
{
    return n % 2 == 0 ? n / 2 * (n + 1) : (n + 1) / 2 * n;
}

/// Values an array file stores: the whole matrix or one triangle of it.
size_type array_entries(const MtxHeader& h)
{
    switch (h.symmetry) {
    case MtxSymmetry::general: return h.rows * h.cols;
    case MtxSymmetry::skew_symmetric: return triangle(h.rows - 1);
    default: return triangle(h.rows);
    }
}

void read_size_line(LineReader& in, MtxHeader& header)
{
    std::string_view line;
    do {
        if (!in.next(line)) in.fail_at(in.line_number() + 1, "missing size line");
    } while ((!line.empty() && line.front() == '%') || Tokens(line).done());

    const bool coordinate = header.format == MtxFormat::coordinate;
    const auto expected = coordinate ? "'rows cols entries'" : "'rows cols'";
    Tokens tokens(line);
    if (!tokens.integer(header.rows) || !tokens.integer(header.cols) ||
        (coordinate && !tokens.integer(header.entries)) || !tokens.done()) {
        in.fail("bad size line '" + shown(line) + "': expected " + expected);
    }
    if (header.rows < 0 || header.cols < 0 || header.entries < 0) {
        in.fail("bad size line '" + shown(line) + "': negative size");
    }
    if (header.cols > 0 && header.rows > std::numeric_limits<size_type>::max() / header.cols) {
        in.fail("bad size line '" + shown(line) + "': the matrix is too large");
    }
    if (header.symmetry != MtxSymmetry::general && header.rows != header.cols) {
        in.fail(std::string("a ") + to_string(header.symmetry) + " matrix must be square, got " +
                std::to_string(header.rows) + " x " + std::to_string(header.cols));
    }
    if (!coordinate) header.entries = array_entries(header);
    // Every entry needs at least one digit and a line break: refuse to allocate for entries
    // that a truncated or corrupt file cannot hold.
    const auto remaining = in.remaining_bytes();
    if (remaining >= 0 && header.entries > 0 && header.entries - 1 > remaining / 2) {
        in.fail("the size line declares " + std::to_string(header.entries) +
                " entries, but only " + std::to_string(remaining) + " bytes follow");
    }
}

}  // namespace

MtxHeader read_header(LineReader& in)
{
    MtxHeader header;
    read_banner(in, header);
    read_size_line(in, header);
    return header;
}

void check_fits_memory(const LineReader& in, double bytes, const std::string& what)
{
    const double memory =
        double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
    if (memory > 0 && bytes > memory) {
        char sizes[96];
        std::snprintf(sizes, sizeof sizes, " needs %.3g GB, more than the %.3g GB of memory",
                      bytes / 1e9, memory / 1e9);
        throw AllocationError(in.where(), in.name() + ": " + what + sizes + " of this machine");
    }
}

std::string banner(MtxFormat format, MtxField field, MtxSymmetry symmetry)
{
    return std::string("%%MatrixMarket matrix ") + to_string(format) + " " + to_string(field) + " " +
           to_string(symmetry);
}

}  // namespace io

MtxHeader read_mtx_header(const std::string& path)
{
    io::LineReader in("loom::matrix::read_mtx_header", path, io::LineReader::small_block);
    return io::read_header(in);
}

MtxHeader read_mtx_header(std::istream& in)
{
    io::LineReader reader("loom::matrix::read_mtx_header", in, io::LineReader::small_block);
    return io::read_header(reader);
}

}  // namespace loom::matrix
