#pragma once
// How the CLI obtains a secret (a password, a private key). Secrets are never
// accepted as command-line arguments, where other users could read them in
// the process list and shells would keep them in their history. The sources,
// in order of precedence:
//   1. a file named by a "--<stem>-file" flag: its content minus ONE trailing
//      newline ("\n" or "\r\n"). A warning goes to stderr when the file is
//      accessible to group or others (geth and cast read such files silently;
//      we read it too, so existing setups keep working, but say so);
//   2. standard input when a "--<stem>-stdin" flag says so: all of it, minus
//      one trailing newline;
//   3. otherwise a hidden prompt on the controlling terminal (/dev/tty, echo
//      off; the terminal is restored on every path out, including SIGINT,
//      SIGTERM, SIGHUP and SIGQUIT), when stdin or stderr is a terminal and
//      --no-input was not given; asked twice when the secret is being chosen.
// With none of these available the read fails with a message naming the flags.

#include <cstddef>
#include <string>
#include <string_view>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace abci::cli {

/// A secret's bytes, wiped (abci::eth::secure_wipe) when the Secret is
/// destroyed. It cannot be copied, and its storage never reallocates, so no
/// stray copy of the secret is left in freed memory. Never log view().
class Secret {
public:
    /// The largest secret accepted; anything bigger is not a password or a key.
    static constexpr std::size_t kMaxSize = 16 * 1024;

    Secret();
    Secret(Secret&& other) noexcept = default;
    Secret& operator=(Secret&& other) noexcept;
    Secret(const Secret&) = delete;
    Secret& operator=(const Secret&) = delete;
    ~Secret();

    [[nodiscard]] std::string_view view() const noexcept { return value_; }
    [[nodiscard]] bool empty() const noexcept { return value_.empty(); }

    /// Reads everything from `fd` until end of file (or, when `stop_at_newline`,
    /// up to and excluding the first '\n'), then drops one trailing newline.
    /// Throws Error(invalid_input) naming `what` when more than kMaxSize bytes
    /// come, Error(unavailable) on a read error.
    [[nodiscard]] static Secret read_fd(int fd, bool stop_at_newline, const std::string& what);

private:
    void wipe() noexcept;

    std::string value_;  // capacity kMaxSize + 1 from construction on: never reallocated
};

/// Reads a secret from the file at `path` (see the header comment). Throws
/// Error(not_found) when it cannot be opened, what Secret::read_fd throws.
[[nodiscard]] Secret read_secret_file(const std::string& path);

/// Reads all of standard input as a secret. Throws Error(invalid_input) when
/// stdin is a terminal (the secret would be echoed: the prompt is the way
/// there), what Secret::read_fd throws.
[[nodiscard]] Secret read_secret_stdin(const std::string& what);

/// True when a hidden prompt is possible: /dev/tty can be opened and stdin or
/// stderr is a terminal (so a person is likely there to answer).
[[nodiscard]] bool can_prompt();

/// Asks "Enter the <description>: " on /dev/tty and reads one line with echo
/// off. When `confirm`, asks "Repeat the <description>: " too and throws
/// Error(invalid_input) if the two differ. Throws Error(unavailable) when
/// /dev/tty cannot be used.
[[nodiscard]] Secret prompt_secret(const std::string& description, bool confirm);

/// One secret a command needs, with the flags that name its sources:
/// "--<stem>-file FILE" (when `with_file`) and "--<stem>-stdin".
class SecretInput {
public:
    /// `what` names the secret in prompts and messages ("password", "private key").
    SecretInput(std::string what, std::string stem, bool with_file);

    /// Adds the flags to `command`. The flags bind to this object, so it must
    /// outlive the parsing. Returns the stdin flag (for `excludes` with another
    /// secret that also wants stdin).
    CLI::Option* add_to(CLI::App& command);

    /// The secret, from the first source given (file, stdin, prompt). `purpose`
    /// completes the prompt and error messages ("for keystore X"); `confirm`
    /// asks twice at the prompt (for a secret being chosen). Throws
    /// Error(invalid_input) naming the flags when no source is available
    /// (`no_input`, or nobody at a terminal), and what the readers throw.
    [[nodiscard]] Secret read(bool no_input, const std::string& purpose, bool confirm) const;

private:
    std::string what_;
    std::string stem_;
    bool with_file_;
    std::string file_;
    bool from_stdin_ = false;
};

}  // namespace abci::cli
