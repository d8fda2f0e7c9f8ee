// Who may hold a connection: caps per address and in total, the reserve for
// addresses holding none, and idle keep-alive connections closed first.

#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

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
    for (int i = 0; i < 3; ++i) held.push_back(limiter.admit("10.0.0.1", -1));
    CHECK(!limiter.admit("10.0.0.1", -1));  // its own cap
    held.push_back(limiter.admit("10.0.0.2", -1));
    CHECK(limiter.open() == 4);
    // Four of six open: the last two only for addresses holding none.
    CHECK(!limiter.admit("10.0.0.2", -1));
    held.push_back(limiter.admit("10.0.0.3", -1));
    held.push_back(limiter.admit("10.0.0.4", -1));
    CHECK(!limiter.admit("10.0.0.5", -1));  // full
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
    CHECK(!limiter.busy(*a));
    CHECK(limiter.busy(*b));
    CHECK(limiter.open() == 3);  // a's place went to the fourth
    a.reset();  // and a's thread closing it gives nothing back twice
    CHECK(limiter.open() == 3);
    for (int fd : {first[0], first[1], second[0], second[1]}) ::close(fd);
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
