// loom: Matrix Market tools, SpMV and benchmarks from the command line.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "command.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

namespace {

struct ParsedCommand {
    CLI::App* app;
    loom::cli::Runner run;
};

std::vector<ParsedCommand> add_commands(CLI::App& app)
{
    auto commands = loom::cli::registry();
    std::sort(commands.begin(), commands.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    std::vector<ParsedCommand> added;
    for (const auto& command : commands) {
        auto* sub = app.add_subcommand(command.name, command.description);
        added.push_back({sub, command.setup(*sub)});
    }
    return added;
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace loom::cli;
    CLI::App app{"Loom " LOOM_VERSION ": sparse linear algebra on the CPU and the GPU", "loom"};
    app.set_version_flag("--version", LOOM_VERSION);
    app.require_subcommand(1);
    const auto commands = add_commands(app);
    try {
        app.parse(argc, argv);
        for (const auto& command : commands) {
            if (command.app->parsed()) return command.run();
        }
        return exit_usage;  // unreachable: one subcommand is required
    } catch (const CLI::ParseError& e) {
        // --help and --version arrive here too, with exit code 0.
        return app.exit(e) == 0 ? exit_ok : exit_usage;
    } catch (const loom::Error& e) {
        fmt::print(stderr, "loom: error: {}\n", e.what());
        return exit_error;
    } catch (const std::bad_alloc&) {
        fmt::print(stderr, "loom: error: out of memory\n");
        return exit_error;
    } catch (const std::exception& e) {
        fmt::print(stderr, "loom: internal error: {}\n", e.what());
        return 3;
    }
}
