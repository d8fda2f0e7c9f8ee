#pragma once
// Black-box runs of the real abcictl binary, in an environment the developer's
// shell cannot leak into.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/os/process.hpp"

namespace abci::test {

using Env = std::map<std::string, std::string>;

/// A fresh directory under $TMPDIR (or /tmp), mode 0700, removed with all its
/// content on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
    /// path() / relative, as a string (for argv).
    [[nodiscard]] std::string operator/(const std::string& relative) const;
    /// Writes `content` to path() / relative (mode set before the content is
    /// written) and returns its path.
    std::string write(const std::string& relative, std::string_view content,
                      std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                                    std::filesystem::perms::owner_write) const;

private:
    std::filesystem::path path_;
};

/// An empty home directory for one test (also a scratch place for its
/// files): env() sets HOME to it, so abcictl finds no user's files and
/// writes nowhere else.
class CleanHome : public TempDir {
public:
    /// {"HOME": path()} plus `extra`.
    [[nodiscard]] Env env(Env extra = {}) const;
};

/// The argv that runs `abcictl args…` (test::abcictl_binary()) in this
/// process's environment minus every ABCICTL_*, ABCI_* and XDG_* variable
/// not in `env` (so a developer's settings cannot change the outcome); the
/// caller adds `env` itself (os::run_command's or os::Process's extra_env).
[[nodiscard]] std::vector<std::string> abcictl_argv(const std::vector<std::string>& args, const Env& env);

/// Runs `abcictl args…` (test::abcictl_binary()) with `input` on stdin and
/// returns its exit code and output. The child's environment is this
/// process's minus every ABCICTL_*, ABCI_* and XDG_* variable (so a
/// developer's settings cannot change the outcome), plus `env`. Throws what
/// os::run_command throws (timeout after 60 s).
[[nodiscard]] os::CommandResult run_abcictl(const std::vector<std::string>& args, std::string_view input = {},
                                            const Env& env = {});

/// What happened in a run_abcictl_on_terminal().
struct TerminalRun {
    int exit_code = -1;       // as os::CommandResult: 128+signal when killed; -1 when it hung
    std::string transcript;   // everything abcictl wrote to the terminal (prompts included)
    int prompts = 0;          // how many prompts were seen
    bool echoed_at_prompt = false;  // terminal echo was on while some prompt waited
    bool echo_after = false;        // terminal echo was on after abcictl ended
};

/// Runs abcictl (environment as run_abcictl) on a fresh pseudo-terminal that
/// is its controlling terminal, stdin, stdout and stderr, like a person at a
/// terminal: whenever its output ends with ": " (a prompt) the next of
/// `answers` is typed, followed by Enter; with `interrupt`, the prompt after
/// the last answer gets a SIGINT (Ctrl-C) instead. Gives up after 20 s.
[[nodiscard]] TerminalRun run_abcictl_on_terminal(const std::vector<std::string>& args,
                                                  const std::vector<std::string>& answers, const Env& env = {},
                                                  bool interrupt = false);

}  // namespace abci::test
