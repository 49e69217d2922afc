// loom: Matrix Market tools, SpMV and benchmarks from the command line.
#include <cstdio>
#include <exception>
#include <new>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "command.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

int main(int argc, char** argv)
{
    using namespace loom::cli;
    CLI::App app{"Loom " LOOM_VERSION ": sparse linear algebra on the CPU and the GPU", "loom"};
    app.set_version_flag("--version", LOOM_VERSION);
    const auto run = add_registered<CommandList::top>(app);
    try {
        app.parse(argc, argv);
        return run();
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
