// The binary CSR format: a fixed little-endian header, then the three arrays exactly as they
// lie in memory, so that reading is one fread per array straight into the final buffer.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>

#include "base/instantiate.hpp"
#include "matrix/io/mtx.hpp"

namespace loom::matrix {
namespace io {
namespace {

constexpr const char* write_binary_name = "loom::matrix::write_binary";
constexpr const char* read_binary_name = "loom::matrix::read_binary_csr";
constexpr char magic[8] = {'L', 'O', 'O', 'M', 'C', 'S', 'R', '\0'};
constexpr std::uint32_t format_version = 1;

struct BinaryHeader {
    char magic[8];
    std::uint32_t version;
    std::uint32_t value_code;
    std::uint32_t index_code;
    std::uint32_t reserved;
    std::int64_t rows;
    std::int64_t cols;
    std::int64_t nnz;
};
static_assert(sizeof(BinaryHeader) == 48, "the header layout is part of the file format");

enum ValueCode : std::uint32_t {
    code_float = 1,
    code_double,
    code_complex_float,
    code_complex_double
};
enum IndexCode : std::uint32_t { code_int32 = 1, code_int64 };

template <typename V>
constexpr std::uint32_t value_code()
{
    if constexpr (std::is_same_v<V, float>) return code_float;
    else if constexpr (std::is_same_v<V, double>) return code_double;
    else if constexpr (std::is_same_v<V, std::complex<float>>) return code_complex_float;
    else return code_complex_double;
}

template <typename I>
constexpr std::uint32_t index_code()
{
    return std::is_same_v<I, int32> ? code_int32 : code_int64;
}

std::size_t value_bytes(std::uint32_t code)
{
    switch (code) {
    case code_float: return sizeof(float);
    case code_double: return sizeof(double);
    case code_complex_float: return sizeof(std::complex<float>);
    case code_complex_double: return sizeof(std::complex<double>);
    default: return 0;
    }
}

std::size_t index_bytes(std::uint32_t code)
{
    switch (code) {
    case code_int32: return sizeof(int32);
    case code_int64: return sizeof(int64);
    default: return 0;
    }
}

void require_little_endian(const char* where)
{
    if constexpr (std::endian::native != std::endian::little) {
        throw NotSupported(where, "the binary format is little-endian; this host is not");
    }
}

/// An open binary file with checked reads and writes.
class BinaryFile {
public:
    BinaryFile(const char* where, const std::string& path, const char* mode)
        : where_(where), path_(path), file_(open_file(where, path, mode))
    {}

    void write(const void* data, std::size_t bytes)
    {
        if (bytes > 0 && std::fwrite(data, 1, bytes, file_.get()) != bytes) {
            throw IoError(where_, "error writing '" + path_ + "': " + std::strerror(errno));
        }
    }
    void read(void* data, std::size_t bytes)
    {
        if (bytes > 0 && std::fread(data, 1, bytes, file_.get()) != bytes) {
            if (std::ferror(file_.get())) {
                throw IoError(where_, "error reading '" + path_ + "': " + std::strerror(errno));
            }
            fail("the file is truncated");
        }
    }
    void close()
    {
        if (std::fclose(file_.release()) != 0) {
            throw IoError(where_, "error writing '" + path_ + "': " + std::strerror(errno));
        }
    }
    [[noreturn]] void fail(const std::string& what) const
    {
        throw BadInput(where_, path_ + ": " + what);
    }
    /// Reads `count` values stored as File into `out`, converting them to T.
    template <typename File, typename T>
    void read_as(T* out, size_type count)
    {
        if constexpr (std::is_same_v<File, T>) {
            read(out, sizeof(T) * static_cast<std::size_t>(count));
        } else {
            constexpr size_type chunk = size_type{1} << 16;
            std::vector<File> buffer(static_cast<std::size_t>(std::min(count, chunk)));
            for (size_type done = 0; done < count; done += chunk) {
                const auto n = std::min(chunk, count - done);
                read(buffer.data(), sizeof(File) * static_cast<std::size_t>(n));
                for (size_type k = 0; k < n; ++k) out[done + k] = convert<T>(buffer[k]);
            }
        }
    }

private:
    template <typename T, typename File>
    T convert(const File& value) const
    {
        if constexpr (std::is_integral_v<T>) {
            if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max()) {
                fail("index " + std::to_string(value) + " does not fit the index type " +
                     type_name<T>());
            }
            return static_cast<T>(value);
        } else if constexpr (is_complex_v<T> && is_complex_v<File>) {
            using R = remove_complex_t<T>;
            return T(static_cast<R>(value.real()), static_cast<R>(value.imag()));
        } else if constexpr (is_complex_v<File>) {
            return T{};  // refused before any value is read
        } else {
            return T(static_cast<remove_complex_t<T>>(value));
        }
    }

