// The two /v1 workflows (spec §1, DESIGN.md §4, docs/api.md "Workflows")
// black-box through a real server on a real anvil: role approval (request →
// approved → role token minted → platform role), its retry after a failed
// mint, concurrent approvals, and certificates (certifier role on chain →
// metadata in content storage → certificate token minted).

#include <algorithm>
#include <cctype>
#include <future>

#include <SQLiteCpp/SQLiteCpp.h>

#include "core/content/cid.hpp"
#include "core/crypto/encoding.hpp"
#include "core/eth/address.hpp"
#include "core/eth/bytes.hpp"
#include "core/util/time.hpp"
#include "serve/expect.hpp"
#include "support/chain_server.hpp"

namespace abci::test::workflow_tests {
namespace {

constexpr std::uint64_t kVerifierToken = 10100;
constexpr std::uint64_t kCertificateToken = 1300;
constexpr const char* kFarmerEmail = "farmer@example.org";
constexpr const char* kFarmerPassword = "farmer pass 12345";
constexpr const char* kOtherEmail = "other@example.org";
constexpr const char* kOtherPassword = "other pass 123456";

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

std::string approve_path(const std::string& id) { return "/v1/admin/role-requests/" + id + "/approve"; }

// PUT …/approve with an empty body (Content-Length: 0), as docs/api.md tells clients to send it.
HttpResponse approve(const Http& http, const std::string& id, const std::string& token) {
    return http.send("PUT", approve_path(id), "", "application/json", token);
}

// Two users (a farmer whose wallet is `wallet`, and another farmer) and their sessions.
struct Users {
    Session admin, farmer, other;
};

Users add_users(const Server& server, const std::string& wallet) {
    server.add_users({{kFarmerEmail, "farmer", kFarmerPassword}, {kOtherEmail, "farmer", kOtherPassword}});
    server.link_wallet(kFarmerEmail, wallet);
    return {server.login_admin(), server.login(kFarmerEmail, kFarmerPassword), server.login(kOtherEmail, kOtherPassword)};
}

// POST /v1/role-requests for a verifier role on the devnet; requires 201 pending; returns the request.
nlohmann::json request_verifier_role(const Http& http, const Session& user, const std::string& wallet) {
    const nlohmann::json body = {{"roleType", "verifier"},
                                 {"walletAddress", wallet},
                                 {"blockchainId", ChainServer::blockchain_id},
                                 {"note", "audited 40 farms in 2025"}};
    const auto r = http.post("/v1/role-requests", body, user.token);
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 201);
    CHECK(r.json["success"] == true);
    const auto& request = r.json["data"];
    REQUIRE(request["id"].is_string());
    CHECK(request["status"] == "pending");
    CHECK(request["userId"] == user.id());
    CHECK(request["roleType"] == "verifier");
    CHECK(lower(request["walletAddress"].get<std::string>()) == lower(wallet));
    CHECK(request["blockchainId"] == ChainServer::blockchain_id);
    CHECK(request["note"] == body["note"]);
    for (const char* unset : {"approvedBy", "approvedAt", "transactionHash", "blockNumber"}) CHECK(request[unset].is_null());
    return request;
}

// The admin listing's entry for request `id` (null when it is not listed), filtered by `status`.
nlohmann::json listed_request(const Http& http, const Session& admin, const std::string& id, const std::string& status) {
    const auto r = http.get("/v1/admin/role-requests?status=" + status, admin.token);
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    REQUIRE(r.json["data"].is_array());
    for (const auto& request : r.json["data"]) {
        CHECK(request["status"] == status);
        if (request["id"] == id) return request;
    }
    return nullptr;
}

// The 200 answer of an approval that minted: the request minted by `admin`,
// the mint's answer matching it and the chain. Returns the transaction hash.
std::string require_approved_and_minted(const ChainServer& chain, const HttpResponse& r, const Session& admin,
                                        const std::string& id) {
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    CHECK(r.json["success"] == true);
    const auto& data = r.json["data"];
    REQUIRE(has_exactly_keys(data, {"roleRequest", "mint"}));
    const auto& request = data["roleRequest"];
    CHECK(request["id"] == id);
    CHECK(request["status"] == "minted");
    CHECK(request["approvedBy"] == admin.id());
    CHECK(is_utc_timestamp(request["approvedAt"]));
    REQUIRE(is_tx_hash(request["transactionHash"]));
    CHECK(request["blockNumber"].is_number_integer());

    const auto& mint = data["mint"];
    REQUIRE(has_exactly_keys(mint, {"success", "data", "metadata"}));
    CHECK(mint["success"] == true);
    CHECK(mint["data"]["transactionHash"] == request["transactionHash"]);
    CHECK(mint["data"]["blockNumber"] == request["blockNumber"]);
    CHECK(mint["data"]["tokenId"] == kVerifierToken);
    CHECK(mint["data"]["tokenType"] == "role");
    CHECK(mint["metadata"]["contract"]["address"] == chain.contract());

    const auto hash = request["transactionHash"].get<std::string>();
    const auto receipt = chain.receipt(hash);
    CHECK(receipt["status"] == "0x1");
    CHECK(quantity_to_decimal(receipt["blockNumber"]) == std::to_string(request["blockNumber"].get<std::uint64_t>()));
    return hash;
}

std::string platform_role(const Http& http, const Session& user) {
    const auto r = http.get("/api/auth/me", user.token);
    INFO(r.status << " " << r.body);
    REQUIRE(r.status == 200);
    return r.json["user"]["role"].get<std::string>();
}

// Moves `wallet` to the user with `email` straight in the server's database.
// No route or command moves a wallet today; this stands for any way a link
// can change after a request was filed (including requests filed before the
// check at filing existed).
void relink_wallet(const Server& server, const std::string& wallet, const std::string& email) {
    SQLite::Database db(server.data_dir() + "/abci.db", SQLite::OPEN_READWRITE);
    db.setBusyTimeout(5000);
    SQLite::Statement update(db, "UPDATE wallets SET user_id = (SELECT id FROM users WHERE email = ?) WHERE address = ?");
    update.bind(1, email);
    update.bind(2, lower(wallet));
    REQUIRE(update.exec() == 1);
}

nlohmann::json verifier_request_body(const std::string& wallet) {
    return {{"roleType", "verifier"}, {"walletAddress", wallet}, {"blockchainId", ChainServer::blockchain_id}};
}

}  // namespace

