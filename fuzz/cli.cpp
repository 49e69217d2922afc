// The option parser of `loom`: the input is a command line, one argument per line (after
// "loom"). It is parsed by every registered command's options, as the program does, but no
// command runs. Besides crashes, hangs and sanitizer reports, a finding is any exception that
// is neither CLI11's ParseError (a usage error, --help, --version) nor a loom::Error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "command.hpp"
#include "fuzz_support.hpp"

namespace {

/// "loom" and the input's lines.
std::vector<std::string> arguments(std::string_view input)
{
    std::vector<std::string> args{"loom"};
    while (!input.empty()) {
        const auto end = std::min(input.find('\n'), input.size());
        args.emplace_back(input.substr(0, end));
        input.remove_prefix(std::min(end + 1, input.size()));
    }
    return args;
}

/// The program's option parser, as tools/loom/main.cpp builds it, with the runner that owns
/// the variables the options write (they live as long as it does). Built once per process:
/// building every command's options is most of the work of an input otherwise (55-136
/// inputs/s); each input starts from App::clear(), which resets what the last one parsed.
/// The variables keep the last input's values, as in a program that parses twice; nothing
/// here reads them (no command runs).
struct Program {
    CLI::App app{"loom", "loom"};
    loom::cli::Runner run;

    Program()
    {
        app.set_version_flag("--version", "0");
        run = loom::cli::add_registered<loom::cli::CommandList::top>(app);
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto args = arguments({reinterpret_cast<const char*>(data), size});
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());

    static Program program;
    auto& app = program.app;
    app.clear();
    loom::fuzz::expect_loom_error("loom's option parser", [&] {
        try {
            app.parse(static_cast<int>(argv.size()), argv.data());
        } catch (const CLI::ParseError&) {
            // a usage error, --help or --version: main prints it
        }
        return 0;
    });
    return 0;
}
