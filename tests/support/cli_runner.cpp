#include "support/cli_runner.hpp"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <fstream>
#include <stdexcept>

#include "core/os/fd.hpp"
#include "support/tools.hpp"

extern char** environ;

namespace abci::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/abcictl-test-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
}

std::string TempDir::operator/(const std::string& relative) const { return (path_ / relative).string(); }

std::string TempDir::write(const std::string& relative, std::string_view content, fs::perms mode) const {
    const fs::path file = path_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    fs::permissions(file, mode);
    out << content;
    if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
    return file.string();
}

Env CleanHome::env(Env extra) const {
    extra.emplace("HOME", path().string());
    return extra;
}

namespace {

// Variables of this process that must not reach abcictl: its own settings and
// the XDG directories, unless the test sets them in `env`.
std::vector<std::string> leaking_variables(const Env& env) {
    std::vector<std::string> names;
    for (char** e = environ; *e; ++e) {
        const std::string_view entry(*e);
        std::string name(entry.substr(0, entry.find('=')));
        const bool ours = name.starts_with("ABCICTL_") || name.starts_with("ABCI_") || name.starts_with("XDG_");
        if (ours && !env.count(name)) names.push_back(std::move(name));
    }
    return names;
}

int status_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

bool echo_on(int terminal) {
    termios t{};
    return ::tcgetattr(terminal, &t) == 0 && (t.c_lflag & ECHO) != 0;
}

}  // namespace

std::vector<std::string> abcictl_argv(const std::vector<std::string>& args, const Env& env) {
    // os::run_command and os::Process can add variables but not remove them; env(1) -u does.
    std::vector<std::string> argv{"env"};
    for (const auto& name : leaking_variables(env)) argv.insert(argv.end(), {"-u", name});
    argv.push_back(abcictl_binary());
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

os::CommandResult run_abcictl(const std::vector<std::string>& args, std::string_view input, const Env& env) {
    return os::run_command(abcictl_argv(args, env), input, std::chrono::seconds(60), env);
}

TerminalRun run_abcictl_on_terminal(const std::vector<std::string>& args, const std::vector<std::string>& answers,
                                    const Env& env, bool interrupt) {
    // Everything the child needs is built before fork(): after it, only exec.
    std::vector<std::string> strings{abcictl_binary()};
    strings.insert(strings.end(), args.begin(), args.end());
    const std::size_t argc = strings.size();
    const auto dropped = leaking_variables(env);
    for (char** e = environ; *e; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if (!env.count(name) && std::find(dropped.begin(), dropped.end(), name) == dropped.end())
            strings.emplace_back(entry);
    }
    for (const auto& [name, value] : env) strings.push_back(name + "=" + value);
    std::vector<char*> pointers;
    for (auto& s : strings) pointers.push_back(s.data());
    pointers.insert(pointers.begin() + static_cast<std::ptrdiff_t>(argc), nullptr);
    pointers.push_back(nullptr);

    int terminal = -1;
    const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, nullptr);
    if (pid < 0) throw std::runtime_error("forkpty failed");
    if (pid == 0) {
        ::execve(pointers[0], pointers.data(), pointers.data() + argc + 1);
        ::_exit(127);
    }
    const os::UniqueFd owner(terminal);

    TerminalRun run;
    std::size_t answered_up_to = 0;  // transcript offset after which a new prompt is awaited
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd p{terminal, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0) continue;
        char buffer[4096];
        const ssize_t n = ::read(terminal, buffer, sizeof buffer);
        if (n <= 0) break;  // EIO: the child closed the terminal
        run.transcript.append(buffer, static_cast<std::size_t>(n));
        if (run.transcript.size() <= answered_up_to || !run.transcript.ends_with(": ")) continue;
        run.echoed_at_prompt = run.echoed_at_prompt || echo_on(terminal);
        answered_up_to = run.transcript.size();
        const auto index = static_cast<std::size_t>(run.prompts++);
        if (index < answers.size()) {
            const std::string line = answers[index] + "\n";
            if (::write(terminal, line.data(), line.size()) != static_cast<ssize_t>(line.size())) break;
        } else if (interrupt) {
            ::kill(pid, SIGINT);
        }
    }
    // The terminal closes a moment before the child can be reaped.
    int status = 0;
    pid_t reaped = 0;
    for (int i = 0; i < 100 && (reaped = ::waitpid(pid, &status, WNOHANG)) == 0; ++i) ::usleep(20'000);
    if (reaped == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
    }
    run.exit_code = reaped == 0 ? -1 : status_code(status);
    run.echo_after = echo_on(terminal);
    return run;
}

}  // namespace abci::test
