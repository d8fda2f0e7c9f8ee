// Connection limits in front of every route (issue 13): a slowloris flood
// from one address, or from thousands (issue 30), leaves another address's
// requests answered; a request head or body that is too slow, or a head with
// too many header lines, is refused with the spec's error body. Raw sockets,
// because the point is what a client that does not play by the rules can do.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "serve/expect.hpp"
#include "serve/raw_http.hpp"
#include "support/chain_server.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

std::size_t open_descriptors(int pid) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
        ++n;
    return n;
}

}  // namespace

TEST_CASE("3000 slow sockets from one address: another address is answered in well under a second throughout",
          "[serve][http][connections]") {
    // A short head deadline so that the flood's admitted sockets are also
    // timed out and replaced while the test runs.
    Server server({.config = "[limits]\nheadTimeout = 2\n"});
    // One request from another address, answered 401 (no credentials): how long it took.
    const auto ask = [&server] {
        const auto started = RawClock::now();
        const int fd = connect_from("127.0.0.2", server.port());
        REQUIRE(fd >= 0);
        send_text(fd, "GET /api/auth/me HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        const auto answer = read_until_closed(fd, std::chrono::seconds(10));
        ::close(fd);
        const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - started);
        INFO("answer after " << took.count() << " ms: " << answer.substr(0, 200));
        CHECK(status_of(answer) == 401);
        return took;
    };
    // The same request before the flood, on this machine under its current
    // load (the suite runs beside other tests): the yardstick for "promptly".
    auto calm = std::chrono::milliseconds(0);
    for (int i = 0; i < 10; ++i) calm = std::max(calm, ask());
    // Log, database, listening socket and the like: what the server holds
    // for no client.
    const std::size_t own_descriptors = open_descriptors(server.pid());

    constexpr std::size_t kSlow = 3000;
    std::vector<int> slow(kSlow, -1);
    for (auto& fd : slow) {
        fd = connect_from("127.0.0.1", server.port());
        REQUIRE(fd >= 0);
        // The first byte makes the kernel hand the connection to the server (TCP_DEFER_ACCEPT).
        send_text(fd, "G");
    }

    // One more header byte a second on every socket; a socket the server
    // closed is replaced at once, so the pressure never lets up.
    std::atomic<bool> flooding{true};
    std::atomic<std::size_t> replaced{0};
    std::thread flood([&] {
        while (flooding) {
            const auto round = RawClock::now();
            for (auto& fd : slow) {
                if (send_text(fd, "E")) continue;
                ::close(fd);
                fd = connect_from("127.0.0.1", server.port());
                if (fd >= 0 && send_text(fd, "G")) ++replaced;
            }
            while (flooding && RawClock::now() - round < std::chrono::seconds(1))
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });

    // The figure is the release build's; under AddressSanitizer the
    // server itself runs several times slower (one answer took 2.4 s in a
    // fresh clone's ASan run beside two other tests). On a machine so
    // loaded that even the calm answers are slow, promptly is 20 times the
    // slowest of those.
    const auto kPromptly =
        std::max(sanitized_build() ? std::chrono::milliseconds(5000) : std::chrono::milliseconds(1000), 20 * calm);
    std::size_t answered = 0;
    std::size_t most_descriptors = 0;
    auto slowest = std::chrono::milliseconds(0);
    // At least six seconds of flood, and on until every flood socket has
    // been refused or timed out once (a sanitized server times the flood's
    // sockets out more slowly): the other address is asked throughout.
    const auto until = RawClock::now() + std::chrono::seconds(6);
    const auto at_most = RawClock::now() + std::chrono::seconds(40);
    while (RawClock::now() < until || (replaced < kSlow && RawClock::now() < at_most)) {
        const auto took = ask();
        CHECK(took < kPromptly);
        slowest = std::max(slowest, took);
        ++answered;
        most_descriptors = std::max(most_descriptors, open_descriptors(server.pid()));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    flooding = false;
    flood.join();
    for (const int fd : slow)
        if (fd >= 0) ::close(fd);

    WARN(answered << " answers, the slowest in " << slowest.count() << " ms (" << calm.count() << " ms before the flood); "
                  << replaced
                  << " slow sockets refused or timed out and replaced; at most " << most_descriptors
                  << " descriptors open in the server (" << own_descriptors << " of its own)");
    CHECK(answered > 10);
    // Refused or timed out: the flood did not get to keep its sockets.
    CHECK(replaced >= kSlow);
    // The server held no more of the flood than its per-address cap (1536
    // by default) and the refusals being answered: each of those holds a
    // descriptor from accept to its 503, on one of the request threads the
    // admitted connections leave (2048 - 1536). Under load, a hundred at a
    // time were seen; a broken cap would hold all 3000.
    CHECK(most_descriptors <= own_descriptors + 1536 + (2048 - 1536));
}

TEST_CASE("a request head over the header-line cap is a 431 and a head too slow is a 408, each with the error body",
          "[serve][http][connections]") {
    Server server({.config = "[limits]\nheadTimeout = 1\nmaxHeaderLines = 20\n"});
    const auto request_with = [](int header_lines) {
        std::string head = "GET /api/auth/me HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (int i = 1; i < header_lines; ++i) head += "X-Line-" + std::to_string(i) + ": v\r\n";
        return head + "Connection: close\r\n\r\n";
    };
    const auto exchange = [&](const std::string& text) {
        const int fd = connect_from("127.0.0.1", server.port());
        REQUIRE(fd >= 0);
        send_text(fd, text);
        auto answer = read_until_closed(fd, std::chrono::seconds(10));
        ::close(fd);
        return answer;
    };

    // 20 header lines (Host and Connection included) are within the cap.
    CHECK(status_of(exchange(request_with(19))) == 401);
    for (const int lines : {21, 5000}) {
        INFO(lines << " header lines");
        const auto answer = exchange(request_with(lines));
        CHECK(status_of(answer) == 431);
        CHECK(body_of(answer)["error"] == "request_header_fields_too_large");
        CHECK(body_of(answer)["message"].is_string());
    }

    // A head that stops half way: 408 once the deadline passes, not a thread held for good.
    const auto answer = exchange("GET /api/auth/me HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    CHECK(status_of(answer) == 408);
    CHECK(body_of(answer)["error"] == "request_timeout");

    // Keep-alive still works: two requests on one connection, then the server is fine.
    const int fd = connect_from("127.0.0.1", server.port());
    REQUIRE(fd >= 0);
    send_text(fd, "GET /no/such HTTP/1.1\r\nHost: a\r\n\r\nGET /no/such HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
    const auto both = read_until_closed(fd, std::chrono::seconds(10));
    ::close(fd);
    CHECK(status_of(both) == 404);
    CHECK(both.find("HTTP/1.1 404", 10) != std::string::npos);
}

TEST_CASE("over the per-address cap a connection gets a 503 with Retry-After while other addresses are served",
          "[serve][http][connections]") {
    Server server({.config = "[limits]\nmaxConnectionsPerClient = 4\n"});
    const auto ask = [&](const char* source, const std::string& request) {
        const int fd = connect_from(source, server.port());
        REQUIRE(fd >= 0);
        send_text(fd, request);
        return fd;
    };
    // Four kept-alive connections, each answered once: the server holds them.
    std::vector<int> held;
    for (int i = 0; i < 4; ++i) {
        held.push_back(ask("127.0.0.1", "GET /no/such HTTP/1.1\r\nHost: a\r\n\r\n"));
        char first[16];
        REQUIRE(::recv(held.back(), first, sizeof(first), 0) > 0);
    }
    const std::string request = "GET /api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
    const int fifth = ask("127.0.0.1", request);
    const auto refused = read_until_closed(fifth, std::chrono::seconds(5));
    ::close(fifth);
    INFO(refused);
    CHECK(status_of(refused) == 503);
    CHECK(refused.find("Retry-After: 1\r\n") != std::string::npos);
    CHECK(body_of(refused)["error"] == "unavailable");

    const int other = ask("127.0.0.2", request);
    CHECK(status_of(read_until_closed(other, std::chrono::seconds(5))) == 401);
    ::close(other);

    // Once the four are gone, the address is served again (as soon as the
    // server has seen them close: a few attempts at most).
    for (const int fd : held) ::close(fd);
    int status = 0;
    for (int attempt = 0; attempt < 50 && status != 401; ++attempt) {
        const int again = ask("127.0.0.1", request);
        status = status_of(read_until_closed(again, std::chrono::seconds(5)));
        ::close(again);
    }
    CHECK(status == 401);
}

TEST_CASE("a request body too slow is a 408 with the error body once bodyTimeout passes",
          "[serve][http][connections][body]") {
    Server server({.config = "[limits]\nbodyTimeout = 2\n"});
    const int fd = connect_from("127.0.0.1", server.port());
    REQUIRE(fd >= 0);
    const auto started = RawClock::now();
    send_text(fd, "POST /api/auth/login-email-password HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{");
    // A byte a second: every read is prompt, the body as a whole is not.
    std::string answer;
    for (int i = 0; i < 8 && answer.empty(); ++i) {
        answer = read_until_closed(fd, std::chrono::seconds(1));
        send_text(fd, " ");
    }
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - started);
    ::close(fd);
    INFO(answer);
    CHECK(status_of(answer) == 408);
    CHECK(body_of(answer)["error"] == "request_timeout");
    CHECK(body_of(answer)["message"].is_string());
    CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("one slow socket from each of 2400 addresses: another address is answered every time",
          "[serve][http][connections]") {
    // The defaults: 1984 connections at most, 1536 from one address, the
    // last 256 only for addresses holding none. Each flood address holds one
    // socket, so neither per-address cap applies: what keeps a place for the
    // normal client is that slow connections are shed first.
    Server server;
    const auto port = server.port();
    constexpr std::size_t kAddresses = 2400;
    const auto source = [](std::size_t i) {
        return "127.1." + std::to_string(i / 250) + "." + std::to_string(1 + i % 250);
    };
    // Half send a head that never ends, half a head and then a body that never does.
    const auto open_slow = [&](std::size_t i) {
        const int fd = connect_from(source(i).c_str(), port);
        if (fd < 0) return fd;
        send_text(fd, i % 2 == 0 ? std::string("POST /api/auth/login-email-password HTTP/1.1\r\nHost: a\r\n")
                                 : std::string("POST /api/auth/login-email-password HTTP/1.1\r\nHost: a\r\n"
                                               "Content-Length: 100000\r\n\r\n{"));
        return fd;
    };
    std::vector<int> slow(kAddresses, -1);
    for (std::size_t i = 0; i < kAddresses; ++i) slow[i] = open_slow(i);
    std::atomic<bool> flooding{true};
    std::atomic<std::size_t> reopened{0};
    // A byte a second on every socket (a header line's or the body's); one
    // the server closed is opened again from its address at once.
    std::thread flood([&] {
        while (flooding) {
            const auto round = RawClock::now();
            for (std::size_t i = 0; i < kAddresses && flooding; ++i) {
                if (slow[i] >= 0 && send_text(slow[i], i % 2 == 0 ? "X-A: b\r\n" : " ")) continue;
                if (slow[i] >= 0) ::close(slow[i]);
                slow[i] = open_slow(i);
                if (slow[i] >= 0) ++reopened;
            }
            while (flooding && RawClock::now() - round < std::chrono::seconds(1))
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    // Let the flood take every place first.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    std::size_t asked = 0;
    std::size_t answered = 0;
    auto slowest = std::chrono::milliseconds(0);
    const auto until = RawClock::now() + std::chrono::seconds(12);
    while (RawClock::now() < until) {
        const auto started = RawClock::now();
        const auto answer = exchange_from("127.0.0.2", port,
                                          "GET /api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                                          std::chrono::seconds(5));
        const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(RawClock::now() - started);
        ++asked;
        if (status_of(answer) == 401) ++answered;
        else
            UNSCOPED_INFO("answer " << asked << " after " << took.count() << " ms: " << answer.substr(0, 120));
        slowest = std::max(slowest, took);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    flooding = false;
    flood.join();
    for (const int fd : slow)
        if (fd >= 0) ::close(fd);
    WARN(answered << " of " << asked << " answered 401 while " << kAddresses << " addresses each held a slow socket ("
                  << reopened << " reopened after the server shed or timed them out); slowest " << slowest.count()
                  << " ms");
    CHECK(asked >= 20);
    CHECK(answered == asked);
    // The flood did not keep its places: slow connections were shed for the newcomers.
    CHECK(reopened > 0);
}

TEST_CASE("overload: past the connection cap every excess mint is a whole 503 with Retry-After, never a 408 or a "
          "reset, and every accepted mint is minted",
          "[serve][http][connections][overload][anvil]") {
    // Six connections served at once by eight threads: 200 mints in four
    // waves half a second apart, each holding its connection until its
    // block (one a second), are about what 2x the chain's ceiling is to the
    // default limits, at a hundredth of the size (issue 38).
    ChainServer chain({.anvil = {.block_time = std::chrono::milliseconds(1000)},
                       .extra_config = "[limits]\nthreads = 8\nmaxConnections = 6\nconnectionReserve = 1\n"});
    const auto admin = chain.server().login_admin();
    const auto holder = Anvil::dev_accounts()[4].address;
    const auto port = chain.server().port();
    constexpr int kWaves = 4;
    constexpr int kPerWave = 50;
    std::vector<std::string> answers(kWaves * kPerWave);
    std::vector<std::thread> clients;
    for (int wave = 0; wave < kWaves; ++wave) {
        for (int i = 0; i < kPerWave; ++i) {
            const int n = wave * kPerWave + i;
            clients.emplace_back([&, n] {
                const auto body = entity_mint_body(holder, "report", "O-" + std::to_string(n)).dump();
                answers[n] = exchange_from("127.0.0.1", port,
                                           "POST /abci/contracts/mint-entity-token HTTP/1.1\r\nHost: a\r\n"
                                           "Authorization: Bearer " + admin.token +
                                               "\r\nContent-Type: application/json\r\nContent-Length: " +
                                               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body,
                                           std::chrono::seconds(60));
            });
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    for (auto& client : clients) client.join();

    std::map<int, int> statuses;
    int minted = 0;
    for (const auto& answer : answers) {
        const int status = status_of(answer);
        ++statuses[status];
        INFO(answer.substr(0, 400));
        if (status == 200) {
            ++minted;
            CHECK(body_of(answer)["data"]["transactionHash"].is_string());
        } else {
            // Not a 408 (a head the server did not read in time), nor a
            // reset or a close without a word (0), nor a cut-off answer.
            CHECK(status == 503);
            CHECK(answer.find("Retry-After: ") != std::string::npos);
            CHECK(body_of(answer)["error"] == "unavailable");
            CHECK(body_of(answer)["message"].is_string());
        }
    }
    std::string seen;
    for (const auto& [status, count] : statuses) seen += " " + std::to_string(status) + ": " + std::to_string(count);
    WARN("answers by status:" << seen);
    CHECK(minted > 0);
    CHECK(statuses[503] > 0);
    // What was answered 200 is on chain, and nothing else.
    CHECK(chain.chain_balance(holder, 1000) == std::to_string(minted));
}

}  // namespace abci::test
