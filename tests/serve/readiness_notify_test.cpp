// Readiness for systemd's Type=notify (issue 37, packaging/abcictl.service):
// serve sends READY=1 to $NOTIFY_SOCKET once it answers, and STOPPING=1 when
// it begins to stop. No systemd here: the test is the service manager, a
// unix datagram socket of its own, as sd_notify(3) describes the protocol.

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>
#include <string>

#include "serve/expect.hpp"
#include "support/tools.hpp"

namespace abci::test::readiness_notify_tests {
namespace {

using namespace std::chrono_literals;

/// A bound unix datagram socket standing in for systemd's notification socket.
class NotifySocket {
public:
    /// At `path`, or in the abstract namespace when `path` starts with '@' (as systemd's own is).
    explicit NotifySocket(const std::string& path) : fd_(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, path.data(), path.size());
        if (path.front() == '@') address.sun_path[0] = '\0';
        const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
        REQUIRE(::bind(fd_, reinterpret_cast<const sockaddr*>(&address), length) == 0);
    }
    ~NotifySocket() { ::close(fd_); }
    NotifySocket(const NotifySocket&) = delete;
    NotifySocket& operator=(const NotifySocket&) = delete;

    /// The next datagram's text; empty when none comes within `timeout`.
    [[nodiscard]] std::string receive(std::chrono::milliseconds timeout) const {
        pollfd ready{fd_, POLLIN, 0};
        if (::poll(&ready, 1, static_cast<int>(timeout.count())) <= 0) return {};
        char buffer[4096];
        const auto got = ::recv(fd_, buffer, sizeof buffer, 0);
        return got > 0 ? std::string(buffer, static_cast<std::size_t>(got)) : std::string();
    }

private:
    int fd_;
};

/// Starts a server told of `notify_socket`, and checks the service manager's
/// view: READY=1 arrives when /livez already answers, STOPPING=1 on SIGTERM.
void check_notifications(const std::string& notify_socket, const NotifySocket& manager) {
    const auto port = os::free_loopback_port();
    // The manager's side: at READY=1 the port must already answer (systemd
    // starts the units ordered after this one then).
    auto ready = std::async(std::launch::async, [&manager, port] {
        const auto message = manager.receive(60s);
        const auto live = Http("http://127.0.0.1:" + std::to_string(port)).get("/livez");
        return std::make_pair(message, live.status);
    });
    Server server(Server::Options{.port = port, .env = {{"NOTIFY_SOCKET", notify_socket}}});
    const auto [message, livez_status] = ready.get();
    CHECK(message == "READY=1");
    CHECK(livez_status == 200);

    CHECK(server.stop() == 0);
    CHECK(manager.receive(10s) == "STOPPING=1");
}

}  // namespace

TEST_CASE("readiness: READY=1 to NOTIFY_SOCKET once the port answers, STOPPING=1 on SIGTERM", "[serve][readiness]") {
    TempDir dir;
    const auto path = dir / "notify";
    const NotifySocket manager(path);
    check_notifications(path, manager);
}

TEST_CASE("readiness: an abstract NOTIFY_SOCKET (systemd's own form, '@…') is written too", "[serve][readiness]") {
    const auto name = "@abcictl-test-notify-" + std::to_string(::getpid());
    const NotifySocket manager(name);
    check_notifications(name, manager);
}

TEST_CASE("readiness: without NOTIFY_SOCKET serve runs and stops as before", "[serve][readiness]") {
    Server server;
    CHECK(server.http().get("/livez").status == 200);
    CHECK(server.stop() == 0);
    CHECK(server.log().find("notify") == std::string::npos);
}

}  // namespace abci::test::readiness_notify_tests
