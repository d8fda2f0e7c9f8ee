// `abcictl admin journal list|show|abandon` through the real binary on a real
// server's data directory and a real anvil: pending mints that never
// mined (automine off), a crash of the server, the node's mempool cleared and
// one nonce consumed by another transaction. Abandon is refused without the
// chain's proof, done with it, and with --force only after a confirmation;
// the mints it fails are released, so a retry with their keys mints once.

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli/client_chain_fixture.hpp"
#include "core/eth/address.hpp"
#include "support/tools.hpp"

namespace abci::test::client {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

/// `abcictl --json admin journal list [filter…]` on the server's data directory.
json journal(const Server& server, const std::vector<std::string>& filter = {}) {
    std::vector<std::string> args{"--json", "admin", "journal", "list"};
    args.insert(args.end(), filter.begin(), filter.end());
    const auto r = server.admin_cli(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
}

std::vector<std::string> abandon(const std::string& hash, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"admin", "journal", "abandon", hash};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

std::string status_of(const Server& server, const std::string& hash) {
    const auto r = server.admin_cli({"-q", "admin", "journal", "show", hash});
    REQUIRE(r.exit_code == 0);
    return r.out.substr(0, r.out.size() - 1);
}

/// A mint sent and never mined (automine off): the CLI gives up after 2 s.
struct StuckMint {
    std::string key, hash, mint_id;
    std::uint64_t nonce = 0;
};

StuckMint stuck_mint(Fixture& f, const std::vector<std::string>& mint) {
    const auto r = f.admin.run(with(mint, "--timeout", "2"));
    REQUIRE(r.exit_code == 1);
    const auto at = r.err.find("Idempotency-Key: ");
    REQUIRE(at != std::string::npos);
    StuckMint stuck;
    stuck.key = r.err.substr(at + 17, r.err.find('\n', at) - at - 17);
    json pending;
    for (int i = 0; i < 100 && (pending = journal(f.chain.server())).empty(); ++i) std::this_thread::sleep_for(100ms);
    REQUIRE(pending.size() == 1);
    stuck.hash = pending[0]["hash"];
    stuck.mint_id = pending[0]["mintIds"][0];
    stuck.nonce = pending[0]["nonce"];
    return stuck;
}

/// Waits until the server's sender has recorded the chain's block 0 on its lane.
void await_genesis(const Server& server) {
    const auto store = server.open_store();
    const auto recorded = [&] {
        for (const auto& lane : store->lanes().list())
            if (!lane.genesis.empty()) return true;
        return false;
    };
    for (int i = 0; i < 100 && !recorded(); ++i) std::this_thread::sleep_for(100ms);
    REQUIRE(recorded());
}

/// The server's config file, for `abandon --config`.
std::string config_file(Fixture& f, const TempDir& dir) {
    std::string text = f.chain.config();
    for (auto at = text.find("{port}"); at != std::string::npos; at = text.find("{port}"))
        text.replace(at, 6, std::to_string(f.chain.server().port()));
    return dir.write("serve.toml", text);
}

/// The TransferSingle events of the token to the fixture's holder: the chain's count of its mints.
std::size_t transfers_to_holder(Fixture& f) {
    const json filter = {{"fromBlock", "0x0"},
                         {"toBlock", "latest"},
                         {"address", f.chain.contract()},
                         {"topics", {cast({"keccak", "TransferSingle(address,address,address,uint256,uint256)"}), nullptr,
                                     nullptr, "0x" + std::string(24, '0') + eth::Address::parse(f.holder).lower().substr(2)}}};
    return f.chain.node_rpc("eth_getLogs", json::array({filter})).size();
}

/// Polls `mint status ID` until it says `state` (10 s at most); returns the last output.
std::string await_mint(Fixture& f, const std::string& mint_id, const std::string& state) {
    std::string out;
    for (int i = 0; i < 100 && field(out = f.admin.run({"mint", "status", mint_id}).out, "state") != state; ++i)
        std::this_thread::sleep_for(100ms);
    INFO(out);
    CHECK(field(out, "state") == state);
    return out;
}

}  // namespace

TEST_CASE("admin journal: list, show, and abandon only with the chain's proof or --force after a confirmation",
          "[cli][admin][journal]") {
    Fixture f;
    auto& server = f.chain.server();
    auto& anvil = f.chain.anvil();
    const auto& signer = Anvil::dev_accounts()[0];
    (void)cast({"rpc", "--rpc-url", anvil.url(), "evm_setAutomine", "false"});

    // Two mints signed and sent, never mined; the CLI gives up after 2 s and names their keys.
    std::vector<std::string> keys;
    for (const char* entity : {"stuck-1", "stuck-2"}) {
        const auto r = f.admin.run(with(f.mint_report(entity), "--name", entity, "--timeout", "2"));
        REQUIRE(r.exit_code == 1);
        const auto at = r.err.find("Idempotency-Key: ");
        REQUIRE(at != std::string::npos);
        keys.push_back(r.err.substr(at + 17, r.err.find('\n', at) - at - 17));
    }
    json pending;
    for (int i = 0; i < 100 && (pending = journal(server)).size() < 2; ++i) std::this_thread::sleep_for(100ms);
    REQUIRE(pending.size() == 2);  // newest first
    const json first = pending[1], second = pending[0];
    CHECK(second["nonce"].get<std::uint64_t>() == first["nonce"].get<std::uint64_t>() + 1);
    CHECK(first["idempotencyKeys"] == json::array({keys[0]}));
    CHECK(second["idempotencyKeys"] == json::array({keys[1]}));
    CHECK(first["status"] == "pending");
    CHECK(first["op"] == "mint");
    CHECK(first["blockchainId"] == "devnet");
    CHECK(first["sender"] == eth::Address::parse(signer.address).lower());
    const std::string h1 = first["hash"], h2 = second["hash"];
    const std::string mint1 = first["mintIds"][0], mint2 = second["mintIds"][0];
    const auto nonce = first["nonce"].get<std::uint64_t>();

    // The table and -q; show with every field.
    const auto table = lines_of(server.admin_cli({"admin", "journal", "list"}).out);
    REQUIRE(table.size() == 3);
    CHECK(table[0].rfind("HASH", 0) == 0);
    for (const char* header : {"CHAIN", "NONCE", "STATUS", "AGE", "OP", "MINTS", "KEYS"})
        CHECK(table[0].find(header) != std::string::npos);
    CHECK(table[2].rfind(h1 + "  devnet  " + std::to_string(nonce) + " ", 0) == 0);
    CHECK(table[2].find(mint1) != std::string::npos);
    CHECK(table[2].find(keys[0]) != std::string::npos);
    CHECK(server.admin_cli({"-q", "admin", "journal", "list"}).out == h2 + "\n" + h1 + "\n");
    const auto shown = server.admin_cli({"admin", "journal", "show", h1}).out;
    CHECK(field(shown, "hash") == h1);
    CHECK(field(shown, "nonce") == std::to_string(nonce));
    CHECK(field(shown, "status") == "pending");
    CHECK(field(shown, "mintIds") == mint1);
    CHECK(field(shown, "idempotencyKeys") == keys[0]);
    CHECK(field(shown, "raw").rfind("0x02", 0) == 0);
    const auto shown_json = json::parse(server.admin_cli({"--json", "admin", "journal", "show", h1}).out);
    CHECK(shown_json["purpose"]["mintId"] == mint1);
    CHECK(shown_json["raw"] == field(shown, "raw"));
    CHECK(server.admin_cli({"admin", "journal", "show", "0x" + std::string(64, '0')}).exit_code == 1);
    CHECK(server.admin_cli({"admin", "journal", "list", "--status", "lost"}).exit_code == 2);
    CHECK(journal(server, {"--status", "mined"}).empty());
    CHECK(journal(server, {"--all"}).size() == 2);

    // Pending on chain: no proof yet.
    const auto early = server.admin_cli(abandon(h1, {"--rpc-url", anvil.url()}));
    CHECK(early.exit_code == 1);
    CHECK(early.err.find("is not consumed on chain") != std::string::npos);
    CHECK(server.admin_cli(abandon(h1)).exit_code == 2);  // neither proof nor --force

    // The server dies; the node forgets both; another transaction takes the first nonce.
    f.chain.kill_server();
    (void)cast({"rpc", "--rpc-url", anvil.url(), "anvil_dropAllTransactions"});
    (void)cast({"rpc", "--rpc-url", anvil.url(), "evm_setAutomine", "true"});
    (void)cast({"send", "--rpc-url", anvil.url(), "--private-key", signer.private_key, "--nonce", std::to_string(nonce),
                "--value", "0", signer.address});
    CHECK(f.chain.nonce(signer.address) == nonce + 1);

    // Another chain's node proves nothing; an unreachable one is no proof either.
    Anvil other(Anvil::Options{.chain_id = 4242});
    const auto wrong_chain = server.admin_cli(abandon(h1, {"--rpc-url", other.url()}));
    CHECK(wrong_chain.exit_code == 1);
    CHECK(wrong_chain.err.find("4242") != std::string::npos);
    const std::string nowhere = "http://127.0.0.1:" + std::to_string(os::free_loopback_port());
    CHECK(server.admin_cli(abandon(h1, {"--rpc-url", nowhere})).exit_code == 1);
    CHECK(status_of(server, h1) == "pending");
    // The second nonce is still the account's next: not consumed.
    CHECK(server.admin_cli(abandon(h2, {"--rpc-url", anvil.url()})).exit_code == 1);

    // With the proof: abandoned, its mint released.
    const auto done = server.admin_cli(abandon(h1, {"--rpc-url", anvil.url()}));
    INFO(done.err);
    REQUIRE(done.exit_code == 0);
    CHECK(field(done.out, "abandoned") == h1);
    CHECK(field(done.out, "releasedMints") == mint1);
    CHECK(done.err.find("A running serve keeps sending") != std::string::npos);
    CHECK(status_of(server, h1) == "abandoned");
    CHECK(server.admin_cli(abandon(h1, {"--rpc-url", anvil.url()})).exit_code == 1);  // final already

    // --force: never without a confirmation.
    const auto no_input = server.admin_cli(with({"--no-input"}, "admin", "journal", "abandon", h2, "--force"));
    CHECK(no_input.exit_code == 2);
    CHECK(no_input.err.find("Pass -y") != std::string::npos);
    const std::vector<std::string> force{"admin", "journal", "abandon", h2, "--force", "--data-dir", server.data_dir()};
    const auto declined = run_abcictl_on_terminal(force, {"n"});
    INFO(declined.transcript);
    CHECK(declined.transcript.find("without the chain's proof, and fail its mints " + mint2) != std::string::npos);
    CHECK(declined.transcript.find("[y/N]: n") != std::string::npos);
    CHECK(declined.exit_code == 1);
    CHECK(status_of(server, h2) == "pending");
    const auto forced = server.admin_cli(with({"-y"}, "admin", "journal", "abandon", h2, "--force"));
    INFO(forced.err);
    REQUIRE(forced.exit_code == 0);
    CHECK(field(forced.out, "releasedMints") == mint2);
    CHECK(journal(server).empty());
    CHECK(journal(server, {"--status", "abandoned"}).size() == 2);

    // Released: the retries with the keys mint, once each; a second retry replays.
    server.restart();
    const std::vector<std::string> entities{"stuck-1", "stuck-2"};
    std::vector<std::string> hashes;
    for (std::size_t i = 0; i < 2; ++i) {
        const auto out = f.admin.ok(with(f.mint_report(entities[i]), "--name", entities[i], "--idempotency-key", keys[i]));
        hashes.push_back(field(out, "transactionHash"));
    }
    const auto again = f.admin.ok(with(f.mint_report("stuck-1"), "--name", "stuck-1", "--idempotency-key", keys[0]));
    CHECK(field(again, "transactionHash") == hashes[0]);
    CHECK(f.chain.chain_balance(f.holder, 1000) == "2");
}

}  // namespace abci::test::client