TEST_CASE("workflow role requests: only for a wallet linked to the requester, else 422 and nothing filed",
          "[serve][workflow]") {
    ChainServer chain;  // a request names a configured chain
    const auto& server = chain.server();
    const auto http = server.http();
    const auto farmer_wallet = Anvil::dev_accounts()[4].address;
    const auto nobodys_wallet = Anvil::dev_accounts()[9].address;
    const auto users = add_users(server, farmer_wallet);

    // Someone else's wallet (the escalation: the token would go to the
    // farmer, the verifier role to the requester), and a wallet of nobody's;
    // the same answer for both, so a requester learns nothing of others' wallets.
    std::vector<std::string> messages;
    for (const auto& [requester, wallet] : {std::pair(&users.other, farmer_wallet), std::pair(&users.other, nobodys_wallet),
                                            std::pair(&users.farmer, nobodys_wallet)}) {
        const auto r = http.post("/v1/role-requests", verifier_request_body(wallet), requester->token);
        require_error(r, 422, "unprocessable");
        if (r.json.is_object()) messages.push_back(r.json.value("message", ""));
    }
    REQUIRE(messages.size() == 3);
    CHECK(messages[0].find("not linked to your account") != std::string::npos);
    // The same words for both but the wallet, which the message names (also in the command to link it).
    const auto without = [](std::string message, const std::string& wallet) {
        for (auto at = message.find(wallet); at != std::string::npos; at = message.find(wallet))
            message.replace(at, wallet.size(), "WALLET");
        return message;
    };
    CHECK(without(messages[1], nobodys_wallet) == without(messages[0], farmer_wallet));
    const auto pending = http.get("/v1/admin/role-requests?status=pending", users.admin.token);
    INFO(pending.body);
    CHECK(pending.json["data"] == nlohmann::json::array());

    // Its owner files for it; validation still comes first.
    (void)request_verifier_role(http, users.farmer, lower(farmer_wallet));
    auto bad = verifier_request_body("0x1234");
    require_invalid_request(http.post("/v1/role-requests", bad, users.other.token));
}

