// The one transport-error table, against real loopback sockets: a port where
// nobody listens, a listener that never answers, one that hangs up, and TLS
// to a server that speaks none.

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/os/fd.hpp"
#include "core/rpc/http_transport.hpp"

using namespace abci;
using namespace std::chrono_literals;

namespace http_transport_test {

// A TCP listener on a free loopback port (the kernel completes connections
// into its backlog whether or not anyone accepts them).
struct Listener {
    os::UniqueFd fd{::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    std::uint16_t port = 0;

    Listener() {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), size) == 0);
        REQUIRE(::listen(fd.get(), 8) == 0);
        REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port = ntohs(address.sin_port);
    }
    [[nodiscard]] std::string url(const char* scheme = "http") const {
        return std::string(scheme) + "://127.0.0.1:" + std::to_string(port) + "/";
    }
};

rpc::TransportFailure failure_of(const std::string& url, std::chrono::milliseconds io_timeout) {
    const auto client = rpc::make_http_client(rpc::parse_url(url), {1s, io_timeout});
    httplib::Request request;
    request.method = "POST";
    request.path = "/";
    request.body = "{}";
    auto result = rpc::exchange(*client, request, io_timeout);
    REQUIRE(std::holds_alternative<rpc::TransportFailure>(result));
    return std::get<rpc::TransportFailure>(result);
}

}  // namespace http_transport_test

using http_transport_test::failure_of;
using http_transport_test::Listener;
using Stage = rpc::TransportFailure::Stage;

TEST_CASE("http transport: nobody listening is unavailable and never sent", "[rpc][transport]") {
    std::string url;
    {
        const Listener gone;
        url = gone.url();
    }
    const auto failure = failure_of(url, 2s);
    CHECK(failure.kind == ErrorKind::unavailable);
    CHECK(failure.stage == Stage::not_sent);
}

TEST_CASE("http transport: a server that never answers is a timeout, maybe received", "[rpc][transport]") {
    const Listener silent;
    const auto failure = failure_of(silent.url(), 200ms);
    CHECK(failure.kind == ErrorKind::timeout);
    CHECK(failure.stage == Stage::unsure);
    CHECK(failure.timed_out());
}

TEST_CASE("http transport: a server that hangs up is unavailable, maybe received", "[rpc][transport]") {
    const Listener rude;
    std::thread hang_up([&] {
        const os::UniqueFd peer(::accept(rude.fd.get(), nullptr, nullptr));
        char buffer[4096];
        (void)::read(peer.get(), buffer, sizeof buffer);  // the request is in: close without answering
    });
    const auto failure = failure_of(rude.url(), 5s);
    hang_up.join();
    CHECK(failure.kind == ErrorKind::unavailable);
    CHECK(failure.stage == Stage::unsure);
}

TEST_CASE("http transport: TLS to a server that speaks none fails before sending", "[rpc][transport]") {
    const Listener plain;
    std::thread hang_up([&] {
        const os::UniqueFd peer(::accept(plain.fd.get(), nullptr, nullptr));
        char buffer[4096];
        (void)::read(peer.get(), buffer, sizeof buffer);  // the ClientHello: no ServerHello follows
    });
    const auto failure = failure_of(plain.url("https"), 5s);
    hang_up.join();
    CHECK(failure.kind == ErrorKind::unavailable);
    CHECK(failure.stage == Stage::not_sent);
}
