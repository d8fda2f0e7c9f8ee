#include "cli/secret_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/eth/bytes.hpp"
#include "core/os/fd.hpp"

namespace abci::cli {
namespace {

void write_tty(int fd, std::string_view text) noexcept {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n <= 0 && errno != EINTR) return;
        if (n > 0) text.remove_prefix(static_cast<std::size_t>(n));
    }
}

// The terminal state the signal handler must put back. A prompt is the only
// thing running while these are set (the CLI is single-threaded), and at most
// one prompt is open at a time.
int g_echo_fd = -1;
termios g_saved_termios{};

constexpr int kRestoringSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void restore_and_reraise(int sig) {
    // Only async-signal-safe calls here: tcsetattr, write, sigaction, raise.
    ::tcsetattr(g_echo_fd, TCSANOW, &g_saved_termios);
    write_tty(g_echo_fd, "\n");
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);  // delivered with the default action once this handler returns
}

// Turns terminal echo off for its lifetime. The previous terminal settings come
// back when it is destroyed, and also when one of kRestoringSignals kills the
// process meanwhile (a Ctrl-C at the prompt must not leave the shell blind).
class EchoOff {
public:
    explicit EchoOff(int fd) {
        if (::tcgetattr(fd, &g_saved_termios) != 0)
            throw Error(ErrorKind::unavailable, fmt::format("cannot read the terminal settings: {}", std::strerror(errno)));
        g_echo_fd = fd;
        struct sigaction handler {};
        handler.sa_handler = restore_and_reraise;
        sigemptyset(&handler.sa_mask);
        for (std::size_t i = 0; i < std::size(kRestoringSignals); ++i)
            ::sigaction(kRestoringSignals[i], &handler, &previous_[i]);
        termios quiet = g_saved_termios;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        quiet.c_lflag |= ECHONL;  // the Enter still moves to the next line
        // TCSAFLUSH drops what was typed before the prompt appeared, as getpass does.
        if (::tcsetattr(fd, TCSAFLUSH, &quiet) != 0) {
            const int error = errno;
            restore();
            throw Error(ErrorKind::unavailable, fmt::format("cannot turn terminal echo off: {}", std::strerror(error)));
        }
    }
    ~EchoOff() { restore(); }
    EchoOff(const EchoOff&) = delete;
    EchoOff& operator=(const EchoOff&) = delete;

private:
    void restore() noexcept {
        // TCSANOW keeps what is typed ahead after the answer (e.g. for the next prompt).
        ::tcsetattr(g_echo_fd, TCSANOW, &g_saved_termios);
        for (std::size_t i = 0; i < std::size(kRestoringSignals); ++i)
            ::sigaction(kRestoringSignals[i], &previous_[i], nullptr);
        g_echo_fd = -1;
    }

    struct sigaction previous_[std::size(kRestoringSignals)] {};
};

Secret prompt_once(int tty, const std::string& prompt) {
    // Echo goes off before the prompt shows, so nothing typed in answer is echoed or dropped.
    const EchoOff echo_off(tty);
    write_tty(tty, prompt);
    return Secret::read_fd(tty, true, "the answer");
}

}  // namespace

Secret::Secret() { value_.reserve(kMaxSize + 1); }

Secret& Secret::operator=(Secret&& other) noexcept {
    if (this != &other) {
        wipe();
        value_ = std::move(other.value_);
    }
    return *this;
}

Secret::~Secret() { wipe(); }

void Secret::wipe() noexcept {
    // Growing within the capacity never reallocates; it exposes the whole
    // buffer, including bytes beyond a newline that was dropped.
    value_.resize(value_.capacity());
    eth::secure_wipe(value_.data(), value_.size());
    value_.clear();
}

Secret Secret::read_fd(int fd, bool stop_at_newline, const std::string& what) {
    Secret secret;
    std::string& buffer = secret.value_;
    buffer.resize(kMaxSize + 1);  // within the reserved capacity: no reallocation
    std::size_t size = 0;
    for (;;) {
        if (size > kMaxSize)
            throw Error(ErrorKind::invalid_input, fmt::format("{} is longer than {} bytes", what, kMaxSize));
        // A line is read byte by byte so that nothing after it is consumed.
        const std::size_t want = stop_at_newline ? 1 : kMaxSize + 1 - size;
        const ssize_t n = ::read(fd, buffer.data() + size, want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error(ErrorKind::unavailable, fmt::format("cannot read {}: {}", what, std::strerror(errno)));
        if (n == 0) break;
        size += static_cast<std::size_t>(n);
        if (stop_at_newline && buffer[size - 1] == '\n') break;
    }
    if (size > 0 && buffer[size - 1] == '\n') --size;
    if (size > 0 && buffer[size - 1] == '\r') --size;
    buffer.resize(size);
    return secret;
}

Secret read_secret_file(const std::string& path) {
    const os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0)
        throw Error(ErrorKind::not_found, fmt::format("cannot read the file {}: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) != 0)
        std::cerr << fmt::format("abcictl: warning: {} can be read or changed by other users (mode {:04o}); "
                                 "'chmod 600 {}' keeps the secret yours\n",
                                 path, st.st_mode & 07777, path);
    return Secret::read_fd(fd.get(), false, "the file " + path);
}

Secret read_secret_stdin(const std::string& what) {
    if (::isatty(STDIN_FILENO))
        throw Error(ErrorKind::invalid_input,
                    fmt::format("standard input is a terminal: pipe the {} in, or leave out the stdin flag "
                                "to be asked for it with the input hidden",
                                what));
    return Secret::read_fd(STDIN_FILENO, false, "standard input");
}

bool can_prompt() {
    if (!::isatty(STDIN_FILENO) && !::isatty(STDERR_FILENO)) return false;
    const os::UniqueFd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
    return tty.get() >= 0;
}

Secret prompt_secret(const std::string& description, bool confirm) {
    const os::UniqueFd tty(::open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (tty.get() < 0)
        throw Error(ErrorKind::unavailable, fmt::format("cannot open the terminal: {}", std::strerror(errno)));
    Secret first = prompt_once(tty.get(), "Enter the " + description + ": ");
    if (confirm) {
        const Secret second = prompt_once(tty.get(), "Repeat the " + description + ": ");
        if (first.view() != second.view())
            throw Error(ErrorKind::invalid_input, "the two entries differ; nothing was changed, try again");
    }
    return first;
}

SecretInput::SecretInput(std::string what, std::string stem, bool with_file)
    : what_(std::move(what)), stem_(std::move(stem)), with_file_(with_file) {}

CLI::Option* SecretInput::add_to(CLI::App& command) {
    if (with_file_)
        command.add_option("--" + stem_ + "-file", file_, fmt::format("Read the {} from this file", what_))
            ->type_name("FILE");
    return command.add_flag("--" + stem_ + "-stdin", from_stdin_,
                            fmt::format("Read the {} from standard input", what_));
}

Secret SecretInput::read(bool no_input, const std::string& purpose, bool confirm) const {
    if (!file_.empty()) return read_secret_file(file_);
    if (from_stdin_) return read_secret_stdin(what_);
    if (no_input || !can_prompt()) {
        const std::string flags = with_file_ ? fmt::format("--{0}-file FILE or --{0}-stdin", stem_)
                                             : fmt::format("--{}-stdin", stem_);
        throw Error(ErrorKind::invalid_input,
                    fmt::format("the {} {} is needed: pass {} ({})", what_, purpose, flags,
                                no_input ? "--no-input forbids asking" : "there is no terminal to ask on"));
    }
    return prompt_secret(what_ + " " + purpose, confirm);
}

}  // namespace abci::cli