TEST_CASE("workflow role requests: a status the listing does not know is 400 naming every status",
          "[serve][workflow]") {
    Server server;
    const auto http = server.http();
    const auto admin = server.login_admin();
    // Misspelt, wrong case, empty: each once listed nothing, which reads as "no such requests".
    for (const char* route : {"/v1/admin/role-requests", "/api/admin/role-requests"}) {
        for (const char* status : {"bogus", "PENDING", ""}) {
            const auto r = http.get(std::string(route) + "?status=" + status, admin.token);
            require_invalid_request(r);
            const auto details = r.json.value("details", nlohmann::json::array()).dump();
            for (const char* known : {"pending", "approved", "minted", "rejected", "failed"})
                CHECK(details.find(known) != std::string::npos);
        }
        const auto failed = http.get(std::string(route) + "?status=failed", admin.token);
        INFO(failed.body);
        CHECK(failed.status == 200);
        CHECK(failed.json["data"] == nlohmann::json::array());
    }
}

TEST_CASE("workflow role requests: one pending per wallet, role and chain, 409 naming it, also when filed at once, and "
          "an unknown chain is 404",
          "[serve][workflow]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto wallet = Anvil::dev_accounts()[4].address;
    const auto users = add_users(chain.server(), wallet);

    const auto first = request_verifier_role(http, users.farmer, wallet)["id"].get<std::string>();
    for (const auto& twin : {wallet, lower(wallet)}) {
        const auto again = http.post("/v1/role-requests", verifier_request_body(twin), users.farmer.token);
        require_error(again, 409, "conflict");
        INFO(again.body);
        CHECK(again.json.value("message", "").find(first) != std::string::npos);
    }

    // Filed at once (on every replica, in that topology): one is filed, every other names it.
    constexpr int kRacers = 8;
    auto producer = verifier_request_body(wallet);
    producer["roleType"] = "producer";
    std::vector<std::future<HttpResponse>> racers;
    for (int i = 0; i < kRacers; ++i)
        racers.push_back(std::async(std::launch::async, [&] { return http.post("/v1/role-requests", producer, users.farmer.token); }));
    std::vector<HttpResponse> answers;
    for (auto& racer : racers) answers.push_back(racer.get());
    std::string filed;
    for (const auto& r : answers)
        if (r.status == 201) filed = r.json["data"]["id"].get<std::string>();
    REQUIRE_FALSE(filed.empty());
    int refused = 0;
    for (const auto& r : answers) {
        INFO(r.status << " " << r.body);
        if (r.status == 201) {
            CHECK(r.json["data"]["id"] == filed);
            continue;
        }
        require_error(r, 409, "conflict");
        CHECK(r.json.value("message", "").find(filed) != std::string::npos);
        ++refused;
    }
    CHECK(refused == kRacers - 1);
    const auto pending = http.get("/v1/admin/role-requests?status=pending", users.admin.token);
    INFO(pending.body);
    CHECK(pending.json["data"].size() == 2);

    // Once the first is decided, the same request may be filed again.
    REQUIRE(http.send("PUT", "/v1/admin/role-requests/" + first + "/reject", "", "application/json", users.admin.token).status == 200);
    (void)request_verifier_role(http, users.farmer, wallet);

    // A chain the server does not know is refused when filed, as a mint would be.
    auto unknown = verifier_request_body(wallet);
    unknown["blockchainId"] = "nosuchchain";
    const auto r = http.post("/v1/role-requests", unknown, users.farmer.token);
    require_error(r, 404, "not_found");
    CHECK(r.json.value("message", "").find("unknown blockchain 'nosuchchain'") != std::string::npos);
    const auto all = http.get("/v1/admin/role-requests", users.admin.token);
    for (const auto& request : all.json["data"]) CHECK(request["blockchainId"] == ChainServer::blockchain_id);
}

