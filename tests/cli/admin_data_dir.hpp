#pragma once
// A server data directory for the `abcictl admin user|apikey|audit` tests,
// and runs of the real binary against it.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/store/data_dir.hpp"
#include "support/cli_runner.hpp"

namespace abci::test {

/// "<temporary directory>/data": not created here (the first `admin user add` does).
class AdminDataDir {
public:
    [[nodiscard]] std::string path() const { return temp_ / "data"; }
    [[nodiscard]] std::string database() const { return store::DataDir(path()).database().string(); }

    /// Runs `abcictl args… --data-dir path()`.
    [[nodiscard]] os::CommandResult run(std::vector<std::string> args, std::string_view input = {}) const {
        args.insert(args.end(), {"--data-dir", path()});
        return run_abcictl(args, input);
    }

    /// As run(), and REQUIREs exit 0; returns stdout.
    std::string ok(const std::vector<std::string>& args, std::string_view input = {}) const {
        const auto r = run(args, input);
        INFO("abcictl " << args.front() << "… stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        return r.out;
    }

    /// What `abcictl --json args…` prints, parsed.
    [[nodiscard]] nlohmann::json json(std::vector<std::string> args, std::string_view input = {}) const {
        args.insert(args.begin(), "--json");
        return nlohmann::json::parse(ok(args, input));
    }

    /// Adds a user without a password (no scrypt cost) and returns it as `user add --json` prints it.
    nlohmann::json add_user(const std::string& email, const std::string& role) const {
        return json({"admin", "user", "add", "--email", email, "--role", role, "--no-password"});
    }

    /// The store, opened directly as the server opens it.
    [[nodiscard]] std::unique_ptr<store::Store> open_store() const { return store::DataDir(path()).open_store(false); }

private:
    TempDir temp_;
};

/// `text` as lines, without their newlines.
[[nodiscard]] inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        lines.push_back(text.substr(start, end - start));
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

/// The permission bits of the file at `path`.
[[nodiscard]] inline unsigned permissions_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

}  // namespace abci::test
