#include "core/os/process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/error.hpp"
#include "core/os/fd.hpp"

extern char** environ;

namespace abci::os {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
    UniqueFd read, write;
    Pipe() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            throw Error(ErrorKind::internal, std::string("pipe: ") + std::strerror(errno));
        read = UniqueFd(fds[0]);
        write = UniqueFd(fds[1]);
    }
};

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
    std::vector<char*> out;
    for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

// The variables a child may inherit: where programs and home are, and how to
// write times and text. Nothing of what they run for, nothing secret.
bool inheritable(std::string_view name) {
    for (const std::string_view allowed : {"PATH", "HOME", "TMPDIR", "TZ", "LANG", "LANGUAGE"})
        if (name == allowed) return true;
    return name.starts_with("LC_");
}

// The inheritable part of this process's environment ("NAME=value" entries)
// with `extra` added, its values replacing those of the same name.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra) {
    std::vector<std::string> out;
    for (char** e = environ; *e; ++e) {
        std::string_view kv(*e);
        auto name = kv.substr(0, kv.find('='));
        if (inheritable(name) && !extra.count(std::string(name))) out.emplace_back(kv);
    }
    for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
    return out;
}

int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

pid_t spawn(const std::vector<std::string>& argv, posix_spawn_file_actions_t* actions, char** envp) {
    if (argv.empty()) throw Error(ErrorKind::internal, "spawn: empty argv");
    auto args = c_argv(argv);
    pid_t pid = -1;
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Children start with default signal dispositions and mask, whatever ours are.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = ::posix_spawnp(&pid, args[0], actions, &attr, args.data(), envp);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        throw Error(ErrorKind::unavailable, "cannot start " + argv[0] + ": " + std::strerror(rc));
    return pid;
}

}  // namespace

std::map<std::string, std::string> inherited_env(const std::vector<std::string>& names) {
    std::map<std::string, std::string> out;
    for (const auto& name : names)
        if (const char* value = std::getenv(name.c_str())) out.emplace(name, value);
    return out;
}

CommandResult run_command(const std::vector<std::string>& argv, std::string_view input,
                          std::chrono::milliseconds timeout, const std::map<std::string, std::string>& extra_env) {
    Pipe in, out, err;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in.read.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out.write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.write.get(), STDERR_FILENO);

    const auto env_storage = environment_with(extra_env);
    auto envp = c_argv(env_storage);

    pid_t pid;
    try {
        pid = spawn(argv, &actions, envp.data());
    } catch (...) {
        posix_spawn_file_actions_destroy(&actions);
        throw;
    }
    posix_spawn_file_actions_destroy(&actions);
    in.read.reset();
    out.write.reset();
    err.write.reset();

    CommandResult result;
    std::size_t written = 0;
    if (input.empty()) in.write.reset();
    const auto deadline = Clock::now() + timeout;
    bool timed_out = false;
    while (out.read.get() >= 0 || err.read.get() >= 0) {
        std::vector<pollfd> fds;
        if (in.write.get() >= 0) fds.push_back({in.write.get(), POLLOUT, 0});
        if (out.read.get() >= 0) fds.push_back({out.read.get(), POLLIN, 0});
        if (err.read.get() >= 0) fds.push_back({err.read.get(), POLLIN, 0});
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        int n = ::poll(fds.data(), fds.size(), static_cast<int>(left));
        if (n < 0 && errno != EINTR) break;
        for (const auto& p : fds) {
            if (!p.revents) continue;
            if (p.fd == in.write.get()) {
                ssize_t w = ::write(p.fd, input.data() + written, input.size() - written);
                if (w > 0) written += static_cast<std::size_t>(w);
                if (w < 0 || written == input.size()) in.write.reset();
                continue;
            }
            char buf[65536];
            ssize_t r = ::read(p.fd, buf, sizeof buf);
            std::string& sink = p.fd == out.read.get() ? result.out : result.err;
            if (r > 0) {
                sink.append(buf, static_cast<std::size_t>(r));
            } else {
                (p.fd == out.read.get() ? out.read : err.read).reset();
            }
        }
    }
    if (timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) throw Error(ErrorKind::timeout, argv[0] + " did not finish within " +
                                                       std::to_string(timeout.count()) + " ms");
    result.exit_code = decode_status(status);
    return result;
}

Process::Process(const std::vector<std::string>& argv, const std::string& log_path,
                 const std::map<std::string, std::string>& extra_env) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const char* sink = log_path.empty() ? "/dev/null" : log_path.c_str();
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, sink, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const auto env_storage = environment_with(extra_env);
    auto envp = c_argv(env_storage);
    try {
        pid_ = spawn(argv, &actions, envp.data());
    } catch (...) {
        posix_spawn_file_actions_destroy(&actions);
        throw;
    }
    posix_spawn_file_actions_destroy(&actions);
}

Process::~Process() { stop(); }

Process::Process(Process&& other) noexcept : pid_(other.pid_), exit_status_(other.exit_status_) {
    other.pid_ = -1;
}

Process& Process::operator=(Process&& other) noexcept {
    if (this != &other) {
        stop();
        pid_ = other.pid_;
        exit_status_ = other.exit_status_;
        other.pid_ = -1;
    }
    return *this;
}

bool Process::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        exit_status_ = decode_status(status);
        pid_ = -1;
        return false;
    }
    return true;
}

int Process::stop(std::chrono::milliseconds grace) noexcept {
    if (pid_ <= 0) return exit_status_;
    ::kill(pid_, SIGTERM);
    const auto deadline = Clock::now() + grace;
    int status = 0;
    bool reaped = false;
    while (!reaped && Clock::now() < deadline) {
        reaped = ::waitpid(pid_, &status, WNOHANG) == pid_;
        if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!reaped) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    exit_status_ = decode_status(status);
    pid_ = -1;
    return exit_status_;
}

std::uint16_t free_loopback_port() {
    UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (s.get() < 0) throw Error(ErrorKind::internal, std::string("socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        throw Error(ErrorKind::internal, std::string("bind: ") + std::strerror(errno));
    return ntohs(addr.sin_port);
}

bool wait_for_port(std::uint16_t port, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = htons(port);
        if (::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

}  // namespace abci::os
