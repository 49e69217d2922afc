// The names users type for the values of an enum (algorithms, modes, executors, solvers...):
// one table per enum, declared next to it, from which parsing, printing and the lists of
// help texts and command-line checks are all derived, so that a new value is one new line.
//
//     enum class Colour { red, green };
//     LOOM_NAME_TABLE(Colour, colour_names, "colour",
//         {Colour::red, "red", "the first colour", {"r"}},
//         {Colour::green, "green", "the second colour"},
//     );
//
// declares the table colour_names, names_of(Colour) and to_string(Colour). names_of is found
// by argument-dependent lookup: names_of(E{}) is the table of any named E.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/base/error.hpp"

namespace loom {

/// One value of a named enum: the name it is printed as, a line for help texts, and other
/// spellings that parse to it (abbreviations, older names).
template <typename E>
struct Name {
    E value;
    const char* name;
    const char* description = "";
    std::array<const char*, 2> aliases{};
};

namespace detail {

/// ASCII case-insensitive equality: names are parsed regardless of case ("T", "Coordinate").
constexpr bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept
{
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [&](char x, char y) { return lower(x) == lower(y); });
}

}  // namespace detail

/// The names of every value of E, in the order help texts list them.
template <typename E>
class NameTable {
public:
    /// `what` names the kind of value in messages ("SpMV algorithm").
    template <std::size_t N>
    constexpr NameTable(const char* what, const Name<E> (&entries)[N]) noexcept
        : what_(what), entries_(entries)
    {}

    constexpr const char* what() const noexcept { return what_; }
    constexpr std::span<const Name<E>> entries() const noexcept { return entries_; }

    /// The value named or spelled `text` (case-insensitive), if any.
    constexpr std::optional<E> find(std::string_view text) const noexcept
    {
        for (const auto& entry : entries_) {
            if (detail::equal_ignoring_case(text, entry.name)) return entry.value;
            for (const char* alias : entry.aliases) {
                if (alias != nullptr && detail::equal_ignoring_case(text, alias)) {
                    return entry.value;
                }
            }
        }
        return std::nullopt;
    }

    /// The value `text` names; BadInput from `where` listing the names otherwise.
    E parse(std::string_view text, const std::string& where) const
    {
        if (const auto value = find(text)) return *value;
        throw BadInput(where, unknown(text));
    }

    /// "unknown <what> 'text' (expected one of a, b, c)", with `other_forms` after the names
    /// ("cuda:N"): for readers with their own error path (a file line) or syntax.
    std::string unknown(std::string_view text, std::string_view other_forms = {}) const
    {
        return "unknown " + std::string(what_) + " '" + std::string(text) + "' (expected one of " +
               joined_names() + (other_forms.empty() ? "" : ", " + std::string(other_forms)) + ")";
    }

    /// The name of `value` ("unknown" for a value cast from outside the enum).
    constexpr const char* to_string(E value) const noexcept
    {
        for (const auto& entry : entries_) {
            if (entry.value == value) return entry.name;
        }
        return "unknown";
    }

    /// The names, without aliases: what help texts show.
    std::vector<std::string> names() const
    {
        std::vector<std::string> list;
        for (const auto& entry : entries_) list.emplace_back(entry.name);
        return list;
    }

    /// Every spelling find() accepts in its usual case, names first: what a command-line
    /// check (CLI::IsMember) accepts.
    std::vector<std::string> spellings() const
    {
        auto list = names();
        for (const auto& entry : entries_) {
            for (const char* alias : entry.aliases) {
                if (alias != nullptr) list.emplace_back(alias);
            }
        }
        return list;
    }

    /// "a, b, c".
    std::string joined_names() const
    {
        std::string text;
        for (const auto& entry : entries_)
            text += (text.empty() ? "" : ", ") + std::string(entry.name);
        return text;
    }

    /// One line per value, "  name  description", the names aligned.
    std::string help() const
    {
        std::size_t width = 0;
        for (const auto& entry : entries_)
            width = std::max(width, std::string_view(entry.name).size());
        std::string text;
        for (const auto& entry : entries_) {
            const std::string name = entry.name;
            text +=
                "  " + name + std::string(width + 2 - name.size(), ' ') + entry.description + "\n";
        }
        return text;
    }

private:
    const char* what_;
    std::span<const Name<E>> entries_;
};

}  // namespace loom

/// Declares, in the namespace of enum E, the array `table` of its Name entries (the arguments
/// after `what`), names_of(E) over it (`what` names the kind of value in messages) and
/// to_string(E): what every named enum would otherwise write by hand.
#define LOOM_NAME_TABLE(E, table, what, ...)                                     \
    inline constexpr ::loom::Name<E> table[] = {__VA_ARGS__};                     \
    constexpr ::loom::NameTable<E> names_of(E) { return {what, table}; }         \
    constexpr const char* to_string(E value) { return names_of(value).to_string(value); }
