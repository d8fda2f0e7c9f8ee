// Who may hold a connection: caps per address and in total, the reserve for
// addresses holding none, idle keep-alive connections closed first, then the
// slowest reading ones, never one being handled.

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "serve/connection_limiter.hpp"

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace connection_limiter_test {

using abci::serve::ConnectionLimiter;
using abci::serve::ConnectionLimits;

ConnectionLimits limits(std::size_t total, std::size_t per_client, std::size_t reserve) {
    ConnectionLimits out;
    out.max_connections = total;
    out.max_per_client = per_client;
    out.reserve = reserve;
    return out;
}

TEST_CASE("connection limiter: per-address cap, total cap, and the reserve for new addresses", "[unit][serve][connections]") {
    ConnectionLimiter limiter(limits(6, 3, 2));
    std::vector<ConnectionLimiter::Ticket> held;
    using Refusal = ConnectionLimiter::Refusal;
    Refusal why{};
    for (int i = 0; i < 3; ++i) held.push_back(limiter.admit("10.0.0.1", -1));
    CHECK(!limiter.admit("10.0.0.1", -1, &why));  // its own cap
    CHECK(why == Refusal::per_client);
    held.push_back(limiter.admit("10.0.0.2", -1));
    CHECK(limiter.open() == 4);
    // Four of six open: the last two only for addresses holding none.
    CHECK(!limiter.admit("10.0.0.2", -1, &why));
    CHECK(why == Refusal::capacity);
    held.push_back(limiter.admit("10.0.0.3", -1));
    held.push_back(limiter.admit("10.0.0.4", -1));
    why = Refusal::per_client;
    CHECK(!limiter.admit("10.0.0.5", -1, &why));  // full
    CHECK(why == Refusal::capacity);
    for (const auto& ticket : held) CHECK(ticket);
    held.erase(held.begin());  // one of 10.0.0.1's closes
    CHECK(limiter.open() == 5);
    CHECK(limiter.admit("10.0.0.5", -1));
    CHECK(limiter.open() == 5);  // that ticket went at once
}

TEST_CASE("connection limiter: under pressure the longest idle connection is closed first", "[unit][serve][connections]") {
    ConnectionLimiter limiter(limits(4, 4, 1));
    int first[2], second[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, first) == 0);
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, second) == 0);
    auto a = limiter.admit("10.0.0.1", first[0]);
    auto b = limiter.admit("10.0.0.1", second[0]);
    auto busy = limiter.admit("10.0.0.1", -1);
    limiter.idle(*a);
    limiter.idle(*b);
    // The fourth connection enters the reserve: `a`, idle the longest, is closed for it.
    auto fourth = limiter.admit("10.0.0.2", -1);
    REQUIRE(fourth);
    char byte = 0;
    CHECK(::recv(first[1], &byte, 1, MSG_DONTWAIT) == 0);  // its socket was shut down
    CHECK(::recv(second[1], &byte, 1, MSG_DONTWAIT) < 0);  // still open
    CHECK(!limiter.reading(*a));
    CHECK(limiter.reading(*b));
    CHECK(limiter.open() == 3);  // a's place went to the fourth
    a.reset();  // and a's thread closing it gives nothing back twice
    CHECK(limiter.open() == 3);
    for (int fd : {first[0], first[1], second[0], second[1]}) ::close(fd);
}

TEST_CASE("connection limiter: when full, the longest-reading connection is shed for a smaller holder, never one being handled",
          "[unit][serve][connections]") {
    // No grace: every reading connection may be shed.
    ConnectionLimiter limiter(limits(3, 3, 0), {}, std::chrono::milliseconds(0));
    int pairs[3][2];
    for (auto& pair : pairs) REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    const auto shut_down = [](int fd) {
        char byte = 0;
        return ::recv(fd, &byte, 1, MSG_DONTWAIT) == 0;
    };
    auto handled = limiter.admit("10.0.0.1", pairs[0][0]);
    auto slow = limiter.admit("10.0.0.1", pairs[1][0]);
    auto other = limiter.admit("10.0.0.2", pairs[2][0]);
    REQUIRE(limiter.handling(*handled));  // read whole, being served
    // Full, and no address holds more than 10.0.0.1 itself.
    CHECK(!limiter.admit("10.0.0.1", -1));
    CHECK(!shut_down(pairs[1][1]));
    // A new address sheds the connection reading the longest: `slow`, not `handled`.
    auto newcomer = limiter.admit("10.0.0.3", -1);
    REQUIRE(newcomer);
    CHECK(shut_down(pairs[1][1]));
    CHECK(!shut_down(pairs[0][1]));
    CHECK(!limiter.handling(*slow));
    CHECK(limiter.open() == 3);
    // Next in line: `other`.
    auto fourth = limiter.admit("10.0.0.4", -1);
    REQUIRE(fourth);
    CHECK(shut_down(pairs[2][1]));
    // One each now: an address holding one cannot shed another's only one.
    CHECK(!limiter.admit("10.0.0.4", -1));
    // Connections being handled are never shed.
    REQUIRE(limiter.handling(*newcomer));
    REQUIRE(limiter.handling(*fourth));
    CHECK(!limiter.admit("10.0.0.5", -1));
    CHECK(!shut_down(pairs[0][1]));
    CHECK(limiter.open() == 3);
    for (auto& pair : pairs)
        for (const int fd : pair) ::close(fd);
}

TEST_CASE("connection limiter: a connection reading for less than the grace is not shed", "[unit][serve][connections]") {
    ConnectionLimiter limiter(limits(2, 2, 0), {}, std::chrono::seconds(60));
    auto a = limiter.admit("10.0.0.1", -1);
    auto b = limiter.admit("10.0.0.2", -1);
    CHECK(!limiter.admit("10.0.0.3", -1));
    CHECK(limiter.open() == 2);
}

TEST_CASE("connection limiter: a trusted proxy is held to the total cap only", "[unit][serve][connections]") {
    ConnectionLimiter limiter(limits(4, 1, 2), {"10.0.0.9"});
    std::vector<ConnectionLimiter::Ticket> held;
    for (int i = 0; i < 4; ++i) held.push_back(limiter.admit("10.0.0.9", -1));
    for (const auto& ticket : held) CHECK(ticket);
    CHECK(!limiter.admit("10.0.0.9", -1));
    CHECK(!limiter.admit("10.0.0.1", -1));
}

}  // namespace connection_limiter_test
