// rpc::Coalescer against a real anvil: concurrent single calls are folded into
// batches, each caller gets its own answer (the same as a plain call gives) or
// its own error, a lone call goes out at once, and a dead node fails every
// caller with Error(unavailable|timeout).

#include <httplib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <latch>
#include <mutex>
#include <thread>

#include "core/rpc/client.hpp"
#include "core/rpc/coalescer.hpp"
#include "support/anvil.hpp"
#include "support/method_counting_proxy.hpp"

using nlohmann::json;
using namespace std::chrono_literals;

// Everything in a namespace of its own: the suite is built as one translation unit.
namespace rpc_coalescer_test {

using namespace abci;

// Retries that back off only briefly: a dead node (refusing connections on
// loopback) fails a call in milliseconds, not seconds.
const rpc::Options kQuick{.backoff_base = 5ms, .backoff_max = 20ms, .ca_file = {}};

// What one call returned or threw.
struct Answer {
    json result;
    std::exception_ptr error;
};

// Makes every request at once, one thread each, through `coalescer`.
std::vector<Answer> call_at_once(rpc::Coalescer& coalescer, const std::vector<rpc::Request>& requests) {
    std::vector<Answer> answers(requests.size());
    std::latch go(1);
    {
        std::vector<std::jthread> callers;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            callers.emplace_back([&, i] {
                go.wait();
                try {
                    answers[i].result = coalescer.call(requests[i].method, requests[i].params);
                } catch (...) {
                    answers[i].error = std::current_exception();
                }
            });
        }
        go.count_down();
    }
    return answers;
}

// Checks that `got` is what a plain Client::call of `request` gives: the same
// result, or an RpcError with the same code and message.
void check_same_as_plain_call(rpc::Client& plain, const rpc::Request& request, const Answer& got) {
    INFO(request.method << " " << request.params.dump());
    try {
        const json expected = plain.call(request.method, request.params);
        REQUIRE_FALSE(got.error);
        CHECK(got.result == expected);
    } catch (const rpc::RpcError& expected) {
        REQUIRE(got.error);
        try {
            std::rethrow_exception(got.error);
        } catch (const rpc::RpcError& e) {
            CHECK(e.code() == expected.code());
            CHECK(e.rpc_message() == expected.rpc_message());
        } catch (...) {
            FAIL("the coalesced call threw something other than RpcError");
        }
    }
}

using test::Anvil;

TEST_CASE("rpc coalescer: 200 concurrent calls fold into batches, each caller gets its own answer or error",
          "[rpc][coalescer]") {
    Anvil anvil;
    test::MethodCountingProxy proxy(anvil.port(), {.stall_first = 100ms});
    rpc::Client through_proxy({proxy.url()}, kQuick);
    rpc::Client plain({anvil.url()}, kQuick);
    rpc::Coalescer coalescer(through_proxy);

    const auto& dev = Anvil::dev_accounts();
    // Gas estimates that differ per caller (calldata of t non-zero bytes), so
    // that an answer handed to the wrong caller shows; among them calls the
    // node refuses: a creation that reverts, and a method it does not have.
    std::vector<rpc::Request> requests;
    for (std::size_t t = 0; t < 200; ++t) {
        if (t % 25 == 7) {
            requests.push_back({"eth_call", json::array({{{"from", dev[0].address}, {"data", "0x60006000fd"}}, "latest"})});
        } else if (t == 13) {
            requests.push_back({"abci_noSuchMethod", json::array()});
        } else {
            const std::string data = "0x" + std::string(2 * t, 'f');
            requests.push_back({"eth_estimateGas", json::array({{{"from", dev[0].address}, {"to", dev[1].address}, {"data", data}}})});
        }
    }

    const auto answers = call_at_once(coalescer, requests);

    int refused = 0;
    for (std::size_t t = 0; t < requests.size(); ++t) {
        refused += answers[t].error != nullptr;
        check_same_as_plain_call(plain, requests[t], answers[t]);
    }
    CHECK(refused == 9);

    // Every call went out exactly once, most of them together: the 100 ms the
    // first request was held is ample for the other callers to queue up.
    const auto sizes = proxy.calls_per_request();
    std::size_t calls = 0;
    for (auto n : sizes) calls += n;
    CHECK(calls == requests.size());
    CHECK(sizes.size() < requests.size() / 2);
    CHECK(*std::max_element(sizes.begin(), sizes.end()) > 1);
}

TEST_CASE("rpc coalescer: a lone call goes out at once, alone", "[rpc][coalescer]") {
    Anvil anvil({.chain_id = 4242});
    test::MethodCountingProxy proxy(anvil.port(), {});
    rpc::Client client({proxy.url()}, kQuick);
    rpc::Coalescer coalescer(client);

    for (int i = 1; i <= 3; ++i) {
        const auto start = std::chrono::steady_clock::now();
        CHECK(coalescer.call("eth_chainId", json::array()) == "0x1092");
        CHECK(std::chrono::steady_clock::now() - start < 500ms);
        CHECK(proxy.calls_per_request() == std::vector<std::size_t>(static_cast<std::size_t>(i), 1));
    }
}

TEST_CASE("rpc coalescer: with the node down every caller gets unavailable or timeout, then it recovers",
          "[rpc][coalescer]") {
    Anvil anvil;
    rpc::Client client({anvil.url()}, kQuick);
    rpc::Coalescer coalescer(client);
    CHECK(coalescer.call("eth_blockNumber", json::array()) == "0x0");

    anvil.stop();
    const std::vector<rpc::Request> requests(20, rpc::Request{"eth_blockNumber", json::array()});
    const auto answers = call_at_once(coalescer, requests);
    for (const auto& a : answers) {
        REQUIRE(a.error);
        try {
            std::rethrow_exception(a.error);
        } catch (const rpc::RpcError&) {
            FAIL("a node that is down cannot have answered with an error");
        } catch (const Error& e) {
            CHECK((e.kind() == ErrorKind::unavailable || e.kind() == ErrorKind::timeout));
        }
    }

    // No caller was left in charge of sending: the next call goes out and is answered.
    anvil.start();
    CHECK(coalescer.call("eth_blockNumber", json::array()) == "0x0");
}

}  // namespace rpc_coalescer_test
