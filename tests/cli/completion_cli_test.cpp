// Shell completions: the committed scripts are exactly what `abcictl
// completion SHELL` prints, they parse in bash, zsh and fish, and real shells
// complete commands, options and values from them. (Chain ids from a real
// server's cache: examples_test.cpp, which has one.)

#include <catch2/catch.hpp>

#include "generated_files.hpp"
#include "support/cli_runner.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

struct CompletionScript {
    const char* shell;
    const char* file;  // in the source tree
};
constexpr CompletionScript kCompletionScripts[] = {
    {"bash", "completions/abcictl.bash"}, {"zsh", "completions/_abcictl"}, {"fish", "completions/abcictl.fish"}};

/// What bash's completion function offers for the words (the last one being
/// completed), one candidate a line.
std::string bash_completes(const std::vector<std::string>& words, const test::Env& env = {}) {
    std::string array;
    for (const auto& w : words) array += " '" + w + "'";
    const std::string program = "source \"$1\" && COMP_WORDS=(" + array + ") && COMP_CWORD=" +
                                std::to_string(words.size() - 1) +
                                " && _abcictl && printf '%s\\n' \"${COMPREPLY[@]}\"";
    const auto r = os::run_command({"bash", "-c", program, "bash", test::source_path("completions/abcictl.bash")}, {},
                                   std::chrono::seconds(20), env);
    INFO("bash: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    return r.out;
}

}  // namespace

TEST_CASE("the committed completion scripts are what abcictl completion prints", "[cli][completion]") {
    for (const auto& script : kCompletionScripts) {
        const auto r = test::run_abcictl({"completion", script.shell});
        INFO(script.shell << ": " << r.err);
        REQUIRE(r.exit_code == 0);
        INFO(script.file << " differs from `abcictl completion " << script.shell << "`: " << test::kRegenerateHint);
        CHECK(r.out == test::read_text(test::source_path(script.file)));
    }
    const auto bad = test::run_abcictl({"completion", "tcsh"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.out.empty());
}

TEST_CASE("the completion scripts parse in bash, zsh and fish", "[cli][completion]") {
    for (const auto& script : kCompletionScripts) {
        INFO(script.shell << " is needed to check " << script.file << ": run scripts/setup");
        REQUIRE(test::on_path(script.shell));
        const auto r = os::run_command({script.shell, "-n", test::source_path(script.file)});
        INFO(script.shell << " -n " << script.file << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.err.empty());
    }
    // zsh: loads after compinit, as a user's .zshrc would source it, and registers itself.
    const test::CleanHome home;
    const auto zsh = os::run_command({"zsh", "-f", "-c",
                                      "autoload -Uz compinit && compinit -u -d \"$2\" && source \"$1\" && "
                                      "print -r -- ${_comps[abcictl]}",
                                      "zsh", test::source_path("completions/_abcictl"), home / ".zcompdump"});
    INFO("zsh: " << zsh.err);
    CHECK(zsh.exit_code == 0);
    CHECK(zsh.out == "_abcictl\n");
}

TEST_CASE("bash completes commands, options and their values from the script", "[cli][completion]") {
    CHECK(bash_completes({"abcictl", "ch"}) == "chains\n");
    CHECK(bash_completes({"abcictl", "mint-role", "--role", "v"}) == "verifier\nvaluator\n");
    CHECK(bash_completes({"abcictl", "mint-entity", "--type", ""}) == "report\nverification\nvaluation\ncertificate\n");
    CHECK(bash_completes({"abcictl", "health", "--format", "n"}) == "nagios\n");
    CHECK(bash_completes({"abcictl", "--color", "a"}) == "auto\nalways\n");  // as declared
    CHECK(bash_completes({"abcictl", "completion", "z"}) == "zsh\n");
    CHECK(bash_completes({"abcictl", "chains", ""}) == "list\nstatus\n");
    CHECK(bash_completes({"abcictl", "admin", "user", "set"}) == "set-role\n");
    // Roles and scopes, which once completed nothing (issue 14).
    CHECK(bash_completes({"abcictl", "admin", "user", "add", "--role", "a"}) == "admin\n");
    CHECK(bash_completes({"abcictl", "admin", "user", "set-role", "--role", "f"}) == "farmer\n");
    CHECK(bash_completes({"abcictl", "admin", "apikey", "create", "--scope", "abci:h"}) == "abci:health\n");
    // Global options still complete after a subcommand (CLI11 falls through to them)…
    CHECK(bash_completes({"abcictl", "chains", "list", "--js"}) == "--json\n");
    // …and an option's value is skipped, not taken for a subcommand.
    CHECK(bash_completes({"abcictl", "--server", "chains", "mint-r"}) == "mint-role\n");
    CHECK(bash_completes({"abcictl", "keystore", "new", "--password-"}) == "--password-file\n--password-stdin\n");
    // --opt=value, as bash splits it at '='.
    CHECK(bash_completes({"abcictl", "mint-role", "--role", "=", "p"}) == "producer\n");

    // Files for the file options.
    test::CleanHome home;
    const auto metadata = home.write("metadata.json", "{}");
    CHECK(bash_completes({"abcictl", "mint-entity", "--metadata", home / "meta"}) == metadata + "\n");
    CHECK(bash_completes({"abcictl", "keystore", "list", "--dir", home.path().string()}) == home.path().string() + "\n");
}

TEST_CASE("fish completes commands, options and their values from the script", "[cli][completion]") {
    REQUIRE(test::on_path("fish"));
    auto fish_completes = [](const std::string& line) {
        const auto r = os::run_command({"fish", "--no-config", "-c", "source $argv[1]; complete -C $argv[2]",
                                        test::source_path("completions/abcictl.fish"), line});
        INFO("fish: " << r.err);
        REQUIRE(r.exit_code == 0);
        // One candidate a line, then a tab and its description.
        std::string words;
        std::istringstream lines(r.out);
        for (std::string l; std::getline(lines, l);) words += l.substr(0, l.find('\t')) + "\n";
        return words;
    };
    CHECK(fish_completes("abcictl ch") == "chains\n");
    CHECK(fish_completes("abcictl mint-role --role v") == "valuator\nverifier\n");
    CHECK(fish_completes("abcictl chains list --js") == "--json\n");
    CHECK(fish_completes("abcictl --server x chains s") == "status\n");
}

TEST_CASE("__complete-chains prints nothing without a chain cache and creates no state", "[cli][completion]") {
    test::CleanHome home;
    const auto r = test::run_abcictl({"__complete-chains"}, {}, home.env());
    CHECK(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
    CHECK_FALSE(std::filesystem::exists(home.path() / ".local/state/abcictl/state.db"));
    // Hidden: no user sees it in the help or the completions.
    CHECK(test::run_abcictl({"--help"}).out.find("__complete") == std::string::npos);
    CHECK(test::read_text(test::source_path("completions/abcictl.bash")).find("\"__") == std::string::npos);
}