namespace abci::test::client {

// Issue 30 item 9: a second devnet with the same chain id, where the signer's
// nonce is past the transaction's, took the abandon of a transaction still
// pending on the real chain; the retry of its key then minted a second time.
TEST_CASE("admin journal abandon: a node of another chain with the same chain id proves nothing",
          "[cli][admin][journal]") {
    Fixture f;
    auto& server = f.chain.server();
    const auto& signer = Anvil::dev_accounts()[0];
    (void)f.chain.node_rpc("evm_setAutomine", {false});
    const auto stuck = stuck_mint(f, with(f.mint_report("forked-1"), "--name", "forked-1"));
    await_genesis(server);

    Anvil other(Anvil::Options{.extra_args = {"--timestamp", "1000"}});
    REQUIRE(other.chain_id() == f.chain.anvil().chain_id());
    while (other.nonce(signer.address) <= stuck.nonce)
        (void)other.rpc("eth_sendTransaction", {{{"from", signer.address}, {"to", signer.address}, {"value", "0x0"}}});
    const auto refused = server.admin_cli(abandon(stuck.hash, {"--rpc-url", other.url()}));
    INFO(refused.err);
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("serves another chain with chain id 31337: its block 0 is ") != std::string::npos);
    CHECK(status_of(server, stuck.hash) == "pending");

