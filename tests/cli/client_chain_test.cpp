// abcictl's ABCI commands against a real `abcictl serve` on a real anvil
// (test::ChainServer): mint-role, mint-entity, balance, tokens metadata and
// chains list/status in their three forms (table, --json = the API's
// {data, metadata}, -q = the essential value), checked against the chain with
// cast; every exit code; the chain list answered from state.db while the
// server is down.

#include <algorithm>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/client_chain_fixture.hpp"

namespace abci::test::client {
namespace {

using nlohmann::json;

/// The keys of a JSON object, sorted.
std::set<std::string> keys_of(const json& object) {
    std::set<std::string> keys;
    for (const auto& [key, _] : object.items()) keys.insert(key);
    return keys;
}

/// The API's envelope minus "success": what --json prints.
void require_data_and_metadata(const json& printed) {
    CHECK(keys_of(printed) == std::set<std::string>{"data", "metadata"});
}

/// A bare transaction hash and nothing else: what -q prints for a mint.
std::string require_bare_hash(const std::string& out) {
    static const std::regex pattern("0x[0-9a-f]{64}\n");
    INFO(out);
    REQUIRE(std::regex_match(out, pattern));
    return out.substr(0, out.size() - 1);
}

/// Sets of lines, for -q outputs in no promised order.
std::set<std::string> line_set(const std::string& text) {
    const auto lines = lines_of(text);
    return {lines.begin(), lines.end()};
}

}  // namespace

TEST_CASE("client chains, mint-role, mint-entity, balance and tokens: table, --json and -q", "[client]") {
    Fixture f;
    auto& admin = f.admin;
    const auto& chain = f.chain;

    // chains list
    const auto list = lines_of(admin.ok({"chains", "list"}));
    REQUIRE(list.size() == 2);
    CHECK(list[0].rfind("ID", 0) == 0);
    CHECK(list[0].find("CHAIN ID") != std::string::npos);
    CHECK(list[1].rfind("devnet ", 0) == 0);
    CHECK(list[1].find(chain.contract()) != std::string::npos);
    CHECK(list[1].find("31337") != std::string::npos);
    const auto chains = json::parse(admin.ok({"--json", "chains", "list", "--refresh"}));
    require_data_and_metadata(chains);
    REQUIRE(chains["data"].size() == 1);
    CHECK(chains["data"][0]["id"] == "devnet");
    CHECK(chains["data"][0]["contractAddress"] == chain.contract());
    CHECK(admin.ok({"-q", "chains", "list"}) == "devnet\n");

    // chains status
    const auto status = admin.ok({"chains", "status", "devnet"});
    CHECK(field(status, "id") == "devnet");
    CHECK(field(status, "name") == ChainServer::blockchain_name);
    CHECK(field(status, "status") == "healthy");
    CHECK(field(status, "contract") == chain.contract() + " v1.0.0");
    CHECK(field(status, "rpc") == "healthy");
    const auto status_json = json::parse(admin.ok({"--json", "chains", "status", "devnet"}));
    require_data_and_metadata(status_json);
    CHECK(status_json["data"]["id"] == "devnet");
    CHECK(status_json["data"]["contractStatus"]["address"] == chain.contract());
    CHECK(admin.ok({"-q", "chains", "status", "devnet"}) == "healthy\n");

    // mint-role: the table…
    const auto producer = admin.ok(f.mint_role("producer"));
    CHECK(is_tx_hash(json(field(producer, "transactionHash"))));
    CHECK(field(producer, "tokenId") == "10000");
    CHECK(field(producer, "tokenType") == "role");
    CHECK(field(producer, "blockchain") == std::string(ChainServer::blockchain_name) + " (chain id 31337)");
    CHECK(field(producer, "contract") == chain.contract() + " v1.0.0");
    CHECK(chain.receipt(field(producer, "transactionHash"))["status"] == "0x1");
    // …--json: spec 4.1's data and metadata…
    const auto verifier = json::parse(admin.ok(with(with({"--json"}, "mint-role", "--address", f.holder, "--role", "verifier",
                                                              "--chain", "devnet"),
                                                         "--note", "site visit done")));
    require_data_and_metadata(verifier);
    const auto& data = verifier["data"];
    CHECK(keys_of(data) == std::set<std::string>{"transactionHash", "blockNumber", "gasUsed", "gasPrice", "tokenId",
                                                 "tokenType", "confirmations", "timestamp"});
    CHECK(is_tx_hash(data["transactionHash"]));
    CHECK(data["tokenId"] == 10100);
    CHECK(data["tokenType"] == "role");
    CHECK(is_decimal_string(data["gasUsed"]));
    CHECK(is_decimal_string(data["gasPrice"]));
    CHECK(is_utc_timestamp(data["timestamp"]));
    CHECK(data["confirmations"].get<int>() >= 1);
    CHECK(verifier["metadata"] ==
          json{{"blockchain", {{"name", ChainServer::blockchain_name}, {"chainId", 31337}, {"network", "ethereum"}}},
               {"contract", {{"address", chain.contract()}, {"version", "1.0.0"}}}});
    const auto receipt = chain.receipt(data["transactionHash"]);
    CHECK(quantity_to_decimal(receipt["blockNumber"]) == std::to_string(data["blockNumber"].get<std::uint64_t>()));
    CHECK(quantity_to_decimal(receipt["gasUsed"]) == data["gasUsed"]);
    // …-q: the hash alone.
    const auto valuator_hash = require_bare_hash(admin.ok(with({"-q"}, "mint-role", "--address", f.holder, "--role",
                                                              "valuator", "--chain", "devnet")));
    CHECK(chain.receipt(valuator_hash)["status"] == "0x1");
    CHECK(chain.chain_balance(f.holder, 10000) == "1");
    CHECK(chain.chain_balance(f.holder, 10100) == "1");
    CHECK(chain.chain_balance(f.holder, 10200) == "1");

    // mint-entity with the metadata from flags, from a file, from stdin.
    const auto flagged = admin.ok(with(f.mint_report("rep-1"), "--name", "Soil report", "--attr", "hectares=12", "--attr",
                                       "crop=wheat"));
    CHECK(is_tx_hash(json(field(flagged, "transactionHash"))));
    CHECK(field(flagged, "tokenId") == "1000");
    CHECK(field(flagged, "amount") == "1");
    CHECK(field(flagged, "entityType") == "report");
    CHECK(field(flagged, "entityId") == "rep-1");
    const auto flagged_cid = field(flagged, "ipfsHash");
    CHECK(field(flagged, "metadataUri") == "ipfs://" + flagged_cid);

    const json file_metadata = {{"name", "Water report"},
                                {"description", "Quarterly water quality"},
                                {"attributes", {{{"trait_type", "ph"}, {"value", 7}}}}};
    const auto metadata_file = admin.home().write("water.json", file_metadata.dump());
    const auto from_file = json::parse(admin.ok(with({"--json"}, "mint-entity", "--address", f.holder, "--type", "report",
                                                     "--entity-id", "rep-2", "--chain", "devnet", "--amount", "2",
                                                     "--metadata", metadata_file)));
    require_data_and_metadata(from_file);
    CHECK(keys_of(from_file["data"]) == std::set<std::string>{"transactionHash", "blockNumber", "gasUsed", "tokenId",
                                                              "amount", "confirmations", "metadataUri"});
    CHECK(from_file["data"]["amount"] == 2);
    CHECK(from_file["metadata"]["entityId"] == "rep-2");
    const auto stored = chain.http().get("/ipfs/" + from_file["metadata"]["ipfsHash"].get<std::string>());
    REQUIRE(stored.status == 200);
    CHECK(stored.json["name"] == "Water report");
    CHECK(stored.json["description"] == "Quarterly water quality");

    const auto stdin_hash = require_bare_hash(
        admin.ok(with({"-q"}, "mint-entity", "--address", f.holder, "--type", "report", "--entity-id", "rep-3",
                      "--chain", "devnet", "--metadata", "-"),
                 json{{"name", "Air report"}}.dump()));
    CHECK(chain.receipt(stdin_hash)["status"] == "0x1");
    CHECK(chain.chain_balance(f.holder, 1000) == "4");

    // tokens metadata: the latest entity, or the one named.
    const auto latest = admin.ok({"tokens", "metadata", "1000", "--chain", "devnet"});
    CHECK(field(latest, "tokenId") == "1000");
    CHECK(field(latest, "name") == "Air report");
    const auto first = admin.ok({"tokens", "metadata", "1000", "--chain", "devnet", "--entity-id", "rep-1"});
    CHECK(field(first, "name") == "Soil report");
    CHECK(field(first, "attributes").rfind("hectares=12, crop=wheat", 0) == 0);  // the server adds entityId
    CHECK(field(first, "ipfsHash") == flagged_cid);
    const auto first_json =
        json::parse(admin.ok({"--json", "tokens", "metadata", "1000", "--chain", "devnet", "--entity-id", "rep-1"}));
    require_data_and_metadata(first_json);
    CHECK(first_json["data"]["name"] == "Soil report");
    CHECK(first_json["metadata"]["ipfsHash"] == flagged_cid);
    CHECK(admin.ok({"-q", "tokens", "metadata", "1000", "--chain", "devnet", "--entity-id", "rep-1"}) ==
          flagged_cid + "\n");

    // balance: every token of the wallet, or one.
    const auto table = lines_of(admin.ok({"balance", "--address", f.holder, "--chain", "devnet"}));
    REQUIRE(table.size() == 5);
    CHECK(table[0].rfind("TOKEN", 0) == 0);
    CHECK(table[0].find("BALANCE") != std::string::npos);
    const auto balances = json::parse(admin.ok({"--json", "balance", "--address", f.holder, "--chain", "devnet"}));
    require_data_and_metadata(balances);
    CHECK(balances["data"]["userAddress"] == f.holder);
    CHECK(balances["data"]["balances"].size() == 4);
    for (const auto& b : balances["data"]["balances"])
        CHECK(b["balance"] == (b["tokenId"] == 1000 ? "4" : "1"));
    CHECK(line_set(admin.ok({"-q", "balance", "--address", f.holder, "--chain", "devnet"})) ==
          std::set<std::string>{"10000", "10100", "10200", "1000"});
    const auto one = admin.ok({"balance", "--address", f.holder, "--chain", "devnet", "--token", "10000"});
    CHECK(field(one, "balance") == "1");
    CHECK(field(one, "isSoulbound") == "true");
    CHECK(field(one, "contract") == chain.contract());
    CHECK(admin.ok({"-q", "balance", "--address", f.holder, "--chain", "devnet", "--token", "1000"}) == "4\n");
    const auto one_json =
        json::parse(admin.ok({"--json", "balance", "--address", f.holder, "--chain", "devnet", "--token", "1000"}));
    require_data_and_metadata(one_json);
    CHECK(one_json["data"]["balance"] == "4");

    // People at a terminal get bold headers (never with NO_COLOR) and a spinner
    // while a mint waits for its receipt; a pipe gets neither.
    const auto bold = run_abcictl_on_terminal({"chains", "list"}, {}, admin.env());
    CHECK(bold.exit_code == 0);
    CHECK(bold.transcript.find("\033[1mID ") != std::string::npos);
    const auto plain = run_abcictl_on_terminal({"chains", "list"}, {}, admin.env({{"NO_COLOR", "1"}}));
    CHECK(plain.exit_code == 0);
    CHECK(plain.transcript.find('\033') == std::string::npos);
    const auto spinning = run_abcictl_on_terminal(f.mint_role("certifier"), {}, admin.env({{"NO_COLOR", "1"}}));
    INFO(spinning.transcript);
    CHECK(spinning.exit_code == 0);
    CHECK(spinning.transcript.find("minting the certifier role token on devnet, waiting for the receipt") !=
          std::string::npos);
    const auto piped = admin.run(with({"-q"}, "mint-entity", "--address", f.holder, "--type", "report", "--entity-id",
                                      "rep-4", "--chain", "devnet", "--name", "Piped report"));
    CHECK(piped.exit_code == 0);
    CHECK(piped.err.empty());
    CHECK(chain.chain_balance(f.holder, 10300) == "1");
}

TEST_CASE("client exit codes: 2 before sending or refused, 4 forbidden, 1 unreachable, chains from the cache", "[client]") {
    Fixture f;
    auto& admin = f.admin;
    auto& server = f.chain.server();
    const std::string unreachable = "http://127.0.0.1:" + std::to_string(os::free_loopback_port());

    // A bad address, which the server refuses too: exit 2, said under --address (not the API's userAddress)…
    const auto answer =
        server.http().post("/abci/contracts/mint-role-token", role_mint_body("0x1234", "producer"), server.login_admin().token);
    INFO(answer.body);
    REQUIRE(answer.status == 400);
    const auto bad = admin.run({"mint-role", "--address", "0x1234", "--role", "producer", "--chain", "devnet"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err.rfind("abcictl: --address must be an EVM address", 0) == 0);
    CHECK(bad.err.find("userAddress") == std::string::npos);
    // …decided before anything is sent: the same with no server to send to.
    const auto offline = admin.run({"mint-role", "--address", "0x1234", "--role", "producer", "--chain", "devnet"}, {},
                                   {{"ABCICTL_SERVER", unreachable}});
    CHECK(offline.exit_code == 2);
    CHECK(offline.err == bad.err);
    CHECK(one_line_failure(admin.run(with(f.mint_report("rep-9"), "--metadata", "-"), "[1, 2]"), 2)
              .find("not a JSON object") != std::string::npos);
    CHECK(admin.run({"mint-role", "--address", f.holder, "--role", "janitor", "--chain", "devnet"}).exit_code == 2);

    // Not an admin: 4.
    (void)one_line_failure(f.farmer.run(f.mint_role("producer")), 4);
    CHECK(f.chain.chain_balance(f.holder, 10000) == "0");
    // Held already, an unknown chain: refused by the server's rules, 2 (README: usage).
    (void)admin.ok(with({"-q"}, "mint-role", "--address", f.holder, "--role", "producer", "--chain", "devnet"));
    (void)one_line_failure(admin.run(f.mint_role("producer")), 2);
    CHECK(f.chain.chain_balance(f.holder, 10000) == "1");
    (void)one_line_failure(
        admin.run({"mint-role", "--address", f.holder, "--role", "verifier", "--chain", "nowhere"}), 2);
    (void)one_line_failure(admin.run({"chains", "status", "nowhere"}), 2);

    // The chain list is cached: it still answers with the server down, unless asked to refresh.
    CHECK(admin.ok({"-q", "chains", "list"}) == "devnet\n");
    server.stop();
    CHECK(admin.ok({"-q", "chains", "list"}) == "devnet\n");
    CHECK(lines_of(admin.ok({"chains", "list"})).size() == 2);
    const auto refresh = one_line_failure(admin.run({"chains", "list", "--refresh"}), 1);
    CHECK(refresh.find("cannot reach the server at " + server.url()) != std::string::npos);
    const auto mint = one_line_failure(admin.run(f.mint_role("verifier")), 1);
    CHECK(mint.find("cannot reach the server at " + server.url()) != std::string::npos);
    CHECK(admin.run({"mint-role", "--address", "0x1234", "--role", "producer", "--chain", "devnet"}).exit_code == 2);
}

}  // namespace abci::test::client
