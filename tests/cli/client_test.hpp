#pragma once
// What the black-box tests of abcictl's client commands share: a user's
// terminal (a clean home, the server it talks to, every argv it ran), and the
// checks of a refused command's one-line error.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "support/cli_runner.hpp"

namespace abci::test::client {

/// A person's shell: a home of its own (so state.db and config.toml are
/// theirs), ABCICTL_SERVER naming the server, and a record of every argv run,
/// so a test can prove that no secret was ever a command-line argument.
class Terminal {
public:
    explicit Terminal(std::string server, Env env = {}) : server_(std::move(server)), env_(std::move(env)) {}

    [[nodiscard]] const CleanHome& home() const noexcept { return home_; }
    [[nodiscard]] const std::string& server() const noexcept { return server_; }
    /// The child's environment: HOME, ABCICTL_SERVER, the constructor's and `extra`.
    [[nodiscard]] Env env(const Env& extra = {}) const {
        Env env = home_.env(env_);
        env.emplace("ABCICTL_SERVER", server_);
        for (const auto& [name, value] : extra) env[name] = value;
        return env;
    }
    /// $HOME/.local/state/abcictl/state.db (no XDG_STATE_HOME is set).
    [[nodiscard]] std::string state_db() const { return home_ / ".local/state/abcictl/state.db"; }

    /// Runs `abcictl args…` with `input` on stdin, recording the argv.
    os::CommandResult run(const std::vector<std::string>& args, std::string_view input = {}, const Env& extra = {}) {
        argvs_.push_back(args);
        return run_abcictl(args, input, env(extra));
    }
    /// run(), requiring exit 0; returns stdout.
    std::string ok(const std::vector<std::string>& args, std::string_view input = {}, const Env& extra = {}) {
        const auto r = run(args, input, extra);
        INFO("abcictl " << join(args) << "\nstdout: " << r.out << "\nstderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        return r.out;
    }
    /// `login --email … --password-stdin`, requiring success.
    void login(const std::string& email, const std::string& password) {
        (void)ok({"login", "--email", email, "--password-stdin"}, password + "\n");
    }

    /// Every argv run() saw.
    [[nodiscard]] const std::vector<std::vector<std::string>>& argvs() const noexcept { return argvs_; }
    /// The argv joined by spaces, for messages.
    [[nodiscard]] static std::string join(const std::vector<std::string>& args) {
        std::string joined;
        for (const auto& a : args) joined += (joined.empty() ? "" : " ") + a;
        return joined;
    }

private:
    CleanHome home_;
    std::string server_;
    Env env_;
    std::vector<std::vector<std::string>> argvs_;
};

/// Asserts that `r` ended with `code`, printed nothing on stdout and exactly
/// one line on stderr ("abcictl: …"); returns that line without its newline.
inline std::string one_line_failure(const os::CommandResult& r, int code) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == code);
    CHECK(r.out.empty());
    REQUIRE(!r.err.empty());
    CHECK(r.err.back() == '\n');
    CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK(r.err.rfind("abcictl: ", 0) == 0);
    return r.err.substr(0, r.err.size() - 1);
}

/// The lines of `text` (a trailing newline ends the last one).
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return lines;
}

/// The value of "key: value" in a record printed by abcictl's human form; "" when absent.
inline std::string field(const std::string& record, const std::string& key) {
    for (const auto& line : lines_of(record))
        if (line.rfind(key + ":", 0) == 0) {
            const auto value = line.find_first_not_of(' ', key.size() + 1);
            return value == std::string::npos ? "" : line.substr(value);
        }
    return {};
}

/// `text` in lower case (ASCII), e.g. an address as the store keeps it.
inline std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

/// The whole content of a file (binary), "" when it cannot be read.
inline std::string file_content(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Asserts that no argv a terminal ran contains any of `secrets`.
inline void require_no_secret_in_argv(const Terminal& terminal, const std::vector<std::string>& secrets) {
    for (const auto& argv : terminal.argvs())
        for (const auto& arg : argv)
            for (const auto& secret : secrets) {
                INFO("argv: " << Terminal::join(argv));
                CHECK(arg.find(secret) == std::string::npos);
            }
}

}  // namespace abci::test::client