    // Without a node, the proof is asked for; the server's own node shows the nonce still open.
    const auto none = server.admin_cli(abandon(stuck.hash));
    CHECK(none.exit_code == 2);
    CHECK(none.err.find("--config FILE") != std::string::npos);
    TempDir dir;
    const auto own = server.admin_cli(abandon(stuck.hash, {"--config", config_file(f, dir)}));
    CHECK(own.exit_code == 1);
    CHECK(own.err.find("is not consumed on chain") != std::string::npos);

    // The real chain mines it: the key's retry replays it, and the chain holds one mint.
    (void)f.chain.node_rpc("evm_setAutomine", {true});
    (void)f.chain.node_rpc("evm_mine");
    CHECK(field(await_mint(f, stuck.mint_id, "mined"), "transactionHash") == stuck.hash);
    const auto retry = f.admin.ok(with(f.mint_report("forked-1"), "--name", "forked-1", "--idempotency-key", stuck.key));
    CHECK(field(retry, "transactionHash") == stuck.hash);
    CHECK(transfers_to_holder(f) == 1);
}

// --force abandoned without asking the chain, even beside a running serve;
// a retry then minted twice.
TEST_CASE("admin journal abandon --force: refused while serve runs, and when the chain shows the transaction mined",
          "[cli][admin][journal]") {
    Fixture f;
    auto& server = f.chain.server();
    (void)f.chain.node_rpc("evm_setAutomine", {false});
    const auto stuck = stuck_mint(f, with(f.mint_report("forced-1"), "--name", "forced-1"));
    await_genesis(server);
    TempDir dir;
    const auto config = config_file(f, dir);

    const auto serving = server.admin_cli(with({"-y"}, "admin", "journal", "abandon", stuck.hash, "--force", "--config", config));
    INFO(serving.err);
    CHECK(serving.exit_code == 1);
    CHECK(serving.err.find("in use by another abcictl serve") != std::string::npos);
    CHECK(serving.err.find("--even-while-serving") != std::string::npos);
    CHECK(status_of(server, stuck.hash) == "pending");

    // The server dies and the chain mines the transaction: the journal still says pending.
    f.chain.kill_server();
    (void)f.chain.node_rpc("evm_mine");
    REQUIRE(!f.chain.node_rpc("eth_getTransactionReceipt", {stuck.hash}).is_null());
    const auto mined = server.admin_cli(with({"-y"}, "admin", "journal", "abandon", stuck.hash, "--force", "--config", config));
    INFO(mined.err);
    CHECK(mined.exit_code == 1);
    CHECK(mined.err.find("the account's latest nonce is " + std::to_string(stuck.nonce + 1)) != std::string::npos);
    CHECK(mined.err.find("nothing to abandon") != std::string::npos);
    CHECK(status_of(server, stuck.hash) == "pending");

    server.restart();
    CHECK(field(await_mint(f, stuck.mint_id, "mined"), "transactionHash") == stuck.hash);
    const auto retry = f.admin.ok(with(f.mint_report("forced-1"), "--name", "forced-1", "--idempotency-key", stuck.key));
    CHECK(field(retry, "transactionHash") == stuck.hash);
    CHECK(transfers_to_holder(f) == 1);
}

