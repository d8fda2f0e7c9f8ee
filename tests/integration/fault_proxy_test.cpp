// The chaos suite's fault-injecting JSON-RPC proxy against a real anvil: each
// kind of fault as a client meets it, whether the node saw the request (a
// signed transfer's nonce on the node tells), the counters, seeded
// repeatability, pass-through and a node moved to another port.

#include <algorithm>
#include <catch2/catch.hpp>

#include "support/anvil.hpp"
#include "support/eventually.hpp"
#include "support/fault_proxy.hpp"
#include "support/serve.hpp"
#include "support/tools.hpp"

namespace abci::test::fault_proxy_tests {
namespace {

using namespace std::chrono_literals;

HttpResponse call(const FaultProxy& proxy, const nlohmann::json& body) {
    return Http(proxy.url()).send("POST", "/", body.dump());
}

nlohmann::json request(const std::string& method, nlohmann::json params = nlohmann::json::array()) {
    return {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}};
}

// Only `fault`, at rate 1.
void only(FaultProxy& proxy, Fault fault) {
    proxy.set_all_rates(0);
    proxy.set_rate(fault, 1);
}

}  // namespace

TEST_CASE("fault proxy: forwards single and batched calls, and injects each kind of fault as asked", "[fault_proxy]") {
    Anvil anvil;
    FaultProxy proxy(anvil.port(), {.seed = 3, .hang_for = 300ms, .slow_by = 100ms, .retry_after_seconds = 2});

    auto r = call(proxy, request("eth_chainId"));
    CHECK(r.status == 200);
    CHECK(r.json["result"] == "0x7a69");
    r = call(proxy, {request("eth_chainId"), request("eth_blockNumber")});
    CHECK(r.status == 200);
    REQUIRE(r.json.is_array());
    CHECK(r.json.size() == 2);
    CHECK(proxy.requests() == 2);
    CHECK(proxy.forwarded() == 2);
    CHECK(proxy.injected_total() == 0);

    only(proxy, Fault::too_many_requests);
    r = call(proxy, request("eth_chainId"));
    CHECK(r.status == 429);
    CHECK(r.header("Retry-After") == "2");
    only(proxy, Fault::bad_gateway);
    CHECK(call(proxy, request("eth_chainId")).status == 502);
    only(proxy, Fault::hang);
    CHECK(call(proxy, request("eth_chainId")).status == 0);  // closed without an answer
    CHECK(proxy.forwarded() == 2);                           // none of those three reached the node

    // One signed transfer, sent twice: dropped before the node, then after it.
    const auto sender = Anvil::dev_accounts()[1];
    const auto raw = cast({"mktx", "--private-key", sender.private_key, "--rpc-url", anvil.url(),
                           Anvil::dev_accounts()[2].address, "--value", "1"});
    const auto send_raw = request("eth_sendRawTransaction", {raw});
    only(proxy, Fault::drop_before);
    CHECK(call(proxy, send_raw).status == 0);
    CHECK(anvil.nonce(sender.address) == 0);  // the node never saw it
    only(proxy, Fault::drop_after);
    CHECK(call(proxy, send_raw).status == 0);
    // It was acted on: anvil mines each transaction, just after it answers.
    CHECK(eventually([&] { return anvil.nonce(sender.address) == 1; }, std::chrono::seconds(10)));
    CHECK(proxy.forwarded() == 3);

    only(proxy, Fault::slow);
    r = call(proxy, request("eth_getTransactionCount", {sender.address, "latest"}));
    CHECK(r.status == 200);
    CHECK(r.json["result"] == "0x1");

    for (const auto fault : kAllFaults) {
        INFO(fault_name(fault));
        CHECK(proxy.injected(fault) == 1);
    }
    CHECK(proxy.injected_total() == kFaultKinds);

    // Pass-through wins over the rates, and nothing is counted.
    proxy.set_rate(Fault::slow, 0);
    proxy.set_rate(Fault::drop_before, 1);
    proxy.set_pass_through(true);
    CHECK(call(proxy, request("eth_chainId")).status == 200);
    CHECK(proxy.injected_total() == kFaultKinds);
    proxy.set_pass_through(false);
    CHECK(call(proxy, request("eth_chainId")).status == 0);
    CHECK(proxy.injected(Fault::drop_before) == 2);

    CHECK_THROWS_AS(proxy.set_rate(Fault::hang, 0.5), std::invalid_argument);  // would add up to 1.5
}

