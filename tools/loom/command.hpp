// The subcommands of `loom` and of `loom bench`. Each lives in its own file
// (cmd_<name>.cpp, bench_<name>.cpp) and registers itself, so adding one means
// adding a file and nothing else.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace loom::cli {

/// Exit statuses of the program (README "Exit status"). Messages go to stderr as
/// "loom: error: ...".
inline constexpr int exit_ok = 0;
inline constexpr int exit_usage = 1;  ///< the command line was wrong
/// Any error Loom reports: a bad input file, an unsupported option, a failed write, and
/// every other exception (an internal one is reported with its message).
inline constexpr int exit_error = 2;
/// Only `loom solve`: the solve did not converge (the message says why).
inline constexpr int exit_not_converged = 3;

/// Runs a parsed subcommand and returns the exit status.
using Runner = std::function<int()>;

/// Declares the options of a subcommand on `sub` (already named and described)
/// and returns the runner that acts on them once the command line is parsed.
using Setup = Runner (*)(CLI::App& sub);

struct Command {
    std::string name;
    std::string description;
    Setup setup;
};

/// Which list a command belongs to: `loom <name>` or `loom bench <name>`.
enum class CommandList { top, bench };

/// Every registered command of a list, in registration order (unspecified
/// across files).
template <CommandList list>
std::vector<Command>& registry()
{
    static std::vector<Command> commands;
    return commands;
}

template <CommandList list>
struct Registrar {
    explicit Registrar(Command command) { registry<list>().push_back(std::move(command)); }
};

/// Adds every command of a list as a subcommand of `app` and returns the runner
/// that runs the one parsed (exactly one is required).
template <CommandList list>
Runner add_registered(CLI::App& app);

}  // namespace loom::cli

/// `loom <name>`: a subcommand in its own cmd_<name>.cpp.
#define LOOM_REGISTER_COMMAND(name, description, setup)                                     \
    static const ::loom::cli::Registrar<::loom::cli::CommandList::top> loom_register_##name \
    {                                                                                       \
        {                                                                                   \
#name, description, setup                                                       \
        }                                                                                   \
    }

/// `loom bench <name>`: a benchmark in its own bench_<id>.cpp. `id` is an
/// identifier, `name` the string typed on the command line (it may hold dashes:
/// "spmv-stencil").
#define LOOM_REGISTER_BENCH(id, name, description, setup)                                         \
    static const ::loom::cli::Registrar<::loom::cli::CommandList::bench> loom_register_bench_##id \
    {                                                                                             \
        {                                                                                         \
            name, description, setup                                                              \
        }                                                                                         \
    }
