#pragma once
// Child processes: run-and-capture for one-shot tools, and an RAII handle for
// long-running ones (an anvil node) that is always stopped and reaped.
//
// A child never inherits this process's environment wholesale: it gets only
// PATH, HOME, TMPDIR, TZ, LANG, LANGUAGE and LC_* from it, plus what its
// caller names in `extra_env`. The server's secrets may sit in its
// environment (ABCI_ADMIN_PASSWORD, ABCI_SIGNER_PASSWORD…), and a child's
// environment is readable wherever its /proc/<pid>/environ is.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abci::os {

/// The variables among `names` that this process has, with their values: for
/// a child that needs more of the environment than the allow-list above.
[[nodiscard]] std::map<std::string, std::string> inherited_env(const std::vector<std::string>& names);

struct CommandResult {
    int exit_code = -1;  // the child's exit status, or 128+signal when it was killed
    std::string out;     // everything written to stdout
    std::string err;     // everything written to stderr
};

/// Runs argv[0] (looked up in PATH when it has no '/') with `input` on stdin,
/// waits for it and returns its status and output. Throws Error(unavailable)
/// when the program cannot be started, Error(timeout) when it outlives
/// `timeout` (it is killed first).
[[nodiscard]] CommandResult run_command(const std::vector<std::string>& argv, std::string_view input = {},
                                        std::chrono::milliseconds timeout = std::chrono::seconds(60),
                                        const std::map<std::string, std::string>& extra_env = {});

/// A started child process. The destructor sends SIGTERM, waits up to two
/// seconds, then SIGKILLs and reaps, so no child outlives its owner.
class Process {
public:
    /// Starts argv with stdout and stderr appended to `log_path` (or /dev/null
    /// when empty), in the allowed part of this process's environment plus
    /// `extra_env` (which overrides variables of the same name). Throws
    /// Error(unavailable) when it cannot be started.
    Process(const std::vector<std::string>& argv, const std::string& log_path = {},
            const std::map<std::string, std::string>& extra_env = {});
    ~Process();
    Process(Process&& other) noexcept;
    Process& operator=(Process&& other) noexcept;
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// True while the child has not exited.
    [[nodiscard]] bool running();
    /// Stops the child (SIGTERM, then SIGKILL after `grace`) and reaps it;
    /// idempotent. Returns its exit status (128+signal when a signal ended
    /// it), also when it had already exited; -1 for a moved-from handle.
    int stop(std::chrono::milliseconds grace = std::chrono::seconds(2)) noexcept;

private:
    pid_t pid_ = -1;
    int exit_status_ = -1;  // decoded, once reaped
};

/// A TCP port on 127.0.0.1 that was free when asked (bound to port 0 and released).
[[nodiscard]] std::uint16_t free_loopback_port();

/// Polls until something accepts TCP connections on 127.0.0.1:port; false on timeout.
[[nodiscard]] bool wait_for_port(std::uint16_t port, std::chrono::milliseconds timeout);

}  // namespace abci::os
