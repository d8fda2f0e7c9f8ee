// Mints that do not wait, from the command line (issue 34 item 1): `mint-role`
// and `mint-entity --no-wait` print the mint id and the command that waits
// for its outcome (--json the server's 202, -q the id); `mint status ID
// --wait` waits for it, with a progress line on a terminal only, exits as
// the mint command would have, and gives up after --timeout. Black box
// against a real server on a real anvil that mines when the test says so.

#include <future>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/client_chain_fixture.hpp"
#include "support/eventually.hpp"
#include "support/tools.hpp"

namespace abci::test::client_async {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using namespace client;

// The documented exit codes (man abcictl, EXIT STATUS).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const std::regex kUuid("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");

std::string state_of(Terminal& t, const std::string& mint_id) {
    return json::parse(t.ok({"--json", "mint", "status", mint_id}))["data"]["state"].get<std::string>();
}

}  // namespace

TEST_CASE("client mints with --no-wait print the mint id and the status command, mint status --wait gives the outcome",
          "[client][mint-status][async]") {
    Fixture f;
    (void)f.chain.node_rpc("evm_setAutomine", {false});

    const auto out = f.admin.ok(with(f.mint_report("nw-1"), "--name", "Async", "--no-wait", "--idempotency-key", "nw-1"));
    const auto mint_id = field(out, "mint");
    CHECK(std::regex_match(mint_id, kUuid));
    CHECK(field(out, "state") == "pending");
    CHECK(field(out, "idempotencyKey") == "nw-1");
    CHECK(field(out, "outcome") == abcictl_binary() + " mint status " + mint_id + " --wait");
    // --json: the server's 202 as it came; -q: the id alone.
    const auto accepted = json::parse(f.admin.ok(with(f.mint_report("nw-2"), "--name", "Async", "--no-wait", "--json")));
    CHECK(accepted["success"] == true);
    CHECK(accepted["data"]["state"] == "pending");
    CHECK(accepted["data"]["idempotencyKey"].get<std::string>().rfind("abcictl-", 0) == 0);
    const auto quiet = f.admin.ok(with(f.mint_report("nw-3"), "--name", "Async", "--no-wait", "-q"));
    CHECK(std::regex_match(quiet, std::regex("[0-9a-f-]{36}\n")));
    CHECK(state_of(f.admin, mint_id) == "pending");

    // Piped: no progress line, then what `mint status` prints once it is mined.
    auto piped = std::async(std::launch::async, [&] { return f.admin.run({"mint", "status", mint_id, "--wait"}); });
    // On a terminal: the progress line while it waits.
    auto on_terminal = std::async(std::launch::async, [&] {
        return run_abcictl_on_terminal({"mint", "status", quiet.substr(0, quiet.size() - 1), "--wait"}, {},
                                       f.admin.env());
    });
    // Mined once all three reached the node and both waits have begun.
    REQUIRE(eventually([&] {
        return f.chain.nonce(ChainServer::signer(), true) >= f.chain.nonce(ChainServer::signer()) + 3;
    }));
    std::this_thread::sleep_for(1500ms);
    (void)f.chain.node_rpc("evm_mine");
    const auto waited = piped.get();
    INFO(waited.out << waited.err);
    CHECK(waited.exit_code == 0);
    CHECK(waited.err.empty());
    CHECK(field(waited.out, "state") == "mined");
    CHECK(field(waited.out, "entityId") == "nw-1");
    CHECK(f.chain.chain_balance(f.holder, 1000) == "3");
    const auto terminal = on_terminal.get();
    INFO(terminal.transcript);
    CHECK(terminal.exit_code == 0);
    CHECK(terminal.transcript.find("waiting for mint " + quiet.substr(0, quiet.size() - 1)) != std::string::npos);
    CHECK(terminal.transcript.find("mined") != std::string::npos);

    // A repeat of a settled key with --no-wait prints the mint itself.
    const auto again = f.admin.ok(with(f.mint_report("nw-1"), "--name", "Async", "--no-wait", "--idempotency-key", "nw-1"));
    CHECK(field(again, "mint") == mint_id);
    CHECK(field(again, "transactionHash") == field(waited.out, "transactionHash"));
}

TEST_CASE("client mint status --wait: a failed mint exits as the mint command would, --timeout gives up with exit 1",
          "[client][mint-status][async]") {
    Fixture f;
    (void)f.chain.node_rpc("evm_setAutomine", {false});

    // Still pending when --timeout passes: the mint's outcome is unknown, as for a mint command's timeout.
    const auto pending_id = field(f.admin.ok(with(f.mint_role("producer"), "--no-wait")), "mint");
    const auto gave_up = f.admin.run({"mint", "status", pending_id, "--wait", "--timeout", "1"});
    const auto line = one_line_failure(gave_up, kExitError);
    CHECK(line.find("still pending after 1 s") != std::string::npos);
    CHECK(line.find("mint status " + pending_id + " --wait") != std::string::npos);
    const auto misused = f.admin.run({"mint", "status", pending_id, "--timeout", "5"});
    CHECK(misused.exit_code == kExitUsage);
    CHECK(client::lines_of(misused.err).front() == "abcictl: --timeout requires --wait");

    // A second mint of the same role while neither is mined: the contract refuses one of them.
    const auto second_id = field(f.admin.ok(with(f.mint_role("producer"), "--no-wait")), "mint");
    REQUIRE(eventually([&] {
        return f.chain.nonce(ChainServer::signer(), true) >= f.chain.nonce(ChainServer::signer()) + 2;
    }));
    (void)f.chain.node_rpc("evm_setAutomine", {true});
    (void)f.chain.node_rpc("evm_mine");
    std::map<std::string, os::CommandResult> outcomes;
    for (const auto& id : {pending_id, second_id}) outcomes[id] = f.admin.run({"mint", "status", id, "--wait"});
    const auto failed = field(outcomes[pending_id].out, "state") == "failed" ? pending_id : second_id;
    const auto mined = failed == pending_id ? second_id : pending_id;
    CHECK(outcomes[mined].exit_code == kExitOk);
    CHECK(field(outcomes[mined].out, "state") == "mined");
    INFO(outcomes[failed].out << outcomes[failed].err);
    CHECK(field(outcomes[failed].out, "state") == "failed");
    // The role held: a waiting mint-role exits 2 for it, and so does the wait.
    const auto refused = f.admin.run(f.mint_role("producer"));
    CHECK(refused.exit_code == kExitUsage);
    CHECK(outcomes[failed].exit_code == refused.exit_code);
    // Without --wait, mint status keeps its exit 1 for a failed mint.
    CHECK(f.admin.run({"mint", "status", failed}).exit_code == kExitError);
    CHECK(f.chain.chain_balance(f.holder, 10000) == "1");
}

}  // namespace abci::test::client_async