TEST_CASE("workflow role approval: a refusal moves the request to failed with its reason, and the admin rejects it or "
          "approves it again",
          "[serve][workflow]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto wallet = Anvil::dev_accounts()[4].address;
    auto users = add_users(chain.server(), wallet);

    // The wallet holds the role by another way: the approval's pre-flight refuses it (409).
    const auto direct = http.post("/abci/contracts/mint-role-token", role_mint_body(wallet, "verifier"), users.admin.token);
    INFO(direct.body);
    REQUIRE(direct.status == 200);
    const auto held = request_verifier_role(http, users.farmer, wallet)["id"].get<std::string>();
    const auto nonce = chain.nonce(ChainServer::signer());
    for (int attempt = 0; attempt < 2; ++attempt) {  // approving it again is refused again
        require_error(approve(http, held, users.admin.token), 409, "conflict");
        const auto failed = listed_request(http, users.admin, held, "failed");
        INFO(failed.dump());
        REQUIRE(failed.is_object());
        CHECK(failed["failure"].get<std::string>().find("already holds the verifier role token") != std::string::npos);
        CHECK(failed["approvedBy"] == users.admin.id());
        CHECK(failed["transactionHash"].is_null());
        CHECK(listed_request(http, users.admin, held, "approved").is_null());
    }
    const auto rejected = http.send("PUT", "/v1/admin/role-requests/" + held + "/reject", "", "application/json", users.admin.token);
    INFO(rejected.body);
    REQUIRE(rejected.status == 200);
    CHECK(rejected.json["data"]["roleRequest"]["status"] == "rejected");
    CHECK(chain.nonce(ChainServer::signer()) == nonce);

    // The chain is made inactive after the filing (409): failed; active again, the retry mints.
    auto producer = verifier_request_body(wallet);
    producer["roleType"] = "producer";
    const auto filed = http.post("/v1/role-requests", producer, users.farmer.token);
    INFO(filed.body);
    REQUIRE(filed.status == 201);
    const auto id = filed.json["data"]["id"].get<std::string>();
    auto inactive = chain.config();
    const auto at = inactive.find("status = \"testnet\"");
    REQUIRE(at != std::string::npos);
    inactive.replace(at, std::string("status = \"testnet\"").size(), "status = \"disabled\"");
    chain.server().restart(inactive);
    users.admin = chain.server().login_admin();
    require_error(approve(http, id, users.admin.token), 409, "conflict");
    const auto failed = listed_request(http, users.admin, id, "failed");
    INFO(failed.dump());
    REQUIRE(failed.is_object());
    CHECK(failed["failure"].get<std::string>().find("not active") != std::string::npos);
    CHECK(chain.nonce(ChainServer::signer()) == nonce);

    chain.server().restart(chain.config());
    users.admin = chain.server().login_admin();
    const auto retried = approve(http, id, users.admin.token);
    INFO(retried.body);
    REQUIRE(retried.status == 200);
    const auto& request = retried.json["data"]["roleRequest"];
    CHECK(request["status"] == "minted");
    CHECK(request["failure"].is_null());
    REQUIRE(is_tx_hash(request["transactionHash"]));
    CHECK(chain.receipt(request["transactionHash"].get<std::string>())["status"] == "0x1");
    CHECK(chain.chain_balance(wallet, 10000) == "1");
    CHECK(chain.nonce(ChainServer::signer()) == nonce + 1);
}

TEST_CASE("workflow role approval: a wallet linked to another user by then is 422, nothing minted, no role changes",
          "[serve][workflow]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto wallet = Anvil::dev_accounts()[4].address;
    const auto users = add_users(chain.server(), wallet);
    const auto id = request_verifier_role(http, users.farmer, wallet)["id"].get<std::string>();
    relink_wallet(chain.server(), wallet, kOtherEmail);

    const auto nonce = chain.nonce(ChainServer::signer());
    const auto refused = approve(http, id, users.admin.token);
    require_error(refused, 422, "unprocessable");
    INFO(refused.body);
    CHECK(refused.json.value("message", "").find("no longer linked") != std::string::npos);
    CHECK(chain.nonce(ChainServer::signer()) == nonce);
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "0");
    CHECK(platform_role(http, users.farmer) == "farmer");
    CHECK(platform_role(http, users.other) == "farmer");
    CHECK(listed_request(http, users.admin, id, "pending").is_object());  // no approval recorded

    // Linked back to its requester, the same request goes through, for the requester alone.
    relink_wallet(chain.server(), wallet, kFarmerEmail);
    (void)require_approved_and_minted(chain, approve(http, id, users.admin.token), users.admin, id);
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "1");
    CHECK(platform_role(http, users.farmer) == "verifier");
    CHECK(platform_role(http, users.other) == "farmer");
}

