// Matrix Market writing. A symmetric (skew, hermitian) file stores one triangle, so the
// matrix is checked to really have that symmetry before the other triangle is dropped.
#include <algorithm>
#include <tuple>

#include "base/instantiate.hpp"
#include "matrix/io/mtx.hpp"

namespace loom::matrix {
namespace io {
namespace {

constexpr const char* write_name = "loom::matrix::write_mtx";

template <typename V>
constexpr MtxField field_of()
{
    return is_complex_v<V> ? MtxField::complex : MtxField::real;
}

template <typename V>
void write_value(TextWriter& out, const V& value)
{
    if constexpr (is_complex_v<V>) {
        out.real(value.real());
        out.put(' ');
        out.real(value.imag());
    } else {
        out.real(value);
    }
}

void write_header(TextWriter& out, MtxFormat format, MtxField field, MtxSymmetry symmetry,
                  dim2 size)
{
    out.text(banner(format, field, symmetry));
    out.put('\n');
    out.integer(size.rows);
    out.put(' ');
    out.integer(size.cols);
}

/// The value the mirror of an entry must have in a matrix with this symmetry.
template <typename V>
V mirror_of(const V& value, MtxSymmetry symmetry)
{
    switch (symmetry) {
    case MtxSymmetry::skew_symmetric: return -value;
    case MtxSymmetry::hermitian: return loom::conj(value);
    default: return value;
    }
}

/// What the diagonal of a matrix with this symmetry must satisfy.
template <typename V>
bool diagonal_allowed(const V& value, MtxSymmetry symmetry)
{
    switch (symmetry) {
    case MtxSymmetry::skew_symmetric: return value == V{};
    case MtxSymmetry::hermitian: return value == loom::conj(value);
    default: return true;
    }
}

std::string position(size_type row, size_type col)
{
    return "(" + std::to_string(row) + ", " + std::to_string(col) + ")";
}

void check_square(dim2 size, MtxSymmetry symmetry)
{
    if (symmetry != MtxSymmetry::general && size.rows != size.cols) {
        throw BadInput(write_name, std::string("a ") + to_string(symmetry) + " matrix must be square, got " +
                                       to_string(size));
    }
}

template <typename V>
struct Entry {
    size_type row;
    size_type col;
    V value;
};

/// Sorts by position and sums duplicates.
template <typename V>
void sort_and_combine(std::vector<Entry<V>>& entries)
{
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        return std::tie(a.row, a.col) < std::tie(b.row, b.col);
    });
    std::size_t out = 0;
    for (std::size_t k = 0; k < entries.size(); ++k) {
        if (out > 0 && entries[out - 1].row == entries[k].row &&
            entries[out - 1].col == entries[k].col) {
            entries[out - 1].value += entries[k].value;
        } else {
            entries[out++] = entries[k];
        }
    }
    entries.resize(out);
}

/// The lower triangle (duplicates summed, sorted by rows) of a matrix that must have
/// `symmetry`; BadInput naming the first pair of entries that breaks it.
template <typename V, typename I>
std::vector<Entry<V>> lower_triangle(const Triplets<V, I>& t, MtxSymmetry symmetry)
{
    std::vector<Entry<V>> lower, upper_mirrored;
    for (std::size_t k = 0; k < t.values.size(); ++k) {
        const size_type r = t.rows[k], c = t.cols[k];
        if (r >= c) {
            lower.push_back({r, c, t.values[k]});
        } else {
            upper_mirrored.push_back({c, r, mirror_of(t.values[k], symmetry)});
        }
    }
    sort_and_combine(lower);
    sort_and_combine(upper_mirrored);

    const auto not_symmetric = [&](size_type r, size_type c) {
        throw BadInput(write_name, std::string("the matrix is not ") + to_string(symmetry) + ": entries " +
                                       position(r, c) + " and " + position(c, r) +
                                       " (0-based) do not match");
    };
    const auto check_unpaired = [&](const Entry<V>& upper) {
        if (upper.value != V{}) not_symmetric(upper.row, upper.col);
    };
    // Walk both sorted lists together; an entry without a partner must be zero.
    std::size_t u = 0;
    const auto upper_before = [&](const Entry<V>& e) {
        return u < upper_mirrored.size() &&
               std::tie(upper_mirrored[u].row, upper_mirrored[u].col) < std::tie(e.row, e.col);
    };
    for (const auto& e : lower) {
        for (; upper_before(e); ++u) check_unpaired(upper_mirrored[u]);
        if (e.row == e.col) {
            if (!diagonal_allowed(e.value, symmetry)) {
                throw BadInput(write_name, std::string("the matrix is not ") + to_string(symmetry) +
                                               ": diagonal entry " + position(e.row, e.col) +
                                               " (0-based) is not allowed");
            }
            continue;
        }
        const bool paired = u < upper_mirrored.size() && upper_mirrored[u].row == e.row &&
                            upper_mirrored[u].col == e.col;
        const V partner = paired ? upper_mirrored[u++].value : V{};
        if (partner != e.value) not_symmetric(e.row, e.col);
    }
    for (; u < upper_mirrored.size(); ++u) check_unpaired(upper_mirrored[u]);
    if (symmetry == MtxSymmetry::skew_symmetric) {
        std::erase_if(lower, [](const auto& e) { return e.row == e.col; });
    }
    return lower;
}

template <typename V>
void write_entry(TextWriter& out, size_type row, size_type col, const V& value)
{
    out.integer(row + 1);
    out.put(' ');
    out.integer(col + 1);
    out.put(' ');
    write_value(out, value);
    out.put('\n');
}

/// Checks, then writes through the TextWriter that open() returns: a file that cannot be
/// written as asked is not created.
template <typename Open, typename V, typename I>
void write_coordinate(Open open, const Triplets<V, I>& t, MtxSymmetry symmetry)
{
    check_square(t.size, symmetry);
    std::vector<Entry<V>> lower;
    if (symmetry != MtxSymmetry::general) lower = lower_triangle(t, symmetry);
    const bool general = symmetry == MtxSymmetry::general;

    TextWriter out = open();
    write_header(out, MtxFormat::coordinate, field_of<V>(), symmetry, t.size);
    out.put(' ');
    out.integer(static_cast<size_type>(general ? t.values.size() : lower.size()));
    out.put('\n');
    if (general) {
        for (std::size_t k = 0; k < t.values.size(); ++k) {
            write_entry(out, t.rows[k], t.cols[k], t.values[k]);
        }
    } else {
        for (const auto& e : lower) write_entry(out, e.row, e.col, e.value);
    }
    out.finish();
}

template <typename Open, typename V>
void write_array(Open open, const Dense<V>& matrix, MtxSymmetry symmetry)
{
    const dim2 size = matrix.size();
    check_square(size, symmetry);
    const auto values = matrix.to_host();
    const auto at = [&](size_type r, size_type c) { return values[r * size.cols + c]; };
    for (size_type c = 0; c < size.cols && symmetry != MtxSymmetry::general; ++c) {
        if (!diagonal_allowed(at(c, c), symmetry)) {
            throw BadInput(write_name, std::string("the matrix is not ") + to_string(symmetry) +
                                           ": diagonal entry " + position(c, c) +
                                           " (0-based) is not allowed");
        }
        for (size_type r = c + 1; r < size.rows; ++r) {
            if (at(r, c) != mirror_of(at(c, r), symmetry)) {
                throw BadInput(write_name, std::string("the matrix is not ") + to_string(symmetry) +
                                               ": entries " + position(r, c) + " and " +
                                               position(c, r) + " (0-based) do not match");
            }
        }
    }
    TextWriter out = open();
    write_header(out, MtxFormat::array, field_of<V>(), symmetry, size);
    out.put('\n');
    // Column-major; a symmetric file holds the lower triangle of each column.
    for (size_type c = 0; c < size.cols; ++c) {
        size_type first = 0;
        if (symmetry == MtxSymmetry::skew_symmetric) first = c + 1;
        else if (symmetry != MtxSymmetry::general) first = c;
        for (size_type r = first; r < size.rows; ++r) {
            write_value(out, at(r, c));
            out.put('\n');
        }
    }
    out.finish();
}

auto file_writer(const std::string& path)
{
    return [&path] { return TextWriter(write_name, path); };
}

auto stream_writer(std::ostream& stream)
{
    return [&stream] { return TextWriter(write_name, stream); };
}

template <typename V, typename I>
Triplets<V, I> triplets_of(const Csr<V, I>& matrix)
{
    const auto ptrs = matrix.row_ptrs().to_host();
    Triplets<V, I> t{matrix.size(), {}, matrix.col_idxs().to_host(), matrix.values().to_host()};
    t.rows.resize(t.cols.size());
    for (size_type r = 0; r < matrix.rows(); ++r) {
        std::fill(t.rows.begin() + ptrs[r], t.rows.begin() + ptrs[r + 1], static_cast<I>(r));
    }
    return t;
}

template <typename V, typename I>
Triplets<V, I> triplets_of(const Coo<V, I>& matrix)
{
    return {matrix.size(), matrix.row_idxs().to_host(), matrix.col_idxs().to_host(),
            matrix.values().to_host()};
}

}  // namespace
}  // namespace io

