// The error hierarchy. Every message says what went wrong and where (the public function
// that detected it), so that a user can act on it without a debugger.
#pragma once

#include <stdexcept>
#include <string>

#include "loom/base/types.hpp"

#include "loom/base/export.hpp"
LOOM_PUBLIC_BEGIN

namespace loom {

/// Base of every error Loom raises.
class Error : public std::runtime_error {
public:
    Error(const std::string& where, const std::string& what)
        : std::runtime_error(where + ": " + what), where_(where)
    {}
    const std::string& where() const noexcept { return where_; }

private:
    std::string where_;
};

/// Operand shapes that do not fit together.
class DimensionMismatch : public Error {
public:
    using Error::Error;
    DimensionMismatch(const std::string& where, const std::string& first_name, dim2 first,
                      const std::string& second_name, dim2 second, const std::string& what);
};

/// Malformed input: a bad file line, an invalid parameter, an inconsistent structure.
class BadInput : public Error {
public:
    using Error::Error;
};

/// An index outside its valid range.
class OutOfRange : public Error {
public:
    using Error::Error;
    OutOfRange(const std::string& where, const std::string& what, size_type index,
               size_type bound);
};

/// A backend (or vendor library) that this build does not contain.
class NotCompiled : public Error {
public:
    NotCompiled(const std::string& where, const std::string& component)
        : Error(where, "Loom was built without " + component +
                           " (reconfigure with it enabled to use it)")
    {}
};

/// An operation that the given format, type or backend does not provide.
class NotSupported : public Error {
public:
    using Error::Error;
};

/// A numerical failure: a zero pivot, a Krylov breakdown, a NaN.
class NumericalError : public Error {
public:
    using Error::Error;
};

/// An error reported by the CUDA runtime or a CUDA library.
class CudaError : public Error {
public:
    using Error::Error;
};

/// Memory could not be allocated.
class AllocationError : public Error {
public:
    using Error::Error;
};

/// A file could not be opened, read or written.
class IoError : public Error {
public:
    using Error::Error;
};

/// "3x4" for messages.
std::string to_string(dim2 size);

}  // namespace loom

LOOM_PUBLIC_END
