// Every file `loom` writes goes through here, so that no output is ever lost: a file is
// written under a temporary name in the target's folder and renamed over the target only
// once it was written, flushed to disk and closed without error. A failed write (a full
// disk, /dev/full) leaves the previous file as it was and raises IoError.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace loom::cli {

/// Calls fill(path) to write the file at `path`, a temporary name next to `target`, then
/// renames it over target. A target that exists but is not a regular file (/dev/stdout, a
/// pipe, /dev/full) is written directly, with the same checks.
void write_output(const std::string& target, const std::function<void(const std::string&)>& fill);

/// Writes `text` to target as write_output does.
void write_text_output(const std::string& target, std::string_view text);

}  // namespace loom::cli