TEST_CASE("workflow role approval: pending → minted on chain → verifier, a repeat mints nothing", "[serve][workflow]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto wallet = Anvil::dev_accounts()[4].address;
    const auto users = add_users(chain.server(), wallet);

    const auto request = request_verifier_role(http, users.farmer, wallet);
    const auto id = request["id"].get<std::string>();

    // The pending listing is the admin's alone.
    CHECK(listed_request(http, users.admin, id, "pending") == request);
    require_forbidden(http.get("/v1/admin/role-requests?status=pending", users.farmer.token));
    require_forbidden(approve(http, id, users.farmer.token));
    CHECK(listed_request(http, users.admin, id, "pending") == request);
    require_error(approve(http, "00000000-0000-4000-8000-000000000000", users.admin.token), 404, "not_found");
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "0");

    const auto first = approve(http, id, users.admin.token);
    const auto hash = require_approved_and_minted(chain, first, users.admin, id);
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "1");
    // The workflow's own kind of mint, whose status names the route of a role mint.
    const auto mint = chain.server().open_store()->mints().find_by_key(
        {"workflow:role-request", store::MintKind::workflow_role, id});
    REQUIRE(mint);
    const auto status = http.get("/abci/contracts/mints/" + mint->id, users.admin.token);
    INFO(status.status << " " << status.body);
    CHECK(status.json["data"]["route"] == "POST /abci/contracts/mint-role-token");
    CHECK(platform_role(http, users.farmer) == "verifier");
    CHECK(platform_role(http, users.other) == "farmer");
    CHECK(listed_request(http, users.admin, id, "pending").is_null());
    CHECK(listed_request(http, users.admin, id, "minted") == first.json["data"]["roleRequest"]);

    // Approving again finds it minted: the same request, no mint, nothing sent.
    const auto nonce = chain.nonce(ChainServer::signer());
    const auto again = approve(http, id, users.admin.token);
    INFO(again.status << " " << again.body);
    REQUIRE(again.status == 200);
    CHECK(again.json["data"]["mint"].is_null());
    CHECK(again.json["data"]["roleRequest"] == first.json["data"]["roleRequest"]);
    CHECK(again.json["data"]["roleRequest"]["transactionHash"] == hash);
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "1");
    CHECK(chain.nonce(ChainServer::signer()) == nonce);
    require_forbidden(approve(http, id, users.other.token));
}

TEST_CASE("workflow role approval: two admins approving at once mint exactly once", "[serve][workflow]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto wallet = Anvil::dev_accounts()[5].address;
    const auto users = add_users(chain.server(), wallet);
    const auto id = request_verifier_role(http, users.farmer, wallet)["id"].get<std::string>();
    const auto nonce = chain.nonce(ChainServer::signer());

    auto racer = [&] { return approve(http, id, users.admin.token); };
    auto a = std::async(std::launch::async, racer);
    auto b = std::async(std::launch::async, racer);
    const HttpResponse answers[] = {a.get(), b.get()};

    int minted = 0;
    std::string hash;
    for (const auto& r : answers) {
        INFO(r.status << " " << r.body);
        // The loser either waits for nothing (409: the mint is in progress) or
        // sees the winner's mint (its replayed answer, or the minted request).
        CHECK((r.status == 200 || r.status == 409));
        if (r.status == 409) {
            require_error(r, 409, "conflict");
            continue;
        }
        const auto& request = r.json["data"]["roleRequest"];
        CHECK(request["status"] == "minted");
        ++minted;
        if (hash.empty()) hash = request["transactionHash"].get<std::string>();
        CHECK(request["transactionHash"] == hash);
    }
    CHECK(minted >= 1);
    CHECK(chain.nonce(ChainServer::signer()) == nonce + 1);  // one transaction in all
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "1");

    // Whatever each saw, the request ends minted with that one transaction.
    const auto after = approve(http, id, users.admin.token);
    INFO(after.body);
    REQUIRE(after.status == 200);
    CHECK(after.json["data"]["roleRequest"]["status"] == "minted");
    CHECK(after.json["data"]["roleRequest"]["transactionHash"] == hash);
    CHECK(chain.nonce(ChainServer::signer()) == nonce + 1);
}

