// Every shell script in the repository passes shellcheck (issue 14: a quote
// broken by an apostrophe in examples/approve-pending.sh went unnoticed).
// The scripts are what git tracks: those named *.sh or *.bash and those whose
// first line runs sh or bash.

#include <catch2/catch.hpp>
#include <regex>
#include <sstream>

#include "generated_files.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

std::vector<std::string> tracked_shell_scripts() {
    const auto files = os::run_command({"git", "-C", test::source_path("."), "ls-files", "-z"});
    REQUIRE(files.exit_code == 0);
    const std::regex shebang(R"(^#!\s*/(usr/)?bin/(env\s+)?(ba)?sh\b)");
    std::vector<std::string> scripts;
    std::istringstream names(files.out);
    for (std::string name; std::getline(names, name, '\0');) {
        const auto path = test::source_path(name);
        const auto first_line = test::read_text(path).substr(0, 200);
        if (name.ends_with(".sh") || name.ends_with(".bash") || std::regex_search(first_line, shebang))
            scripts.push_back(path);
    }
    return scripts;
}

}  // namespace

TEST_CASE("shellcheck finds nothing in the repository's shell scripts", "[cli][shellcheck]") {
    REQUIRE(test::on_path("shellcheck"));  // scripts/setup installs it
    const auto scripts = tracked_shell_scripts();
    // The examples, the setup and generator scripts and the bash completion at least.
    for (const char* known : {"examples/approve-pending.sh", "examples/cron-health.sh", "scripts/setup",
                              "scripts/gen-cli-files", "completions/abcictl.bash"}) {
        INFO(known);
        CHECK(std::find(scripts.begin(), scripts.end(), test::source_path(known)) != scripts.end());
    }
    std::vector<std::string> argv{"shellcheck", "--format=gcc"};
    argv.insert(argv.end(), scripts.begin(), scripts.end());
    const auto r = os::run_command(argv);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
}
