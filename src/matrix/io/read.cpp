// Matrix Market reading: one pass over the text into host triplets (symmetric files expanded
// on the fly), then CSR by counting and scattering, and a single copy to the executor.
#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include "base/instantiate.hpp"
#include "matrix/io/mtx.hpp"

namespace loom::matrix {
namespace io {
namespace {

void check_executor(const std::string& where, const std::shared_ptr<const Executor>& exec)
{
    if (!exec) throw BadInput(where, "no executor given");
}

template <typename V>
void check_value_type(const LineReader& in, const MtxHeader& h)
{
    if (h.field == MtxField::complex && !is_complex_v<V>) {
        in.fail_at(1, std::string("a complex matrix cannot be read into the real type ") +
                          type_name<V>());
    }
}

template <typename I>
void check_fits_index(const LineReader& in, const std::string& what, size_type count)
{
    if (count > std::numeric_limits<I>::max()) {
        throw NotSupported(in.where(), in.name() + ": " + what + " " + std::to_string(count) +
                                           " does not fit the index type " + type_name<I>());
    }
}

template <typename V, typename I>
void check_target(const LineReader& in, const MtxHeader& h)
{
    check_value_type<V>(in, h);
    check_fits_index<I>(in, "row count", h.rows);
    check_fits_index<I>(in, "column count", h.cols);
}

[[noreturn]] void bad_token(const LineReader& in, Tokens& tokens, const std::string& what,
                            bool integer)
{
    if (tokens.done()) in.fail("missing " + what);
    const auto rest = tokens.rest();
    const auto length = std::find_if(rest.begin(), rest.end(), is_blank) - rest.begin();
    const auto token = rest.substr(0, static_cast<std::size_t>(length));
    in.fail(what + " '" + shown(token) + "' is not " + (integer ? "an integer" : "a number"));
}

[[noreturn]] void bad_value(const LineReader& in, Tokens& tokens, const MtxHeader& h)
{
    bad_token(in, tokens, "value", h.field == MtxField::integer);
}

void check_line_end(const LineReader& in, Tokens& tokens)
{
    if (!tokens.done()) in.fail("unexpected text '" + shown(tokens.rest()) + "'");
}

/// Reads one value of the file's field; pattern entries are 1, integers become reals.
template <typename V>
bool read_value(Tokens& tokens, MtxField field, V& value)
{
    using R = remove_complex_t<V>;
    switch (field) {
    case MtxField::pattern:
        value = V{1};
        return true;
    case MtxField::integer: {
        long long x = 0;
        if (!tokens.integer(x)) return false;
        value = V(static_cast<R>(x));
        return true;
    }
    case MtxField::complex: {
        // check_value_type keeps complex files away from real V.
        R re{}, im{};
        if (!tokens.real(re) || !tokens.real(im)) return false;
        if constexpr (is_complex_v<V>) value = V(re, im);
        return true;
    }
    default: {
        R x{};
        if (!tokens.real(x)) return false;
        value = V(x);
        return true;
    }
    }
}

/// The entry that a symmetric, skew-symmetric or hermitian file implies at (col, row).
template <typename V>
V mirrored(const V& value, MtxSymmetry symmetry)
{
    switch (symmetry) {
    case MtxSymmetry::skew_symmetric: return -value;
    case MtxSymmetry::hermitian: return loom::conj(value);
    default: return value;
    }
}

bool is_blank_or_comment(std::string_view line)
{
    return (!line.empty() && line.front() == '%') || Tokens(line).done();
}

/// A file cut off inside its last number still parses ("531278103.775" cut to "531").
/// Real files do end without a line break, so a last entry without one is accepted only
/// when its last number is at least as long as the shortest last number of the entries
/// before it: writers print values in one format, and a cut shortens the one it hits.
/// (A cut that leaves the number that long goes unnoticed; only the line break proves it.)
class CutOffCheck {
public:
    void check(const LineReader& in, std::string_view line)
    {
        const auto length = last_token_length(line);
        if (!in.line_terminated() && length < shortest_) {
            in.fail("the last entry has no line break after it and its last number, '" +
                    shown(line.substr(line.size() - length)) +
                    "', is shorter than every other: the input looks cut off");
        }
        shortest_ = std::min(shortest_, length);
    }

private:
    static std::size_t last_token_length(std::string_view line)
    {
        while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
        std::size_t length = 0;
        while (length < line.size() && !is_blank(line[line.size() - 1 - length])) ++length;
        return length;
    }

