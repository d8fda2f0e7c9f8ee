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
