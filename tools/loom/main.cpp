// loom: Matrix Market tools, SpMV and benchmarks from the command line.
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "command.hpp"
#include "loom/base/error.hpp"
#include "loom/config.hpp"

namespace {

/// Every line of a message cut to a readable length: command lines and files may hold
/// anything, and a message must stay a message.
std::string bounded_lines(const std::string& text)
{
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        out += loom::cli::bounded(std::string_view(text).substr(start, end - start), 300);
        if (end < text.size()) out += '\n';
        start = end + 1;
    }
    return out;
}

void report(const char* kind, const std::string& what)
{
    fmt::print(stderr, "loom: {}: {}\n", kind, bounded_lines(what));
}

}  // namespace

int main(int argc, char** argv)
{
    using namespace loom::cli;
    CLI::App app{"Loom " LOOM_VERSION ": sparse linear algebra on the CPU and the GPU", "loom"};
    app.set_version_flag("--version", LOOM_VERSION);
    // One style for every message: "loom: error: ..." (also for command-line errors).
    app.failure_message([](const CLI::App*, const CLI::Error& e) {
        return "loom: error: " + bounded_lines(e.what()) + "\nRun with --help for the options.\n";
    });
    const auto run = add_registered<CommandList::top>(app);
    try {
        app.parse(argc, argv);
        return run();
    } catch (const CLI::ParseError& e) {
        // --help and --version arrive here too, with exit code 0.
        return app.exit(e) == 0 ? exit_ok : exit_usage;
    } catch (const loom::Error& e) {
        report("error", e.what());
    } catch (const std::bad_alloc&) {
        report("error", "out of memory");
    } catch (const std::length_error& e) {
        report("error", std::string("a size beyond what memory can hold (") + e.what() + ")");
    } catch (const std::exception& e) {
        // Not a Loom error, but still an error Loom reports: 3 means "did not converge" only.
        report("error", std::string("internal error: ") + e.what());
    }
    return exit_error;
}
