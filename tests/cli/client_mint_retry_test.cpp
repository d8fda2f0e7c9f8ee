// abcictl's mints are safe to retry (issue 12, item 4), black box against a
// real server on a real anvil: every request carries an Idempotency-Key (the
// journal shows it), an outcome the CLI could not learn is named with the
// mint id, the key and the exact commands to retry or ask, the printed retry
// replays the first mint (the chain's balance is the oracle), and `mint
// status` shows a mint by id or by key. Also the zero address refused as a
// recipient, by the server (400) and by the CLI before sending (exit 2).

#include <chrono>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/client_chain_fixture.hpp"
#include "support/tools.hpp"

namespace abci::test::client {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

/// The value after "<label>: " on a line of the CLI's advice; "" when absent.
std::string advice_value(const std::string& err, const std::string& label) {
    for (const auto& line : lines_of(err))
        if (const auto at = line.find(label + ": "); at != std::string::npos && line.rfind("  ", 0) == 0)
            return line.substr(line.find_first_not_of(' ', at + label.size() + 1));
    return {};
}

/// The words a POSIX shell reads in `line`: blanks separate, '…' quotes
/// (what abcictl's advice uses; no other quoting).
std::vector<std::string> shell_words(const std::string& line) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false, quoted = false;
    for (const char c : line) {
        if (c == '\'') {
            quoted = !quoted;
            in_word = true;
        } else if (c == ' ' && !quoted) {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

/// The advice's command line that contains `words`, as the shell reads it, without the program; fails when absent.
std::vector<std::string> advised_command(const std::string& err, const std::string& words) {
    for (const auto& line : lines_of(err))
        if (line.rfind("  " + abcictl_binary() + " ", 0) == 0 && line.find(words) != std::string::npos) {
            const auto args = shell_words(line);
            return {args.begin() + 1, args.end()};
        }
    INFO(err);
    FAIL("no command with '" << words << "' in the advice");
    return {};
}

/// The journal of the server's data directory, as `admin journal list --json` prints it.
json journal(ChainServer& chain, const std::vector<std::string>& filter = {"--all"}) {
    std::vector<std::string> args{"--json", "admin", "journal", "list"};
    args.insert(args.end(), filter.begin(), filter.end());
    const auto r = chain.server().admin_cli(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
}

/// Polls `mint status` until its state is `state` (10 s at most); returns the last output.
std::string await_state(Terminal& t, const std::vector<std::string>& status, const std::string& state) {
    std::string out;
    for (int i = 0; i < 100; ++i) {
        out = t.ok(status);
        if (field(out, "state") == state) break;
        std::this_thread::sleep_for(100ms);
    }
    INFO(out);
    CHECK(field(out, "state") == state);
    return out;
}

}  // namespace

TEST_CASE("client mints send an Idempotency-Key of their own, and mint status shows a mined mint by id and by key",
          "[client][mint-status]") {
    Fixture f;
    const auto first = f.admin.ok(with(f.mint_report("key-1"), "--name", "First"));
    const auto second = f.admin.ok(with(f.mint_report("key-2"), "--name", "Second"));
    const auto rows = journal(f.chain);
    REQUIRE(rows.size() == 2);
    const std::regex generated("abcictl-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    std::map<std::string, json> by_hash;
    for (const auto& row : rows) {
        REQUIRE(row["idempotencyKeys"].size() == 1);
        CHECK(std::regex_match(row["idempotencyKeys"][0].get<std::string>(), generated));
        REQUIRE(row["mintIds"].size() == 1);
        CHECK(row["status"] == "mined");
        by_hash[row["hash"]] = row;
    }
    CHECK(rows[0]["idempotencyKeys"] != rows[1]["idempotencyKeys"]);  // one per run

    // By id: the state, the transaction, and what the mint printed.
    const auto& row = by_hash.at(field(first, "transactionHash"));
    const std::string id = row["mintIds"][0];
    const auto status = f.admin.ok({"mint", "status", id});
    CHECK(field(status, "mintId") == id);
    CHECK(field(first, "mint") == id);  // the mint's own answer names it
    CHECK(field(status, "state") == "mined");
    CHECK(field(status, "idempotencyKey") == row["idempotencyKeys"][0]);
    CHECK(field(status, "transaction").rfind(field(first, "transactionHash") + " nonce ", 0) == 0);
    for (const char* key : {"transactionHash", "blockNumber", "gasUsed", "tokenId", "amount", "metadataUri",
                            "entityType", "entityId", "ipfsHash", "blockchain"})
        CHECK(field(status, key) == field(first, key));
    CHECK(f.admin.ok({"-q", "mint", "status", id}) == field(first, "transactionHash") + "\n");
    const auto as_json = json::parse(f.admin.ok({"--json", "mint", "status", id}));
    CHECK(as_json["data"]["state"] == "mined");
    CHECK(as_json["data"]["result"]["data"]["transactionHash"] == field(first, "transactionHash"));
    CHECK(is_utc_timestamp(as_json["metadata"]["checkedAt"]));

    // By key, for its caller only; the same key for someone else is nobody's.
    const std::string key = by_hash.at(field(second, "transactionHash"))["idempotencyKeys"][0];
    const auto by_key = f.admin.ok({"mint", "status", "--idempotency-key", key});
    CHECK(field(by_key, "state") == "mined");
    CHECK(field(by_key, "transactionHash") == field(second, "transactionHash"));
    const std::string api_key = f.chain.server().create_api_key("status", {"abci:mint-entity"});
    (void)one_line_failure(f.admin.run({"mint", "status", "--idempotency-key", key}, {}, {{"ABCICTL_TOKEN", api_key}}), 2);
    (void)one_line_failure(f.farmer.run({"mint", "status", id}), 4);  // not even the route
    (void)one_line_failure(f.admin.run({"mint", "status"}), 2);
    (void)one_line_failure(f.admin.run({"mint", "status", id, "--idempotency-key", key}), 2);
    (void)one_line_failure(f.admin.run({"mint", "status", "../health"}), 2);
    (void)one_line_failure(f.admin.run({"mint", "status", "3f2c9a4e-0000-4000-8000-000000000000"}), 2);
    // The key of a mint with another body: refused by the server's rules, 2 (README: usage).
    CHECK(one_line_failure(f.admin.run(with(f.mint_report("key-3"), "--name", "Third", "--idempotency-key", key)), 2)
              .find("different request") != std::string::npos);
}

TEST_CASE("client mint retry: a timeout names the key and the commands, and the printed retry replays the first mint",
          "[client][mint-retry]") {
    Fixture f;
    auto& chain = f.chain;
    (void)chain.node_rpc("evm_setAutomine", {false});  // signed and sent, never mined until we say so

    // The CLI stops waiting first: the outcome is unknown, and it says what to do.
    const auto mint = with(f.mint_report("slow-1"), "--name", "Slow report", "--timeout", "3");
    const auto timed_out = f.admin.run(mint);
    INFO(timed_out.err);
    CHECK(timed_out.exit_code == 1);
    CHECK(timed_out.out.empty());
    CHECK(lines_of(timed_out.err).front() == "abcictl: no answer from the server at " + chain.server().url() +
                                                 " within 3 s, or the connection was lost: the mint's outcome is unknown");
    const std::string key = advice_value(timed_out.err, "Idempotency-Key");
    CHECK(key.rfind("abcictl-", 0) == 0);
    CHECK(advice_value(timed_out.err, "mint id").empty());  // the server never said
    const auto retry = advised_command(timed_out.err, "--idempotency-key " + key);
    CHECK(retry == with(mint, "--idempotency-key", key));
    CHECK(advised_command(timed_out.err, " mint status ") ==
          std::vector<std::string>{"mint", "status", "--idempotency-key", key});

    // The server signed it meanwhile: pending, with its transaction.
    const auto pending = await_state(f.admin, {"mint", "status", "--idempotency-key", key}, "pending");
    CHECK(f.admin.ok({"-q", "mint", "status", "--idempotency-key", key}) == "pending\n");
    for (int i = 0; i < 50 && field(f.admin.ok({"mint", "status", "--idempotency-key", key}), "transaction").empty(); ++i)
        std::this_thread::sleep_for(100ms);
    const auto signed_tx = field(f.admin.ok({"mint", "status", "--idempotency-key", key}), "transaction");
    CHECK(signed_tx.find(" pending") != std::string::npos);
    const std::string hash = signed_tx.substr(0, 66);

    // The retry while it runs: the server's 409 names the mint and its transaction.
    const auto in_progress = f.admin.run(retry);
    INFO(in_progress.err);
    CHECK(in_progress.exit_code == 1);
    CHECK(lines_of(in_progress.err).front().find("still in progress") != std::string::npos);
    const std::string id = advice_value(in_progress.err, "mint id");
    CHECK(field(pending, "mintId") == id);
    CHECK(advice_value(in_progress.err, "Idempotency-Key") == key);
    CHECK(advice_value(in_progress.err, "transactions") == hash);
    CHECK(advised_command(in_progress.err, " mint status ") == std::vector<std::string>{"mint", "status", id});
    CHECK(advised_command(in_progress.err, "--idempotency-key " + key) == retry);  // the key given: the same words

    // Mined: the status shows the answer, and the printed retry replays it.
    (void)chain.node_rpc("evm_setAutomine", {true});
    (void)chain.node_rpc("evm_mine");
    const auto mined = await_state(f.admin, {"mint", "status", id}, "mined");
    CHECK(field(mined, "transactionHash") == hash);
    const auto replayed = f.admin.ok(retry);
    CHECK(field(replayed, "transactionHash") == hash);
    CHECK(field(replayed, "entityId") == "slow-1");
    CHECK(chain.chain_balance(f.holder, 1000) == "1");  // one mint, never a second
    CHECK(journal(chain).size() == 1);
}

TEST_CASE("client and server refuse the zero address as a recipient, before anything is sent", "[client][zero-address]") {
    Fixture f;
    auto& server = f.chain.server();
    const std::string zero = "0x0000000000000000000000000000000000000000";
    const std::string token = server.login_admin().token;
    for (const auto& [route, body] :
         {std::pair{"/abci/contracts/mint-role-token", role_mint_body(zero, "producer")},
          std::pair{"/abci/contracts/mint-entity-token", entity_mint_body(zero, "report", "zero-1")}}) {
        const auto answer = server.http().post(route, body, token);
        INFO(answer.body);
        CHECK(answer.status == 400);
        CHECK(answer.json["details"] == json::array({"userAddress must not be the zero address"}));
    }
    const std::string unreachable = "http://127.0.0.1:" + std::to_string(os::free_loopback_port());
    for (const auto& args : {std::vector<std::string>{"mint-role", "--address", zero, "--role", "producer", "--chain", "devnet"},
                             std::vector<std::string>{"mint-entity", "--address", zero, "--type", "report", "--entity-id",
                                                      "zero-2", "--chain", "devnet", "--name", "Zero"}}) {
        for (const auto& server_url : {server.url(), unreachable}) {
            const auto r = f.admin.run(args, {}, {{"ABCICTL_SERVER", server_url}});
            INFO(r.err);
            CHECK(r.exit_code == 2);
            CHECK(r.out.empty());
            // Under the flag's name, not the API's.
            CHECK(r.err.rfind("abcictl: --address must not be the zero address\n", 0) == 0);
        }
    }
    CHECK(journal(f.chain).empty());  // nothing was ever signed
}

}  // namespace abci::test::client
