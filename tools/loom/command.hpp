// The subcommands of `loom`. Each lives in its own cmd_<name>.cpp and registers itself with
// LOOM_REGISTER_COMMAND, so adding a subcommand means adding a file and nothing else.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace loom::cli {

/// Exit statuses of the program.
inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 1;  ///< the command line was wrong
inline constexpr int exit_error = 2;  ///< a loom::Error: bad input file, unsupported option...

/// Runs a parsed subcommand and returns the exit status.
using Runner = std::function<int()>;

/// Declares the options of a subcommand on `sub` (already named and described) and returns
/// the runner that acts on them once the command line is parsed.
using Setup = Runner (*)(CLI::App& sub);

struct Command {
    std::string name;
    std::string description;
    Setup setup;
};

/// Every registered subcommand, in registration order (which is unspecified across files).
inline std::vector<Command>& registry()
{
    static std::vector<Command> commands;
    return commands;
}

struct Registrar {
    explicit Registrar(Command command) { registry().push_back(std::move(command)); }
};

}  // namespace loom::cli

#define LOOM_REGISTER_COMMAND(name, description, setup) \
    static const ::loom::cli::Registrar loom_register_##name{{#name, description, setup}}