// A role mint abandoned on the operator's word while its transaction could
// still land: the next start did not notice it mined, and its status said
// failed while the wallet held the token.
TEST_CASE("admin journal abandon --force: a transaction mined after all makes its mint minted at the next start",
          "[cli][admin][journal]") {
    Fixture f;
    auto& server = f.chain.server();
    (void)f.chain.node_rpc("evm_setAutomine", {false});
    const auto stuck = stuck_mint(f, f.mint_role("producer"));
    f.chain.kill_server();

    // No node answers: the operator's word alone.
    const std::string nowhere = "http://127.0.0.1:" + std::to_string(os::free_loopback_port());
    const auto forced = server.admin_cli(with({"-y"}, "admin", "journal", "abandon", stuck.hash, "--force", "--rpc-url", nowhere));
    INFO(forced.err);
    REQUIRE(forced.exit_code == 0);
    CHECK(forced.err.find("going on without the chain's word") != std::string::npos);
    CHECK(field(forced.out, "releasedMints") == stuck.mint_id);

    (void)f.chain.node_rpc("evm_mine");
    server.restart();
    const auto status = await_mint(f, stuck.mint_id, "mined");
    CHECK(field(status, "transactionHash") == stuck.hash);
    CHECK(status_of(server, stuck.hash) == "mined");
    const auto warned = server.log();
    CHECK(warned.find("a transaction given up was mined after all") != std::string::npos);
    CHECK(warned.find(stuck.mint_id) != std::string::npos);
    const auto retry = f.admin.ok(with(f.mint_role("producer"), "--idempotency-key", stuck.key));
    CHECK(field(retry, "transactionHash") == stuck.hash);
    CHECK(transfers_to_holder(f) == 1);
}

