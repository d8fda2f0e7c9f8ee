#pragma once
// HTTP by hand over a plain socket, for tests of what a client that does not
// play by the rules can do: any source address, any bytes, any pace.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace abci::test {

using RawClock = std::chrono::steady_clock;

/// A TCP connection from `source` (a loopback address) to 127.0.0.1:`port`;
/// -1 when it cannot be made.
inline int connect_from(const char* source, std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &local.sin_addr);
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof(remote)) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

inline bool send_text(int fd, const std::string& text) {
    return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(text.size());
}

/// Everything the server sends until it closes the connection or `timeout` passes.
inline std::string read_until_closed(int fd, std::chrono::milliseconds timeout) {
    std::string out;
    const auto end = RawClock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - RawClock::now()).count();
        pollfd ready{fd, POLLIN, 0};
        if (left <= 0 || ::poll(&ready, 1, static_cast<int>(left)) <= 0) return out;
        char buffer[4096];
        const auto got = ::recv(fd, buffer, sizeof(buffer), 0);
        if (got <= 0) return out;
        out.append(buffer, static_cast<std::size_t>(got));
    }
}

/// `text`'s status code ("HTTP/1.1 431 …"), 0 when it is not a response.
inline int status_of(const std::string& text) { return text.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(text.substr(9, 3)) : 0; }

/// The JSON body of a whole response.
inline nlohmann::json body_of(const std::string& text) {
    const auto start = text.find("\r\n\r\n");
    return start == std::string::npos ? nlohmann::json() : nlohmann::json::parse(text.substr(start + 4), nullptr, false);
}

/// Sends `request` from `source` and returns all the server answers until it
/// closes the connection (ask with "Connection: close").
inline std::string exchange_from(const char* source, std::uint16_t port, const std::string& request,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const int fd = connect_from(source, port);
    if (fd < 0) return {};
    // Sent while the answers are read: pipelined requests would otherwise
    // fill both sides' buffers and stall.
    std::thread sender([&] {
        std::size_t sent = 0;
        while (sent < request.size()) {
            const auto n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
            if (n <= 0) break;
            sent += static_cast<std::size_t>(n);
        }
    });
    auto answer = read_until_closed(fd, timeout);
    ::shutdown(fd, SHUT_RDWR);
    sender.join();
    ::close(fd);
    return answer;
}

}  // namespace abci::test
