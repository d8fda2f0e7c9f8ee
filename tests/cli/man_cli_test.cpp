// The man page: the committed man/abcictl.1 is what `abcictl __man` makes of
// its template, groff renders it without a warning, and it documents every
// command, environment variable, file and exit status. And `cmake --install`
// puts the binary, the page and the completions in their standard places.

#include <catch2/catch.hpp>
#include <regex>

#include "generated_files.hpp"
#include "support/cli_runner.hpp"
#include "support/tools.hpp"

using namespace abci;

namespace {

/// The man page's source with roff's escaped dashes as plain ones, for searching.
std::string man_source_text() {
    auto text = test::read_text(test::source_path("man/abcictl.1"));
    for (auto at = text.find("\\-"); at != std::string::npos; at = text.find("\\-", at)) text.erase(at, 1);
    return text;
}

}  // namespace

TEST_CASE("the committed man page is what abcictl __man makes of its template", "[cli][man]") {
    const auto r = test::run_abcictl({"__man", test::source_path("man/abcictl.1.in")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    INFO("man/abcictl.1 differs from `abcictl __man man/abcictl.1.in`: " << test::kRegenerateHint);
    CHECK(r.out == test::read_text(test::source_path("man/abcictl.1")));
    CHECK(test::run_abcictl({"__man", "/nonexistent/abcictl.1.in"}).exit_code == 1);
}

TEST_CASE("groff renders the man page without a warning", "[cli][man]") {
    REQUIRE(test::on_path("groff"));
    const auto r = os::run_command({"groff", "-man", "-Tutf8", "-ww", "-z", test::source_path("man/abcictl.1")});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    // man itself (man-db, which scripts/setup installs), as a user would read
    // it: it also checks with groff -ww.
    REQUIRE(test::on_path("man"));
    const auto m = os::run_command({"man", "--warnings", "-l", test::source_path("man/abcictl.1")}, {},
                                   std::chrono::seconds(60), {{"MANPAGER", "cat"}, {"MANWIDTH", "80"}});
    INFO(m.err);
    CHECK(m.exit_code == 0);
    CHECK(m.err.empty());
    CHECK(m.out.find("mint-role") != std::string::npos);
    // Only ASCII in the source: groff reads Latin-1 unless told otherwise.
    const auto source = test::read_text(test::source_path("man/abcictl.1"));
    CHECK(std::find_if(source.begin(), source.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }) ==
          source.end());
}

TEST_CASE("the man page documents every command, variable, file and exit status", "[cli][man]") {
    const auto text = man_source_text();
    for (const char* command :
         {"abcictl login", "abcictl logout", "abcictl whoami", "abcictl mint-role", "abcictl mint-entity",
          "abcictl balance", "abcictl chains list", "abcictl chains status", "abcictl tokens metadata",
          "abcictl health", "abcictl serve", "abcictl admin user add", "abcictl admin user link-wallet",
          "abcictl admin apikey create", "abcictl admin audit", "abcictl admin contract deploy",
          "abcictl keystore new", "abcictl keystore address", "abcictl completion", "abcictl version"}) {
        INFO(command);
        CHECK(text.find(command) != std::string::npos);
    }
    for (const char* option : {"--password-stdin", "--private-key-stdin", "--idempotency-key", "--no-browser",
                               "--warn-latency", "--refresh", "--devnet", "--json", "--color", "--no-input"}) {
        INFO(option);
        CHECK(text.find(option) != std::string::npos);
    }
    std::vector<std::string> variables{"ABCICTL_SERVER", "ABCICTL_PROFILE", "ABCICTL_TOKEN", "ABCICTL_KEYSTORE_DIR",
                                       "NO_COLOR",       "XDG_STATE_HOME",  "XDG_CONFIG_HOME", "XDG_DATA_HOME"};
    // Every variable serve reads, as its settings name them: a new one must be documented.
    const auto settings = test::read_text(test::source_path("src/serve/settings.cpp"));
    const std::regex abci_variable("\"(ABCI_[A-Z_]+)\"");
    for (auto it = std::sregex_iterator(settings.begin(), settings.end(), abci_variable); it != std::sregex_iterator();
         ++it)
        variables.push_back((*it)[1]);
    REQUIRE(variables.size() > 15);
    for (const auto& variable : variables) {
        INFO(variable);
        const bool documented = text.find(".B " + variable) != std::string::npos ||
                                text.find(variable + " \",") != std::string::npos ||
                                text.find("\" " + variable) != std::string::npos;
        CHECK(documented);
    }
    for (const char* file : {"state.db", "config.toml", "keystores", "devnet"}) {
        INFO(file);
        CHECK(text.find(file) != std::string::npos);
    }
    for (const char* section : {".SH ENVIRONMENT", ".SH FILES", ".SH EXIT STATUS", ".SH EXAMPLES"})
        CHECK(text.find(section) != std::string::npos);
    for (const char* status : {".B 0\n", ".B 1\n", ".B 2\n", ".B 3\n", ".B 4\n", "WARNING", "CRITICAL", "UNKNOWN"}) {
        INFO(status);
        CHECK(text.find(status) != std::string::npos);
    }
}

TEST_CASE("cmake --install puts the binary, man page and completions in their places", "[cli][install]") {
    // The build tree the binary under test belongs to: <build>/src/abcictl.
    const auto build = std::filesystem::path(test::abcictl_binary()).parent_path().parent_path();
    REQUIRE(std::filesystem::exists(build / "CMakeCache.txt"));
    test::TempDir prefix;
    const auto r = os::run_command({"cmake", "--install", build.string(), "--prefix", prefix.path().string()}, {},
                                   std::chrono::seconds(120));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Compressed as Debian ships man pages (gzip -9n: no name or time in it, cmake/package.cmake).
    const auto page = os::run_command({"gzip", "-dc", prefix / "share/man/man1/abcictl.1.gz"});
    CHECK(page.exit_code == 0);
    CHECK(page.out == test::read_text(test::source_path("man/abcictl.1")));
    const std::pair<const char*, const char*> installed[] = {
        {"share/bash-completion/completions/abcictl", "completions/abcictl.bash"},
        {"share/zsh/vendor-completions/_abcictl", "completions/_abcictl"},
        {"share/fish/vendor_completions.d/abcictl.fish", "completions/abcictl.fish"},
    };
    for (const auto& [where, source] : installed) {
        INFO(where);
        CHECK(test::read_text(prefix / where) == test::read_text(test::source_path(source)));
    }
    // The metrics exposition, where the installed binary looks for it (core/metrics/exposition.hpp): not executable.
    const auto exposition = std::filesystem::status(prefix / "lib/abcictl/libabcictl-prometheus.so");
    CHECK(std::filesystem::is_regular_file(exposition));
    CHECK((exposition.permissions() & std::filesystem::perms::owner_exec) == std::filesystem::perms::none);
    const auto version = os::run_command({prefix / "bin/abcictl", "version", "-q"});
    CHECK(version.exit_code == 0);
    CHECK(version.out == ABCI_VERSION "\n");
}
