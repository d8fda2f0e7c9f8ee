// Mint events (issue 34 items 3, 5, 7): an async mint's mint.submitted and
// mint.confirmed, a failed mint's mint.failed, written to the outbox with the
// journal's own transitions and delivered, in order, to a receiver that
// verifies each with the Standard Webhooks reference library; across a
// receiver's 500s, a kill -9 and on PostgreSQL. The chain is the oracle.

#include <map>
#include <set>

#include "serve/expect.hpp"
#include "support/chain_server.hpp"
#include "support/eventually.hpp"
#include "support/metrics_scrape.hpp"
#include "support/postgres.hpp"
#include "support/random.hpp"
#include "support/webhook_receiver.hpp"

namespace abci::test::webhook_event_tests {
namespace {

using nlohmann::json;

constexpr const char* kEntityRoute = "/abci/contracts/mint-entity-token";
constexpr const char* kRoleRoute = "/abci/contracts/mint-role-token";

// Receivers on this machine, retries compressed (the kill -9 test's retry comes after its restart).
std::string local_webhooks(const std::string& schedule = "0s, 300ms, 300ms") {
    return "\n[webhooks]\nallowInsecureTargets = true\nallowPrivateTargets = true\nretrySchedule = \"" + schedule +
           "\"\n";
}

// Subscribes the receiver to `events` (every mint event) and verifies with its secret.
void subscribe_to(const Http& http, const std::string& token, const WebhookReceiver& receiver,
                        const json& events = {"mint.submitted", "mint.confirmed", "mint.failed", "mint.reorged"}) {
    const auto created = http.post("/api/admin/webhooks", {{"url", receiver.url()}, {"events", events}}, token);
    INFO(created.body);
    REQUIRE(created.status == 201);
    receiver.verify_with({created.json["data"]["secret"].get<std::string>()});
}

std::string accepted_mint(const HttpResponse& r) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 202);
    return r.json["data"]["mintId"].get<std::string>();
}

// The mint's status data once it is final.
json settled_status(const Http& http, const std::string& mint_id, const std::string& token) {
    json data;
    const bool settled = eventually([&] {
        const auto r = http.get("/abci/contracts/mints/" + mint_id, token);
        data = r.json["data"];
        return r.status == 200 && data["state"] != "pending";
    });
    INFO(data.dump());
    REQUIRE(settled);
    return data;
}

// Each event the receiver acknowledged (2xx) by webhook-id, with its body;
// checks that each was verified, acknowledged once, and that a mint's
// events arrived (each attempt of them) in the order they happened.
struct Received {
    std::map<std::string, json> by_id;     // webhook-id -> the event
    std::map<std::string, std::vector<std::string>> by_mint;  // mint id -> event types, as acknowledged
};

Received acknowledged(const json& deliveries) {
    Received out;
    std::map<std::string, std::string> last_type;  // mint id -> the type of its latest attempt
    for (const auto& d : deliveries) {
        INFO(d.dump());
        CHECK(d["verifiedWith"] == json::array({0}));
        const auto event = json::parse(d["body"].get<std::string>());
        const auto mint_id = event["data"]["mintId"].get<std::string>();
        const auto type = event["type"].get<std::string>();
        // Never an earlier event of the mint after a later one was tried.
        if (type == "mint.submitted") CHECK(last_type[mint_id] != "mint.confirmed");
        last_type[mint_id] = type;
        if (d["answered"] != 200) continue;
        const auto id = d["id"].get<std::string>();
        CHECK(out.by_id.count(id) == 0);  // acknowledged once
        out.by_id[id] = event;
        out.by_mint[mint_id].push_back(type);
    }
    return out;
}

// Waits until the receiver acknowledged `count` events; returns every delivery.
json until_acknowledged(const WebhookReceiver& receiver, std::size_t count) {
    json received;
    const bool arrived = eventually([&] {
        received = receiver.received();
        std::set<std::string> ids;
        for (const auto& d : received)
            if (d["answered"] == 200) ids.insert(d["id"].get<std::string>());
        return ids.size() >= count;
    });
    INFO(received.dump());
    REQUIRE(arrived);
    return received;
}