TEST_CASE("workflow role approval: a mint that fails leaves the request approved, the retry mints once",
          "[serve][workflow]") {
    ChainServer::Options options;
    options.anvil.persist_state = true;  // the contract survives the node's restart
    ChainServer chain(options);
    const auto http = chain.http();
    const auto wallet = Anvil::dev_accounts()[6].address;
    const auto users = add_users(chain.server(), wallet);
    const auto id = request_verifier_role(http, users.farmer, wallet)["id"].get<std::string>();

    chain.anvil().stop();
    const auto failed = approve(http, id, users.admin.token);
    require_error(failed, 503, "unavailable");
    // The approval is recorded; only the mint is missing.
    const auto approved = listed_request(http, users.admin, id, "approved");
    INFO(approved.dump());
    REQUIRE(approved.is_object());
    CHECK(approved["approvedBy"] == users.admin.id());
    CHECK(is_utc_timestamp(approved["approvedAt"]));
    CHECK(approved["transactionHash"].is_null());
    CHECK(platform_role(http, users.farmer) == "farmer");

    chain.anvil().start();
    const auto nonce = chain.nonce(ChainServer::signer());
    const auto retried = approve(http, id, users.admin.token);
    (void)require_approved_and_minted(chain, retried, users.admin, id);
    CHECK(retried.json["data"]["roleRequest"]["approvedAt"] == approved["approvedAt"]);  // the first approval stands
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "1");
    CHECK(chain.nonce(ChainServer::signer()) == nonce + 1);
    CHECK(platform_role(http, users.farmer) == "verifier");
}

TEST_CASE("workflow role approval begun by the previous release: the mint it claimed (the body's hash) is the retry's",
          "[serve][workflow][fingerprint]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto wallet = eth::Address::parse(Anvil::dev_accounts()[6].address).checksummed();
    const auto users = add_users(chain.server(), wallet);
    const auto id = request_verifier_role(http, users.farmer, wallet)["id"].get<std::string>();

    // What the previous release left: the request approved and its mint
    // claimed under the approval's key, the fingerprint the SHA-256 of the
    // body it built (and parsed back) as nlohmann printed it.
    const auto store = chain.server().open_store();
    REQUIRE(store->role_requests().transition(id, store::RoleRequestStatus::pending, store::RoleRequestStatus::approved,
                                              users.admin.id()));
    const auto request = *store->role_requests().find(id);
    REQUIRE(request.approved_at);
    const nlohmann::json body = {{"userAddress", wallet},
                                 {"roleType", "verifier"},
                                 {"blockchainId", ChainServer::blockchain_id},
                                 {"metadata",
                                  {{"approvalId", id},
                                   {"approvedBy", request.approved_by},
                                   {"approvedAt", util::format_iso8601_utc(*request.approved_at)},
                                   {"notes", request.note}}}};
    store::MintRequest claimed;
    claimed.id = crypto::random_uuid();
    claimed.actor = "workflow:role-request";
    claimed.kind = store::MintKind::workflow_role;  // what the schema migration made of its role route
    claimed.blockchain_id = ChainServer::blockchain_id;
    claimed.idempotency_key = id;
    claimed.fingerprint = crypto::sha256_hex(body.dump());
    REQUIRE_FALSE(store->mints().begin(claimed));

    // The retry is the same request, still in progress as far as it can
    // tell: 409, the request still approved. Taken for another request, it
    // would be 422 and the request failed.
    const auto retried = approve(http, id, users.admin.token);
    INFO(retried.status << " " << retried.body);
    CHECK(retried.status == 409);
    CHECK(store->role_requests().find(id)->status == store::RoleRequestStatus::approved);
    CHECK(chain.chain_balance(wallet, kVerifierToken) == "0");
}