    const char* where_;
    std::string path_;
    FilePtr file_;
};

/// Calls f with a value-initialized File value of the type the code names.
template <typename F>
void with_value_type(std::uint32_t code, F&& f)
{
    switch (code) {
    case code_float: return f(float{});
    case code_double: return f(double{});
    case code_complex_float: return f(std::complex<float>{});
    default: return f(std::complex<double>{});
    }
}

template <typename F>
void with_index_type(std::uint32_t code, F&& f)
{
    if (code == code_int32) return f(int32{});
    return f(int64{});
}

BinaryHeader read_binary_header(BinaryFile& file, const std::string& path)
{
    std::error_code ec;
    const auto file_bytes = static_cast<size_type>(std::filesystem::file_size(path, ec));
    if (ec) throw IoError(read_binary_name, "cannot read the size of '" + path + "'");
    if (file_bytes < static_cast<size_type>(sizeof(BinaryHeader))) {
        file.fail("the file is truncated: " + std::to_string(file_bytes) +
                  " bytes, less than the " + std::to_string(sizeof(BinaryHeader)) +
                  "-byte header");
    }
    BinaryHeader h;
    file.read(&h, sizeof h);
    if (std::memcmp(h.magic, magic, sizeof magic) != 0) {
        file.fail("not a Loom binary matrix (bad magic)");
    }
    if (h.version != format_version) {
        file.fail("unsupported format version " + std::to_string(h.version) + " (expected " +
                  std::to_string(format_version) + ")");
    }
    const auto vbytes = value_bytes(h.value_code);
    const auto ibytes = index_bytes(h.index_code);
    if (vbytes == 0) file.fail("unknown value type code " + std::to_string(h.value_code));
    if (ibytes == 0) file.fail("unknown index type code " + std::to_string(h.index_code));
    // Sizes limited to 2^48 keep the byte count below from overflowing.
    constexpr std::int64_t limit = std::int64_t{1} << 48;
    if (h.rows < 0 || h.cols < 0 || h.nnz < 0 || h.rows > limit || h.cols > limit ||
        h.nnz > limit) {
        file.fail("bad sizes in the header: " + std::to_string(h.rows) + " x " +
                  std::to_string(h.cols) + " with " + std::to_string(h.nnz) + " entries");
    }
    const auto expected = static_cast<size_type>(sizeof(BinaryHeader)) +
                          (h.rows + 1 + h.nnz) * static_cast<size_type>(ibytes) +
                          h.nnz * static_cast<size_type>(vbytes);
    if (file_bytes != expected) {
        file.fail(std::string(file_bytes < expected ? "the file is truncated" : "size mismatch") +
                  ": a " + std::to_string(h.rows) + " x " + std::to_string(h.cols) +
                  " matrix with " + std::to_string(h.nnz) + " entries takes " +
                  std::to_string(expected) + " bytes, the file has " +
                  std::to_string(file_bytes));
    }
    return h;
}

/// The structural checks of Csr::validate, on host arrays and without copies.
template <typename I>
void check_structure(const BinaryFile& file, const I* ptrs, const I* cols, size_type rows,
                     size_type num_cols, size_type nnz)
{
    if (ptrs[0] != 0 || ptrs[rows] != nnz) {
        file.fail("invalid row pointers: they must run from 0 to nnz = " + std::to_string(nnz));
    }
    for (size_type r = 0; r < rows; ++r) {
        if (ptrs[r + 1] < ptrs[r]) {
            file.fail("invalid row pointers: they decrease at row " + std::to_string(r));
        }
    }
    const auto bad = std::find_if(cols, cols + nnz,
                                  [num_cols](I c) { return c < 0 || c >= num_cols; });
    if (bad != cols + nnz) {
        file.fail("column index " + std::to_string(*bad) + " of entry " +
                  std::to_string(bad - cols) + " is out of range [0, " +
                  std::to_string(num_cols) + ")");
    }
}

}  // namespace
}  // namespace io