TEST_CASE("fault proxy: the same seed and rates give the same faults, and a new node port is followed", "[fault_proxy]") {
    Anvil anvil;
    Anvil other(Anvil::Options{.chain_id = 4242});
    const auto statuses = [&](std::uint64_t seed) {
        FaultProxy proxy(anvil.port(), {.seed = seed});
        proxy.set_rate(Fault::too_many_requests, 0.3);
        proxy.set_rate(Fault::bad_gateway, 0.3);
        std::vector<int> out;
        for (int i = 0; i < 20; ++i) out.push_back(call(proxy, request("eth_chainId")).status);
        CHECK(proxy.injected(Fault::too_many_requests) + proxy.injected(Fault::bad_gateway) + proxy.forwarded() == 20);
        return out;
    };
    const auto first = statuses(11);
    CHECK(statuses(11) == first);
    CHECK(std::count(first.begin(), first.end(), 200) > 0);
    CHECK(std::count(first.begin(), first.end(), 200) < 20);

    FaultProxy proxy(anvil.port());
    CHECK(call(proxy, request("eth_chainId")).json["result"] == "0x7a69");
    proxy.set_node_port(other.port());
    CHECK(call(proxy, request("eth_chainId")).json["result"] == "0x1092");
    // A node that is down: 502, as from a real reverse proxy, and no injected fault.
    other.stop();
    CHECK(call(proxy, request("eth_chainId")).status == 502);
    CHECK(proxy.injected_total() == 0);
    CHECK(proxy.forwarded() == 2);
}

}  // namespace abci::test::fault_proxy_tests

namespace abci::test::fault_proxy_tests {

TEST_CASE("fault proxy: a rule answers one method's calls with a JSON-RPC error, alone and in a batch", "[fault_proxy]") {
    Anvil anvil;
    FaultProxy proxy(anvil.port());
    proxy.answer_rpc_error("eth_estimateGas", -32003, "insufficient funds for gas * price + value");
    const nlohmann::json refused{{"code", -32003}, {"message", "insufficient funds for gas * price + value"}};

    auto estimate = request("eth_estimateGas", {{{"to", Anvil::dev_accounts()[1].address}}});
    estimate["id"] = 7;
    auto r = call(proxy, estimate);
    CHECK(r.status == 200);
    CHECK(r.json == nlohmann::json{{"jsonrpc", "2.0"}, {"id", 7}, {"error", refused}});
    CHECK(proxy.forwarded() == 0);

    // In a batch: the others reach the node and are answered by it.
    auto chain_id = request("eth_chainId");
    chain_id["id"] = 8;
    r = call(proxy, {estimate, chain_id});
    REQUIRE(r.json.is_array());
    REQUIRE(r.json.size() == 2);
    const auto by_id = [&](int id) {
        return *std::find_if(r.json.begin(), r.json.end(), [id](const auto& answer) { return answer["id"] == id; });
    };
    CHECK(by_id(7)["error"] == refused);
    CHECK(by_id(8)["result"] == "0x7a69");
    CHECK(proxy.forwarded() == 1);
    CHECK(proxy.rpc_errors_answered() == 2);

    // Forwarded again once the rule is gone, and under pass-through.
    proxy.set_pass_through(true);
    CHECK(call(proxy, estimate).json.contains("result"));
    proxy.set_pass_through(false);
    proxy.forward_method("eth_estimateGas");
    CHECK(call(proxy, estimate).json.contains("result"));
    CHECK(proxy.rpc_errors_answered() == 2);
}

}  // namespace abci::test::fault_proxy_tests