const json& event_of(const Received& received, const std::string& mint_id, const std::string& type) {
    for (const auto& [id, event] : received.by_id)
        if (event["data"]["mintId"] == mint_id && event["type"] == type) return event;
    FAIL("no " << type << " for mint " << mint_id);
    static const json none;
    return none;
}

}  // namespace

TEST_CASE("webhooks: an async mint's mint.submitted then mint.confirmed arrive verified, retried after a 500, with "
          "the status route's result, and a reverted mint's mint.failed",
          "[serve][webhooks][anvil][async]") {
    ChainServer chain({.extra_config = local_webhooks()});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver);
    // Each event's first attempt fails.
    receiver.answer({500, 200, 500});
    Random random(341);
    const auto to = random.address().checksummed();

    const auto mint_id = accepted_mint(
        http.post(kEntityRoute, entity_mint_body(to, "report", "W-1"), admin.token,
                  {{"Prefer", "respond-async"}, {"Idempotency-Key", "w-1"}}));
    const auto status = settled_status(http, mint_id, admin.token);
    REQUIRE(status["state"] == "mined");
    auto received = acknowledged(until_acknowledged(receiver, 2));
    CHECK(received.by_mint[mint_id] == std::vector<std::string>{"mint.submitted", "mint.confirmed"});
    CHECK(receiver.received().size() == 4);  // two attempts each
    const auto& submitted = event_of(received, mint_id, "mint.submitted");
    const auto& confirmed = event_of(received, mint_id, "mint.confirmed");
    for (const auto* event : {&submitted, &confirmed}) {
        INFO(event->dump());
        CHECK(is_utc_timestamp((*event)["timestamp"]));
        CHECK((*event)["data"]["idempotencyKey"] == "w-1");
        CHECK((*event)["data"]["blockchainId"] == ChainServer::blockchain_id);
        CHECK((*event)["data"]["statusUrl"] == "/abci/contracts/mints/" + mint_id);
    }
    const auto hash = status["result"]["data"]["transactionHash"];
    CHECK(submitted["data"]["transactionHash"] == hash);
    CHECK(confirmed["data"]["result"] == status["result"]);
    CHECK(chain.chain_balance(to, 1000) == "1");

    // Two role mints for one wallet pass the checks while neither is mined; the contract refuses the second.
    const auto holder = Anvil::dev_accounts()[6].address;
    chain.server().add_user("holder@example.org", "farmer", "holder pass 12345");
    chain.server().link_wallet("holder@example.org", holder);
    (void)chain.node_rpc("evm_setAutomine", {false});
    std::vector<std::string> roles;
    for (const char* key : {"r-1", "r-2"})
        roles.push_back(accepted_mint(http.post(kRoleRoute, role_mint_body(holder, "producer"), admin.token,
                                                {{"Prefer", "respond-async"}, {"Idempotency-Key", key}})));
    REQUIRE(eventually([&] { return chain.nonce(ChainServer::signer(), true) >= chain.nonce(ChainServer::signer()) + 2; }));
    (void)chain.node_rpc("evm_setAutomine", {true});
    (void)chain.node_rpc("evm_mine");
    std::map<std::string, json> outcome;
    for (const auto& id : roles) outcome[id] = settled_status(http, id, admin.token);
    received = acknowledged(until_acknowledged(receiver, 6));
    for (const auto& id : roles) {
        const auto final_type = outcome[id]["state"] == "mined" ? "mint.confirmed" : "mint.failed";
        CHECK(received.by_mint[id] == std::vector<std::string>{"mint.submitted", final_type});
        if (outcome[id]["state"] == "failed") {
            const auto& failed = event_of(received, id, "mint.failed");
            CHECK(failed["data"]["error"] == outcome[id]["error"]);
            CHECK(failed["data"]["error"]["kind"].is_string());
            CHECK(failed["data"].count("result") == 0);
        }
    }
    CHECK(chain.chain_balance(holder, 10000) == "1");
}