template <typename V, typename I>
void write_mtx(const std::string& path, const Csr<V, I>& matrix, MtxSymmetry symmetry)
{
    io::write_coordinate(io::file_writer(path), io::triplets_of(matrix), symmetry);
}

template <typename V, typename I>
void write_mtx(std::ostream& stream, const Csr<V, I>& matrix, MtxSymmetry symmetry)
{
    io::write_coordinate(io::stream_writer(stream), io::triplets_of(matrix), symmetry);
}

template <typename V, typename I>
void write_mtx(const std::string& path, const Coo<V, I>& matrix, MtxSymmetry symmetry)
{
    io::write_coordinate(io::file_writer(path), io::triplets_of(matrix), symmetry);
}

template <typename V, typename I>
void write_mtx(std::ostream& stream, const Coo<V, I>& matrix, MtxSymmetry symmetry)
{
    io::write_coordinate(io::stream_writer(stream), io::triplets_of(matrix), symmetry);
}

template <typename V>
void write_mtx(const std::string& path, const Dense<V>& matrix, MtxSymmetry symmetry)
{
    io::write_array(io::file_writer(path), matrix, symmetry);
}

template <typename V>
void write_mtx(std::ostream& stream, const Dense<V>& matrix, MtxSymmetry symmetry)
{
    io::write_array(io::stream_writer(stream), matrix, symmetry);
}

#define LOOM_INSTANTIATE_WRITE(V, I)                                                  \
    template void write_mtx<V, I>(const std::string&, const Csr<V, I>&, MtxSymmetry); \
    template void write_mtx<V, I>(std::ostream&, const Csr<V, I>&, MtxSymmetry);      \
    template void write_mtx<V, I>(const std::string&, const Coo<V, I>&, MtxSymmetry); \
    template void write_mtx<V, I>(std::ostream&, const Coo<V, I>&, MtxSymmetry);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_WRITE)

#define LOOM_INSTANTIATE_WRITE_DENSE(V)                                              \
    template void write_mtx<V>(const std::string&, const Dense<V>&, MtxSymmetry); \
    template void write_mtx<V>(std::ostream&, const Dense<V>&, MtxSymmetry);
LOOM_FOR_EACH_VALUE_TYPE(LOOM_INSTANTIATE_WRITE_DENSE)

}  // namespace loom::matrix