TEST_CASE("workflow certificates: certifier role required, the certificate token, its metadata, who may read it",
          "[serve][workflow]") {
    ChainServer chain;
    const auto http = chain.http();
    const auto certifier_wallet = Anvil::dev_accounts()[7].address;
    const auto recipient = Anvil::dev_accounts()[8].address;
    const auto users = add_users(chain.server(), certifier_wallet);
    const auto& certifier = users.farmer;
    constexpr const char* kRoute = "/v1/certifiers/certificates";
    const nlohmann::json body = {{"title", "Organic practice certificate 2025"},
                                 {"description", "Cover crops on all fields, audited in May"},
                                 {"recipientAddress", recipient},
                                 {"blockchainId", ChainServer::blockchain_id},
                                 {"external_url", "https://example.org/certificates/2025-17"},
                                 {"attributes", nlohmann::json::array({{{"trait_type", "hectares"}, {"value", 42}}})}};

    // Validation comes first, whoever asks.
    auto bad = body;
    bad["recipientAddress"] = "0x1234";
    require_invalid_request(http.post(kRoute, bad, certifier.token));
    bad = body;
    bad.erase("title");
    require_invalid_request(http.post(kRoute, bad, certifier.token));

    // Without the certifier role on chain the wallet may not issue.
    require_forbidden(http.post(kRoute, body, certifier.token));
    require_forbidden(http.post(kRoute, body, users.other.token));  // no wallet at all
    CHECK(chain.chain_balance(recipient, kCertificateToken) == "0");

    const auto role = http.post("/abci/contracts/mint-role-token", role_mint_body(certifier_wallet, "certifier"),
                                users.admin.token);
    INFO(role.status << " " << role.body);
    REQUIRE(role.status == 200);
    CHECK(chain.chain_balance(certifier_wallet, 10300) == "1");

    const auto issued = http.post(kRoute, body, certifier.token);
    INFO(issued.status << " " << issued.body);
    REQUIRE(issued.status == 201);
    CHECK(issued.json["success"] == true);
    const auto& certificate = issued.json["data"];
    REQUIRE(certificate["id"].is_string());
    CHECK(certificate["userId"] == certifier.id());
    CHECK(certificate["blockchainId"] == ChainServer::blockchain_id);
    CHECK(certificate["certifierAddress"] == certifier_wallet);
    CHECK(certificate["recipientAddress"] == recipient);
    CHECK(certificate["title"] == body["title"]);
    CHECK(certificate["description"] == body["description"]);
    CHECK(certificate["status"] == "minted");
    const auto& token = certificate["token"];
    REQUIRE(has_exactly_keys(token, {"tokenId", "amount", "transactionHash", "blockNumber", "metadataUri", "ipfsHash",
                                     "blockchain"}));
    CHECK(token["tokenId"] == kCertificateToken);
    CHECK(token["amount"] == 1);
    REQUIRE(is_tx_hash(token["transactionHash"]));
    CHECK(token["blockNumber"].is_number_integer());
    REQUIRE(token["ipfsHash"].is_string());
    const auto cid = token["ipfsHash"].get<std::string>();
    CHECK(token["metadataUri"] == "ipfs://" + cid);
    CHECK(token["blockchain"] == nlohmann::json{{"name", ChainServer::blockchain_name}, {"chainId", 31337}});

    // A certificate's kind of mint, under its user and the certificate's key;
    // its status names the route of an entity mint.
    const auto mint = chain.server().open_store()->mints().find_by_key(
        {certifier.id(), store::MintKind::certificate, "certificate:" + certificate["id"].get<std::string>()});
    REQUIRE(mint);
    const auto status = http.get("/abci/contracts/mints/" + mint->id, users.admin.token);
    INFO(status.status << " " << status.body);
    CHECK(status.json["data"]["route"] == "POST /abci/contracts/mint-entity-token");
    CHECK(status.json["data"]["state"] == "mined");

    // The chain agrees.
    CHECK(chain.chain_balance(recipient, kCertificateToken) == "1");
    const auto receipt = chain.receipt(token["transactionHash"].get<std::string>());
    CHECK(receipt["status"] == "0x1");
    CHECK(quantity_to_decimal(receipt["blockNumber"]) == std::to_string(token["blockNumber"].get<std::uint64_t>()));

    // The metadata is served under its own hash and names the certificate.
    const auto content = http.get("/ipfs/" + cid);
    INFO(content.status << " " << content.body.substr(0, 300));
    REQUIRE(content.status == 200);
    CHECK(content::Cid::of(eth::as_bytes(content.body)).to_string() == cid);
    CHECK(content.json["name"] == body["title"]);
    CHECK(content.json["description"] == body["description"]);
    CHECK(content.json["tokenId"] == kCertificateToken);
    CHECK(content.json["properties"]["beneficiary"] == recipient);

    // Its owner and an admin read it back; anyone else finds nothing.
    const auto path = std::string(kRoute) + "/" + certificate["id"].get<std::string>();
    for (const auto* reader : {&certifier, &users.admin}) {
        const auto r = http.get(path, reader->token);
        INFO(r.status << " " << r.body);
        CHECK(r.status == 200);
        CHECK(r.json["data"] == certificate);
    }
    require_error(http.get(path, users.other.token), 404, "not_found");
    require_error(http.get(std::string(kRoute) + "/00000000-0000-4000-8000-000000000000", users.admin.token), 404,
                  "not_found");

    const auto own = http.get(kRoute, certifier.token);
    INFO(own.body);
    REQUIRE(own.status == 200);
    CHECK(own.json["data"] == nlohmann::json::array({certificate}));
    const auto none = http.get(kRoute, users.other.token);
    REQUIRE(none.status == 200);
    CHECK(none.json["data"] == nlohmann::json::array());
}

}  // namespace abci::test::workflow_tests