TEST_CASE("webhooks: a confirmed mint whose block a reorg replaced is mint.reorged, then mint.confirmed again once "
          "its re-broadcast is mined",
          "[serve][webhooks][anvil][reorg]") {
    ChainServer chain({.extra_config = local_webhooks()});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver);
    const auto to = Random(342).address().checksummed();
    const auto body = entity_mint_body(to, "report", "W-R");
    const auto mint_id =
        accepted_mint(http.post(kEntityRoute, body, admin.token, {{"Prefer", "respond-async"}, {"Idempotency-Key", "w-r"}}));
    const auto first = settled_status(http, mint_id, admin.token);
    REQUIRE(first["state"] == "mined");
    (void)until_acknowledged(receiver, 2);

    // The mint's block replaced by an empty one: the sender sends the same bytes again and the chain mines them anew.
    (void)chain.node_rpc("anvil_rollback", {1});
    (void)chain.node_rpc("evm_mine");
    REQUIRE(chain.chain_balance(to, 1000) == "0");
    const auto deliveries = until_acknowledged(receiver, 4);
    const auto received = acknowledged(deliveries);
    CHECK(received.by_mint.at(mint_id) ==
          std::vector<std::string>{"mint.submitted", "mint.confirmed", "mint.reorged", "mint.confirmed"});
    CHECK(chain.chain_balance(to, 1000) == "1");

    // The chain is the oracle: the second mint.confirmed, the status route and a repeat of the key all name the
    // block the transaction is in now, not the one that left.
    const auto hash = first["result"]["data"]["transactionHash"].get<std::string>();
    const auto receipt = chain.node_rpc("eth_getTransactionReceipt", {hash});
    INFO(receipt.dump());
    const auto mined_in = std::stoull(receipt["blockNumber"].get<std::string>(), nullptr, 16);
    CHECK(first["result"]["data"]["blockNumber"] != mined_in);
    json confirmed_again;
    for (const auto& d : deliveries) {
        const auto event = json::parse(d["body"].get<std::string>());
        if (d["answered"] == 200 && event["type"] == "mint.confirmed") confirmed_again = event;
    }
    INFO(confirmed_again.dump());
    CHECK(confirmed_again["data"]["result"]["data"]["blockNumber"] == mined_in);
    CHECK(confirmed_again["data"]["result"]["data"]["transactionHash"] == hash);
    const auto now = settled_status(http, mint_id, admin.token);
    CHECK(now["result"] == confirmed_again["data"]["result"]);
    const auto repeat = http.post(kEntityRoute, body, admin.token, {{"Idempotency-Key", "w-r"}});
    INFO(repeat.body);
    REQUIRE(repeat.status == 200);
    CHECK(repeat.json["data"]["blockNumber"] == mined_in);
}

