// Mints under load and through a crash, against a real chain mining on a
// clock: 100 concurrent mints each get their own transaction and nonce; a
// server killed with mints in flight finishes them after its restart, so that
// repeating each request with its Idempotency-Key answers it without a second mint.

#include <future>
#include <set>
#include <thread>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/random.hpp"
#include "support/tools.hpp"

namespace abci::test::abci_load_tests {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr const char* kRoute = "/abci/contracts/mint-entity-token";

// Posts every body at once, each from its own thread, with headers[i] when given.
std::vector<std::future<HttpResponse>> post_all(const Http& http, const std::vector<nlohmann::json>& bodies,
                                                const std::string& token, const std::vector<Headers>& headers = {}) {
    std::vector<std::future<HttpResponse>> answers;
    for (std::size_t i = 0; i < bodies.size(); ++i)
        answers.push_back(std::async(std::launch::async,
                                     [http, body = bodies[i], token, h = headers.empty() ? Headers{} : headers[i]] {
                                         return http.post(kRoute, body, token, h);
                                     }));
    return answers;
}

// Posts `body` with its Idempotency-Key until it is settled: again while
// there is no answer (a connection that never got through) or 409 (the first
// attempt is still waiting for its receipt), for up to 20 s.
HttpResponse post_until_settled(const Http& http, const nlohmann::json& body, const std::string& token,
                                const Headers& key) {
    auto r = http.post(kRoute, body, token, key);
    for (const auto deadline = Clock::now() + 20s; (r.status == 0 || r.status == 409) && Clock::now() < deadline;) {
        std::this_thread::sleep_for(250ms);
        r = http.post(kRoute, body, token, key);
    }
    return r;
}

std::vector<Headers> idempotency_keys(const std::string& prefix, std::size_t n) {
    std::vector<Headers> keys;
    for (std::size_t i = 0; i < n; ++i) keys.push_back({{"Idempotency-Key", prefix + std::to_string(i)}});
    return keys;
}

std::vector<std::string> recipients_of(const std::vector<nlohmann::json>& bodies) {
    std::vector<std::string> out;
    for (const auto& body : bodies) out.push_back(body["userAddress"].get<std::string>());
    return out;
}

}  // namespace

TEST_CASE("abci mints under load: 100 at once all succeed, each its own transaction and nonce", "[serve][abci]") {
    ChainServer::Options options;
    options.anvil.block_time = 1000ms;
    ChainServer chain(options);
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    Random random(44);
    std::vector<nlohmann::json> bodies;
    for (int i = 0; i < 100; ++i)
        bodies.push_back(entity_mint_body(random.address().checksummed(), "valuation", "VAL-" + std::to_string(i),
                                          1 + random.below(5)));
    const auto keys = idempotency_keys("load-", bodies.size());
    const auto nonce = chain.nonce(ChainServer::signer());

    auto answers = post_all(http, bodies, admin.token, keys);
    std::set<std::string> hashes;
    std::size_t unanswered = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        auto r = answers[i].get();
        if (r.status == 0) {
            ++unanswered;
            r = post_until_settled(http, bodies[i], admin.token, keys[i]);
        }
        (void)require_entity_minted(r, bodies[i]);
        hashes.insert(r.json["data"]["transactionHash"].get<std::string>());
    }
    CHECK(hashes.size() == bodies.size());
    // Every connection of the burst is accepted (the server raises cpp-httplib's
    // listen backlog of 5); a retry above only keeps the chain checks meaningful
    // when this fails.
    CHECK(unanswered == 0);
    // 100 distinct transactions took exactly the next 100 nonces: none was reused or skipped.
    CHECK(chain.nonce(ChainServer::signer()) == nonce + bodies.size());
    const auto balances = chain.chain_balances(recipients_of(bodies), 1200);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        INFO(bodies[i].dump());
        CHECK(balances[i] == std::to_string(bodies[i]["amount"].get<std::uint64_t>()));
    }
}

TEST_CASE("abci mints through kill -9: after the restart each Idempotency-Key gets its one mint", "[serve][abci]") {
    ChainServer::Options options;
    options.anvil.block_time = 2000ms;
    ChainServer chain(options);
    auto& server = chain.server();
    const auto http = chain.http();
    const auto admin = server.login_admin();
    Random random(45);
    constexpr std::uint64_t amount = 7;
    std::vector<nlohmann::json> bodies;
    for (int i = 0; i < 10; ++i)
        bodies.push_back(entity_mint_body(random.address().checksummed(), "report", "CRASH-" + std::to_string(i), amount));
    const auto keys = idempotency_keys("crash-", bodies.size());
    const auto nonce = chain.nonce(ChainServer::signer());

    // Right after a block, so that the next one is about two seconds away.
    const auto block = [&] { return chain.anvil().block_number(); };
    const auto start_block = block();
    for (const auto deadline = Clock::now() + 5s; block() == start_block && Clock::now() < deadline;)
        std::this_thread::sleep_for(50ms);
    auto first = post_all(http, bodies, admin.token, keys);
    // Kill once every mint has reached the node (or after 1.5 s, whatever was sent by then).
    for (const auto deadline = Clock::now() + 1500ms;
         chain.nonce(ChainServer::signer(), true) < nonce + bodies.size() && Clock::now() < deadline;)
        std::this_thread::sleep_for(20ms);
    chain.kill_server();
    std::vector<HttpResponse> before;
    for (auto& f : first) before.push_back(f.get());

    server.restart();
    std::set<std::string> hashes;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        // 409 while the restarted server still waits for the mint's receipt.
        const auto r = post_until_settled(http, bodies[i], admin.token, keys[i]);
        INFO("request " << i << ": before the kill " << before[i].status << " " << before[i].body);
        (void)require_entity_minted(r, bodies[i]);
        if (before[i].status == 200) CHECK(r.json == before[i].json);
        hashes.insert(r.json["data"]["transactionHash"].get<std::string>());
        CHECK(http.post(kRoute, bodies[i], admin.token, keys[i]).json == r.json);
    }
    CHECK(hashes.size() == bodies.size());
    CHECK(chain.nonce(ChainServer::signer()) == nonce + bodies.size());
    const auto balances = chain.chain_balances(recipients_of(bodies), 1000);
    for (const auto& balance : balances) CHECK(balance == std::to_string(amount));
}

}  // namespace abci::test::abci_load_tests
