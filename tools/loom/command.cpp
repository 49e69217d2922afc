#include "command.hpp"

#include <algorithm>
#include <memory>

#include <CLI/CLI.hpp>

namespace loom::cli {

template <CommandList list>
Runner add_registered(CLI::App& app)
{
    auto commands = registry<list>();
    std::sort(commands.begin(), commands.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    struct Added {
        CLI::App* sub;
        Runner run;
    };
    auto added = std::make_shared<std::vector<Added>>();
    for (const auto& command : commands) {
        auto* sub = app.add_subcommand(command.name, command.description);
        added->push_back({sub, command.setup(*sub)});
    }
    app.require_subcommand(1);
    return [added] {
        for (const auto& command : *added) {
            if (command.sub->parsed()) return command.run();
        }
        return exit_usage;  // unreachable: one subcommand is required
    };
}

template Runner add_registered<CommandList::top>(CLI::App&);
template Runner add_registered<CommandList::bench>(CLI::App&);

}  // namespace loom::cli