TEST_CASE("webhooks: a role request's role_request.created, then .approved or .rejected, arrive verified with the "
          "request's id, wallet, role, chain and status",
          "[serve][webhooks][anvil]") {
    ChainServer chain({.extra_config = local_webhooks()});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver,
                       {"role_request.created", "role_request.approved", "role_request.rejected"});
    const auto holder = Anvil::dev_accounts()[6].address;
    chain.server().add_user("holder@example.org", "farmer", "holder pass 12345");
    chain.server().link_wallet("holder@example.org", holder);
    const auto farmer = chain.server().login("holder@example.org", "holder pass 12345");

    std::map<std::string, std::string> role_of;  // request id -> role
    for (const char* role : {"producer", "verifier"}) {
        const auto filed = http.post(
            "/v1/role-requests",
            {{"roleType", role}, {"walletAddress", holder}, {"blockchainId", ChainServer::blockchain_id}},
            farmer.token);
        INFO(filed.body);
        REQUIRE(filed.status == 201);
        role_of[filed.json["data"]["id"].get<std::string>()] = role;
    }
    for (const auto& [id, role] : role_of) {
        const auto decided = http.send("PUT", "/v1/admin/role-requests/" + id + (role == "producer" ? "/approve" : "/reject"),
                                       "", "application/json", admin.token);
        INFO(decided.body);
        REQUIRE(decided.status == 200);
    }

    const auto received = until_acknowledged(receiver, 4);
    std::map<std::string, std::vector<std::string>> statuses;  // request id -> the statuses its events told, in order
    for (const auto& d : received) {
        INFO(d.dump());
        CHECK(d["verifiedWith"] == json::array({0}));
        CHECK(d["answered"] == 200);
        const auto event = json::parse(d["body"].get<std::string>());
        CHECK(is_utc_timestamp(event["timestamp"]));
        const auto& data = event["data"];
        const auto id = data["id"].get<std::string>();
        CHECK(data["roleType"] == role_of.at(id));
        CHECK(eth::Address::parse(data["walletAddress"].get<std::string>()).checksummed() ==
              eth::Address::parse(holder).checksummed());
        CHECK(data["blockchainId"] == ChainServer::blockchain_id);
        CHECK(event["type"] == "role_request." + std::string(data["status"] == "pending" ? "created" : data["status"].get<std::string>()));
        statuses[id].push_back(data["status"].get<std::string>());
    }
    for (const auto& [id, role] : role_of)
        CHECK(statuses[id] == std::vector<std::string>{"pending", role == "producer" ? "approved" : "rejected"});
}

TEST_CASE("webhooks: an issued certificate's certificate.issued arrives verified with the certificate as its route "
          "shows it and the mint that minted it",
          "[serve][webhooks][anvil]") {
    ChainServer chain({.extra_config = local_webhooks()});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver, {"certificate.issued"});
    const auto wallet = Anvil::dev_accounts()[7].address;
    chain.server().add_user("certifier@example.org", "farmer", "certifier pass 1234");
    chain.server().link_wallet("certifier@example.org", wallet);
    const auto certifier = chain.server().login("certifier@example.org", "certifier pass 1234");
    const auto role = http.post(kRoleRoute, role_mint_body(wallet, "certifier"), admin.token);
    INFO(role.body);
    REQUIRE(role.status == 200);

    const auto issued = http.post("/v1/certifiers/certificates",
                                  {{"title", "Organic practice certificate 2025"},
                                   {"description", "Cover crops on all fields"},
                                   {"recipientAddress", Anvil::dev_accounts()[8].address},
                                   {"blockchainId", ChainServer::blockchain_id}},
                                  certifier.token);
    INFO(issued.body);
    REQUIRE(issued.status == 201);
    const auto received = until_acknowledged(receiver, 1);
    REQUIRE(received.size() == 1);
    CHECK(received[0]["verifiedWith"] == json::array({0}));
    const auto event = json::parse(received[0]["body"].get<std::string>());
    CHECK(event["type"] == "certificate.issued");
    CHECK(is_utc_timestamp(event["timestamp"]));
    auto data = event["data"];
    const auto mint_id = data["mintId"].get<std::string>();
    data.erase("mintId");
    const auto read = http.get("/v1/certifiers/certificates/" + issued.json["data"]["id"].get<std::string>(),
                               certifier.token);
    CHECK(data == read.json["data"]);
    // The mint it names is the certificate's: same transaction, as the status route says.
    const auto mint = http.get("/abci/contracts/mints/" + mint_id, admin.token);
    INFO(mint.body);
    REQUIRE(mint.status == 200);
    CHECK(mint.json["data"]["result"]["data"]["transactionHash"] == data["token"]["transactionHash"]);
}