template <typename V, typename I>
void write_binary(const std::string& path, const Csr<V, I>& matrix)
{
    io::require_little_endian(io::write_binary_name);
    io::BinaryHeader h{};
    std::memcpy(h.magic, io::magic, sizeof io::magic);
    h.version = io::format_version;
    h.value_code = io::value_code<V>();
    h.index_code = io::index_code<I>();
    h.rows = matrix.rows();
    h.cols = matrix.cols();
    h.nnz = matrix.nnz();

    // Host arrays are written in place; device arrays through one host copy each.
    const bool host = matrix.executor()->is_host();
    io::BinaryFile file(io::write_binary_name, path, "wb");
    file.write(&h, sizeof h);
    const auto write_array = [&](const auto& array) {
        using T = typename std::decay_t<decltype(array)>::value_type;
        const auto bytes = sizeof(T) * static_cast<std::size_t>(array.size());
        if (host) {
            file.write(array.const_data(), bytes);
        } else {
            file.write(array.to_host().data(), bytes);
        }
    };
    write_array(matrix.row_ptrs());
    write_array(matrix.col_idxs());
    write_array(matrix.values());
    file.close();
}

template <typename V, typename I>
Csr<V, I> read_binary_csr(std::shared_ptr<const Executor> exec, const std::string& path)
{
    if (!exec) throw BadInput(io::read_binary_name, "no executor given");
    io::require_little_endian(io::read_binary_name);
    io::BinaryFile file(io::read_binary_name, path, "rb");
    const auto h = io::read_binary_header(file, path);
    if (!is_complex_v<V> && (h.value_code == io::code_complex_float ||
                             h.value_code == io::code_complex_double)) {
        file.fail(std::string("a complex matrix cannot be read into the real type ") +
                  type_name<V>());
    }
    constexpr auto max_index = std::numeric_limits<I>::max();
    if (h.rows > max_index || h.cols > max_index || h.nnz > max_index) {
        throw NotSupported(io::read_binary_name,
                           path + ": a " + std::to_string(h.rows) + " x " +
                               std::to_string(h.cols) + " matrix with " + std::to_string(h.nnz) +
                               " entries does not fit the index type " + type_name<I>());
    }

    Csr<V, I> csr(io::staging_executor(exec), {h.rows, h.cols}, h.nnz);
    I* ptrs = csr.row_ptrs().data();
    I* cols = csr.col_idxs().data();
    io::with_index_type(h.index_code, [&](auto file_index) {
        using FileI = decltype(file_index);
        file.read_as<FileI>(ptrs, h.rows + 1);
        file.read_as<FileI>(cols, h.nnz);
    });
    io::with_value_type(h.value_code, [&](auto file_value) {
        file.read_as<decltype(file_value)>(csr.values().data(), h.nnz);
    });
    io::check_structure(file, ptrs, cols, h.rows, h.cols, h.nnz);
    return io::place_on(exec, std::move(csr));
}

#define LOOM_INSTANTIATE_BINARY(V, I)                                          \
    template void write_binary<V, I>(const std::string&, const Csr<V, I>&); \
    template Csr<V, I> read_binary_csr<V, I>(std::shared_ptr<const Executor>, \
                                             const std::string&);
LOOM_FOR_EACH_VALUE_AND_INDEX_TYPE(LOOM_INSTANTIATE_BINARY)

}  // namespace loom::matrix