    std::size_t shortest_ = std::numeric_limits<std::size_t>::max();
};

/// One triangle of a symmetric, skew-symmetric or hermitian file is stored: the lower one
/// (Matrix Market's rule). An entry above the diagonal would be counted twice once mirrored.
void check_lower_triangle(const LineReader& in, const MtxHeader& h, size_type row, size_type col)
{
    if (h.symmetry != MtxSymmetry::general && col > row) {
        in.fail("entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) +
                ") lies above the diagonal, but a " + to_string(h.symmetry) +
                " file stores only the lower triangle");
    }
}

/// A hermitian matrix has a real diagonal.
template <typename V>
void check_diagonal(const LineReader& in, const MtxHeader& h, size_type row, size_type col,
                    const V& value)
{
    if (h.symmetry == MtxSymmetry::hermitian && row == col && value != loom::conj(value)) {
        in.fail("diagonal entry (" + std::to_string(row + 1) + ", " + std::to_string(col + 1) +
                ") of a hermitian file is not real");
    }
}

[[noreturn]] void too_many(const LineReader& in, const MtxHeader& h)
{
    in.fail("more entries than the " + std::to_string(h.entries) +
            " declared on the size line");
}

[[noreturn]] void too_few(const LineReader& in, const MtxHeader& h, size_type count)
{
    in.fail_at(in.line_number() + 1, "the input ends after " + std::to_string(count) +
                                         " of the " + std::to_string(h.entries) +
                                         " entries declared on the size line");
}

/// The most entries reserved ahead for a stream (whose length is unknown) from its size
/// line; more grow the vectors as usual. Small: a 300-byte stream declaring millions of
/// entries reserved 48 MB, which cost 50 ms a read under ASan (a fuzz_mtx timeout on a busy
/// machine).
constexpr size_type stream_reserve_limit = size_type{1} << 14;

template <typename I>
I read_index(const LineReader& in, Tokens& tokens, const char* what, size_type bound)
{
    size_type index = 0;
    if (!tokens.integer(index)) bad_token(in, tokens, std::string(what) + " index", true);
    if (index < 1 || index > bound) {
        in.fail(std::string(what) + " index " + std::to_string(index) + " is out of range [1, " +
                std::to_string(bound) + "]");
    }
    return static_cast<I>(index - 1);
}

template <typename V, typename I>
Triplets<V, I> read_coordinate(LineReader& in, const MtxHeader& h)
{
    const bool mirror = h.symmetry != MtxSymmetry::general;
    const bool skew = h.symmetry == MtxSymmetry::skew_symmetric;
    Triplets<V, I> t{{h.rows, h.cols}, {}, {}, {}};
    // Streams of unknown length get a capped guess; files were checked to hold the entries.
    // Capped before doubling for the mirrored half: a size line may declare 5e18 entries.
    auto capacity = h.entries;
    if (in.remaining_bytes() < 0) capacity = std::min(capacity, stream_reserve_limit);
    if (mirror) capacity *= 2;
    t.rows.reserve(capacity);
    t.cols.reserve(capacity);
    t.values.reserve(capacity);

    size_type count = 0;
    CutOffCheck cut_off;
    std::string_view line;
    while (in.next(line)) {
        Tokens tokens(line);
        if (tokens.done() || line.front() == '%') continue;
        if (count == h.entries) too_many(in, h);
        const auto row = read_index<I>(in, tokens, "row", h.rows);
        const auto col = read_index<I>(in, tokens, "column", h.cols);
        V value{};
        if (!read_value(tokens, h.field, value)) bad_value(in, tokens, h);
        check_line_end(in, tokens);
        cut_off.check(in, line);
        check_lower_triangle(in, h, row, col);
        check_diagonal(in, h, row, col, value);
        t.rows.push_back(row);
        t.cols.push_back(col);
        t.values.push_back(value);
        if (mirror && row != col) {
            t.rows.push_back(col);
            t.cols.push_back(row);
            t.values.push_back(mirrored(value, h.symmetry));
        } else if (skew && row == col) {
            in.fail("diagonal entry (" + std::to_string(row + 1) +
                    ", " + std::to_string(col + 1) + ") in a skew-symmetric file");
        }
        ++count;
    }
    if (count < h.entries) too_few(in, h, count);
    return t;
}

/// The values of an array file as a row-major rows x cols matrix, triangles mirrored. The
/// matrix is allocated once every value has been read: memory follows what the input holds,
/// not what its size line claims (a stream's length is not known beforehand).
template <typename V>
std::vector<V> read_array(LineReader& in, const MtxHeader& h)
{
    // The file walks the columns; a symmetric one only the lower triangle of each.
    const auto first_row = [&](size_type col) {
        switch (h.symmetry) {
        case MtxSymmetry::general: return size_type{0};
        case MtxSymmetry::skew_symmetric: return col + 1;
        default: return col;
        }
    };
    size_type row = first_row(0), col = 0;
    // Moves to the next column with a stored value, only when a value is there to take it:
    // a 0 x 10^18 file must not walk its columns.
    const auto skip_finished_columns = [&] {
        while (row >= h.rows) row = first_row(++col);
    };

    std::vector<V> stored;
    // Streams of unknown length get a capped guess; files were checked to hold the values.
    auto capacity = h.entries;
    if (in.remaining_bytes() < 0) capacity = std::min(capacity, stream_reserve_limit);
    stored.reserve(static_cast<std::size_t>(capacity));
    CutOffCheck cut_off;
    std::string_view line;
    while (in.next(line)) {
        if (is_blank_or_comment(line)) continue;
        if (static_cast<size_type>(stored.size()) == h.entries) too_many(in, h);
        Tokens tokens(line);
        V value{};
        if (!read_value(tokens, h.field, value)) bad_value(in, tokens, h);
        check_line_end(in, tokens);
        cut_off.check(in, line);
        skip_finished_columns();  // (row, col): where the value goes, for checks naming its line
        check_diagonal(in, h, row, col, value);
        stored.push_back(value);
        ++row;
    }
    if (static_cast<size_type>(stored.size()) < h.entries) {
        too_few(in, h, static_cast<size_type>(stored.size()));
    }

    std::vector<V> out(static_cast<std::size_t>(h.rows * h.cols), V{});
    row = first_row(0);
    col = 0;
    for (const auto& value : stored) {
        skip_finished_columns();
        out[row * h.cols + col] = value;
        if (row != col && h.symmetry != MtxSymmetry::general) {
            out[col * h.cols + row] = mirrored(value, h.symmetry);
        }
        ++row;
    }
    return out;
}

/// The nonzero values of a row-major dense matrix, row by row.
template <typename V, typename I>
Triplets<V, I> nonzeros(dim2 size, const std::vector<V>& row_major)
{
    Triplets<V, I> t{size, {}, {}, {}};
    // No entries, whatever the other size: a 2e9 x 0 array file must not loop over its rows.
    if (row_major.empty()) return t;
    for (size_type r = 0; r < size.rows; ++r) {
        for (size_type c = 0; c < size.cols; ++c) {
            const auto& value = row_major[r * size.cols + c];
            if (value == V{}) continue;
            t.rows.push_back(static_cast<I>(r));
            t.cols.push_back(static_cast<I>(c));
            t.values.push_back(value);
        }
    }
    return t;
}

template <typename V, typename I>
Triplets<V, I> read_triplets(LineReader& in)
{
    const auto h = read_header(in);
    check_target<V, I>(in, h);
    // The row pointers of the CSR built at the end: refused before reading any entry.
    check_fits_memory(in, double(h.rows + 1) * double(sizeof(I)),
                      "the row pointers of " + std::to_string(h.rows) + " rows");
    if (h.format == MtxFormat::array) return nonzeros<V, I>({h.rows, h.cols}, read_array<V>(in, h));
    return read_coordinate<V, I>(in, h);
}

/// Sorts each row by column, keeping duplicates in their order. Most files are sorted
/// by columns or rows, which leaves every CSR row sorted: only the others pay.
template <typename V, typename I>
void sort_rows(const I* ptrs, size_type rows, I* cols, V* values)
{
    std::vector<std::pair<I, V>> scratch;
    for (size_type r = 0; r < rows; ++r) {
        const auto begin = ptrs[r], end = ptrs[r + 1];
        if (std::is_sorted(cols + begin, cols + end)) continue;
        scratch.clear();
        for (auto k = begin; k < end; ++k) scratch.emplace_back(cols[k], values[k]);
        std::stable_sort(scratch.begin(), scratch.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto k = begin; k < end; ++k) {
            cols[k] = scratch[k - begin].first;
            values[k] = scratch[k - begin].second;
        }
    }
}

template <typename V, typename I>
Csr<V, I> csr_from_triplets(const std::shared_ptr<const Executor>& exec, Triplets<V, I> t,
                            const LineReader& in)
{
    const auto nnz = static_cast<size_type>(t.values.size());
    check_fits_index<I>(in, "the number of entries", nnz);
    const auto rows = t.size.rows;
    Csr<V, I> csr(staging_executor(exec), t.size, nnz);
    I* ptrs = csr.row_ptrs().data();
    I* cols = csr.col_idxs().data();
    V* values = csr.values().data();

    std::fill_n(ptrs, rows + 1, I{0});
    for (const auto r : t.rows) ++ptrs[r + 1];
    std::partial_sum(ptrs, ptrs + rows + 1, ptrs);
    {
        std::vector<I> next(ptrs, ptrs + rows);
        for (size_type k = 0; k < nnz; ++k) {
            const auto at = next[t.rows[k]]++;
            cols[at] = t.cols[k];
            values[at] = t.values[k];
        }
    }
    t = {};  // the triplets are no longer needed: give their memory back before sorting
    sort_rows(ptrs, rows, cols, values);
    return place_on(exec, std::move(csr));
}

template <typename V, typename I>
Coo<V, I> coo_from_triplets(const std::shared_ptr<const Executor>& exec,
                            const Triplets<V, I>& t)
{
    Coo<V, I> coo(staging_executor(exec), t.size, static_cast<size_type>(t.values.size()));
    std::copy(t.rows.begin(), t.rows.end(), coo.row_idxs().data());
    std::copy(t.cols.begin(), t.cols.end(), coo.col_idxs().data());
    std::copy(t.values.begin(), t.values.end(), coo.values().data());
    return place_on(exec, std::move(coo));
}

template <typename V>
Dense<V> read_dense_from(const std::shared_ptr<const Executor>& exec, LineReader& in)
{
    const auto h = read_header(in);
    check_value_type<V>(in, h);
    check_fits_memory(in, double(h.rows) * double(h.cols) * double(sizeof(V)),
                      "a dense " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                          " matrix");
    if (h.format == MtxFormat::array) {
        return Dense<V>::from_host(exec, {h.rows, h.cols}, read_array<V>(in, h));
    }
    const auto t = read_coordinate<V, size_type>(in, h);
    std::vector<V> row_major(static_cast<std::size_t>(h.rows * h.cols), V{});
    for (std::size_t k = 0; k < t.values.size(); ++k) {
        row_major[t.rows[k] * h.cols + t.cols[k]] += t.values[k];
    }
    return Dense<V>::from_host(exec, {h.rows, h.cols}, row_major);
}

}  // namespace
}  // namespace io

namespace {
constexpr const char* read_coo_name = "loom::matrix::read_coo";
constexpr const char* read_csr_name = "loom::matrix::read_csr";
constexpr const char* read_dense_name = "loom::matrix::read_dense";
}  // namespace

template <typename V, typename I>
Coo<V, I> read_coo(std::shared_ptr<const Executor> exec, const std::string& path)
{
    io::check_executor(read_coo_name, exec);
    io::LineReader in(read_coo_name, path, io::LineReader::large_block);
    return io::coo_from_triplets(exec, io::read_triplets<V, I>(in));
}

template <typename V, typename I>
Coo<V, I> read_coo(std::shared_ptr<const Executor> exec, std::istream& stream)
{
    io::check_executor(read_coo_name, exec);
    io::LineReader in(read_coo_name, stream, io::LineReader::large_block);
    return io::coo_from_triplets(exec, io::read_triplets<V, I>(in));
}

template <typename V, typename I>
Csr<V, I> read_csr(std::shared_ptr<const Executor> exec, const std::string& path)
{
    io::check_executor(read_csr_name, exec);
    io::LineReader in(read_csr_name, path, io::LineReader::large_block);
    return io::csr_from_triplets(exec, io::read_triplets<V, I>(in), in);
}

template <typename V, typename I>
Csr<V, I> read_csr(std::shared_ptr<const Executor> exec, std::istream& stream)
{
    io::check_executor(read_csr_name, exec);
    io::LineReader in(read_csr_name, stream, io::LineReader::large_block);
    return io::csr_from_triplets(exec, io::read_triplets<V, I>(in), in);
}

template <typename V>
Dense<V> read_dense(std::shared_ptr<const Executor> exec, const std::string& path)
{
    io::check_executor(read_dense_name, exec);
    io::LineReader in(read_dense_name, path, io::LineReader::large_block);
    return io::read_dense_from<V>(exec, in);
}

template <typename V>
Dense<V> read_dense(std::shared_ptr<const Executor> exec, std::istream& stream)
{
    io::check_executor(read_dense_name, exec);
    io::LineReader in(read_dense_name, stream, io::LineReader::large_block);
    return io::read_dense_from<V>(exec, in);
}

#define LOOM_INSTANTIATE_READ(V, I)                                                           \
    template Coo<V, I> read_coo<V, I>(std::shared_ptr<const Executor>, const std::string&);   \
    template Coo<V, I> read_coo<V, I>(std::shared_ptr<const Executor>, std::istream&);        \
    template Csr<V, I> read_csr<V, I>(std::shared_ptr<const Executor>, const std::string&);   \
    template Csr<V, I> read_csr<V, I>(std::shared_ptr<const Executor>, std::istream&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_READ)

#define LOOM_INSTANTIATE_READ_DENSE(V)                                                      \
    template Dense<V> read_dense<V>(std::shared_ptr<const Executor>, const std::string&); \
    template Dense<V> read_dense<V>(std::shared_ptr<const Executor>, std::istream&);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_READ_DENSE)

}  // namespace loom::matrix