TEST_CASE("webhooks: a restarted server taking its lane back from its former run sends lane.owner_changed",
          "[serve][webhooks][anvil]") {
    ChainServer chain({.extra_config = local_webhooks()});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver, {"lane.owner_changed"});
    chain.kill_server();
    chain.server().restart();

    const auto received = until_acknowledged(receiver, 1);
    REQUIRE(received.size() == 1);
    CHECK(received[0]["verifiedWith"] == json::array({0}));
    const auto event = json::parse(received[0]["body"].get<std::string>());
    INFO(event.dump());
    CHECK(event["type"] == "lane.owner_changed");
    const auto& data = event["data"];
    CHECK(data["blockchainId"] == ChainServer::blockchain_id);
    CHECK(data["signerAddress"] == eth::Address::parse(ChainServer::signer()).lower());
    CHECK(data["lane"] == ChainServer::blockchain_id + std::string("/") + data["signerAddress"].get<std::string>());
    CHECK(data["epoch"] == 2);
    // Owners are named by address and process: the restart changed the process.
    CHECK(data["previousOwner"].is_string());
    CHECK(data["owner"].is_string());
    CHECK(data["previousOwner"] != data["owner"]);
}

TEST_CASE("webhooks: mint events written before a kill -9 are delivered after the restart, in order, with their "
          "webhook-ids",
          "[serve][webhooks][anvil][async]") {
    // The submitted event's first attempt fails and its retry is due after the restart; the
    // confirmed event, written meanwhile, waits behind it.
    ChainServer chain({.extra_config = local_webhooks("0s, 6s")});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver);
    receiver.answer({500});
    Random random(342);
    const auto to = random.address().checksummed();
    const auto mint_id = accepted_mint(http.post(kEntityRoute, entity_mint_body(to, "report", "K-1"), admin.token,
                                                 {{"Prefer", "respond-async"}, {"Idempotency-Key", "k-1"}}));
    (void)settled_status(http, mint_id, admin.token);
    json before;
    REQUIRE(eventually([&] {
        before = receiver.received();
        return !before.empty();
    }));
    CHECK(before.size() == 1);  // the retry is not due yet, and mint.confirmed waits behind it
    CHECK(before[0]["answered"] == 500);
    chain.kill_server();
    chain.server().restart();

    const auto received = acknowledged(until_acknowledged(receiver, 2));
    CHECK(received.by_mint.at(mint_id) == std::vector<std::string>{"mint.submitted", "mint.confirmed"});
    CHECK(received.by_id.count(before[0]["id"].get<std::string>()) == 1);
    CHECK(chain.chain_balance(to, 1000) == "1");
}

TEST_CASE("webhooks: on PostgreSQL an async mint's events are written with its transitions and delivered in order",
          "[serve][webhooks][postgres][anvil][async]") {
    const Postgres pg;
    const TempDir secrets;
    auto env = jwt_secret_file_env(secrets.path() / "jwt.secret");
    env.emplace("ABCI_DATABASE_URL", pg.create_database("events"));
    ChainServer chain({.extra_config = local_webhooks(), .env = env});
    const auto http = chain.http();
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver);
    Random random(343);
    const auto to = random.address().checksummed();
    const auto mint_id = accepted_mint(http.post(kEntityRoute, entity_mint_body(to, "report", "P-1"), admin.token,
                                                 {{"Prefer", "respond-async"}, {"Idempotency-Key", "p-1"}}));
    const auto status = settled_status(http, mint_id, admin.token);
    REQUIRE(status["state"] == "mined");
    const auto received = acknowledged(until_acknowledged(receiver, 2));
    CHECK(received.by_mint.at(mint_id) == std::vector<std::string>{"mint.submitted", "mint.confirmed"});
    CHECK(event_of(received, mint_id, "mint.confirmed")["data"]["result"] == status["result"]);
    CHECK(pg.psql("events", "SELECT count(*) FROM webhook_outbox") == "0\n");
}