// Beside a running serve only with a second flag; the chain is asked first,
// and when the transaction lands after all the serve makes its mint minted.
TEST_CASE("admin journal abandon --force --even-while-serving: the running server makes a mint mined after all minted",
          "[cli][admin][journal]") {
    Fixture f;
    auto& server = f.chain.server();
    (void)f.chain.node_rpc("evm_setAutomine", {false});
    const auto stuck = stuck_mint(f, with(f.mint_report("serving-1"), "--name", "serving-1"));
    await_genesis(server);
    TempDir dir;
    const auto forced = server.admin_cli(with({"-y"}, "admin", "journal", "abandon", stuck.hash, "--force",
                                              "--even-while-serving", "--config", config_file(f, dir)));
    INFO(forced.err);
    REQUIRE(forced.exit_code == 0);
    CHECK(forced.err.find("the account's latest nonce is " + std::to_string(stuck.nonce)) != std::string::npos);
    CHECK(forced.err.find("none is mined") != std::string::npos);
    CHECK(status_of(server, stuck.hash) == "abandoned");

    (void)f.chain.node_rpc("evm_mine");
    CHECK(field(await_mint(f, stuck.mint_id, "mined"), "transactionHash") == stuck.hash);
    CHECK(status_of(server, stuck.hash) == "mined");
    CHECK(server.log().find("a transaction given up was mined after all") != std::string::npos);
    const auto retry = f.admin.ok(with(f.mint_report("serving-1"), "--name", "serving-1", "--idempotency-key", stuck.key));
    CHECK(field(retry, "transactionHash") == stuck.hash);
    CHECK(transfers_to_holder(f) == 1);
}


TEST_CASE("admin journal list: an empty journal says so, --json is still []", "[cli][journal]") {
    Server server(Server::Options{});
    const auto pending = server.admin_cli({"admin", "journal", "list"});
    INFO(pending.err);
    CHECK(pending.exit_code == 0);
    CHECK(pending.out == "no transactions in the journal with status pending (--all lists every status)\n");
    CHECK(server.admin_cli({"admin", "journal", "list", "--all"}).out == "no transactions in the journal\n");
    CHECK(server.admin_cli({"admin", "journal", "list", "--status", "mined", "--chain", "devnet"}).out ==
          "no transactions in the journal with status mined on devnet (--all lists every status)\n");
    const auto as_json = server.admin_cli({"--json", "admin", "journal", "list"});
    CHECK(as_json.exit_code == 0);
    CHECK(json::parse(as_json.out) == json::array());
}

}  // namespace abci::test::client