TEST_CASE("webhooks: on PostgreSQL without auth.jwtSecretFile creating a subscription or rotating its secret is a 422 "
          "naming the setting, which health tells, and with the file it is created",
          "[serve][webhooks][postgres]") {
    const Postgres pg;
    const Env env{{"ABCI_DATABASE_URL", pg.create_database("sealing")}};
    std::string id;
    {
        const TempDir secrets;
        Server server({.config = local_webhooks(), .env = [&] {
                           auto with_file = env;
                           with_file.merge(jwt_secret_file_env(secrets.path() / "jwt.secret"));
                           return with_file;
                       }()});
        const auto created = server.http().post("/api/admin/webhooks",
                                                {{"url", "http://127.0.0.1:9/in"}, {"events", {"mint.confirmed"}}},
                                                server.login_admin().token);
        INFO(created.body);
        REQUIRE(created.status == 201);
        id = created.json["data"]["id"].get<std::string>();
    }
    Server server({.config = local_webhooks(), .env = env});
    const auto http = server.http();
    const auto token = server.login_admin().token;
    const auto refused = [](const HttpResponse& r) {
        INFO(r.status << " " << r.body);
        CHECK(r.status == 422);
        CHECK(r.json["error"] == "unprocessable");
        CHECK(r.body.find("auth.jwtSecretFile") != std::string::npos);
    };
    refused(http.post("/api/admin/webhooks", {{"url", "http://127.0.0.1:9/in"}, {"events", {"mint.confirmed"}}},
                      token));
    refused(http.post("/api/admin/webhooks/" + id + "/rotate-secret", json::object(), token));
    // A bad body is still its 400.
    CHECK(http.post("/api/admin/webhooks", {{"events", {"mint.confirmed"}}}, token).status == 400);
    CHECK(http.get("/api/admin/webhooks", token).json["data"].size() == 1);

    const auto health = http.get("/abci/health", token);
    INFO(health.body);
    const auto& check = health.json["checks"]["webhookSecrets"];
    CHECK(check["healthy"] == true);
    CHECK(check.value("message", "").find("auth.jwtSecretFile") != std::string::npos);
}

TEST_CASE("webhooks: a signer falling below minSignerBalanceGwei sends signer.balance_low once, and again only "
          "after it was funded and fell again",
          "[serve][webhooks][anvil]") {
    ChainServer chain({.devnet_keys = "minSignerBalanceGwei = 1000000000\n",  // 1 ether
                       .extra_config = local_webhooks(),
                       .env = metrics_env()});
    const auto http = chain.http();
    const Http metrics(metrics_url(chain.server()));
    const auto admin = chain.server().login_admin();
    WebhookReceiver receiver;
    subscribe_to(http, admin.token, receiver, {"signer.balance_low"});
    // The lane's owner reads the balance every few seconds; the gauge shows when it read `ether`.
    const auto set_balance_read = [&](const char* wei_hex, const std::string& ether) {
        (void)chain.node_rpc("anvil_setBalance", {ChainServer::signer(), wei_hex});
        const std::string series = R"(abcictl_signer_balance_ether{chain="devnet"} )" + ether + "\n";
        REQUIRE(eventually([&] { return metrics.get("/metrics").body.find(series) != std::string::npos; }));
    };

    set_balance_read("0x6f05b59d3b20000", "0.5");
    auto received = until_acknowledged(receiver, 1);
    REQUIRE(received.size() == 1);
    CHECK(received[0]["verifiedWith"] == json::array({0}));
    const auto event = json::parse(received[0]["body"].get<std::string>());
    INFO(event.dump());
    CHECK(event["type"] == "signer.balance_low");
    const auto& data = event["data"];
    CHECK(data["blockchainId"] == ChainServer::blockchain_id);
    CHECK(data["address"] == ChainServer::signer());
    CHECK(data["balance"] == "500000000000000000");
    CHECK(data["minimumBalance"] == "1000000000000000000");
    CHECK(data["estimatedMints"].is_number_unsigned());

    set_balance_read("0x3782dace9d90000", "0.25");  // lower still: the same fall
    CHECK(receiver.received().size() == 1);
    set_balance_read("0x1bc16d674ec80000", "2");
    set_balance_read("0x1bc16d674ec8000", "0.125");
    received = until_acknowledged(receiver, 2);
    REQUIRE(received.size() == 2);
    CHECK(received[1]["id"] != received[0]["id"]);
    CHECK(json::parse(received[1]["body"].get<std::string>())["data"]["balance"] == "125000000000000000");
}

}  // namespace abci::test::webhook_event_tests
