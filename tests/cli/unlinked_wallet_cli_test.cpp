// Issue 14, item 13: every message about a wallet that is not linked (to any
// user, or to the caller) names the wallet and the next step, with the command
// that takes it: signing in with an unlinked wallet (on a terminal, as a
// person does), a role mint to an unlinked address, a role request for a
// wallet that is not the requester's, and a certificate without a linked
// wallet holding the certifier role. Real server, real anvil.

#include <nlohmann/json.hpp>

#include "cli/client_chain_fixture.hpp"

namespace abci::test::client {
namespace {

/// The one line a terminal run printed after its prompts (its error), without the terminal's carriage returns.
std::string last_line(const TerminalRun& run) {
    std::string text;
    for (const char c : run.transcript)
        if (c != '\r') text += c;
    const auto lines = lines_of(text);
    return lines.empty() ? "" : lines.back();
}

}  // namespace

TEST_CASE("messages about an unlinked wallet name the wallet and the command that links it", "[client][unlinked]") {
    ChainServer::Options options;
    options.extra_config = "[auth.wallet]\nchainIds = [31337]\n";
    Fixture f(options);
    const auto& stranger = Anvil::dev_accounts()[6];  // linked to nobody
    const std::string link = "abcictl admin user link-wallet --email EMAIL --address " + stranger.address;

    // Signing in with it, the private key typed at the prompt.
    Terminal someone(f.chain.server().url());
    const auto login = run_abcictl_on_terminal({"login", "--wallet"}, {stranger.private_key}, someone.env());
    INFO(login.transcript);
    CHECK(login.prompts >= 1);  // the key typed at it
    CHECK(login.exit_code == 4);
    CHECK(last_line(login) == "abcictl: the wallet " + stranger.address +
                                  " is not linked to any user: an admin links it with `" + link + "`");

    // A role token minted to it.
    const auto mint = f.admin.run({"mint-role", "--address", stranger.address, "--role", "producer", "--chain",
                                   ChainServer::blockchain_id});
    CHECK(one_line_failure(mint, 2) == "abcictl: no user is linked to the address " + stranger.address +
                                           ": a role token goes to a user's wallet; link it with `" + link +
                                           " --data-dir " + f.chain.server().data_dir() + "`");

    // A role request for it by a user it is not linked to: the admin's command names that user.
    const auto http = f.chain.http();
    const auto farmer = f.chain.server().login("producer@example.org", "producer pass 1234");
    const auto requested = http.post("/v1/role-requests",
                                     {{"roleType", "producer"}, {"walletAddress", stranger.address},
                                      {"blockchainId", ChainServer::blockchain_id}},
                                     farmer.token);
    INFO(requested.body);
    CHECK(requested.status == 422);
    CHECK(requested.json["message"] == "the wallet " + stranger.address +
                                           " is not linked to your account; ask an admin to link it to you (`abcictl "
                                           "admin user link-wallet --email producer@example.org --address " +
                                           stranger.address + "`), then file the request again");

    // A certificate: the farmer's wallet holds no certifier token; the admin has no wallet at all.
    const nlohmann::json certificate = {
        {"title", "Organic"}, {"recipientAddress", stranger.address}, {"blockchainId", ChainServer::blockchain_id}};
    const auto unqualified = http.post("/v1/certifiers/certificates", certificate, farmer.token);
    INFO(unqualified.body);
    CHECK(unqualified.status == 403);
    CHECK(unqualified.json["message"] ==
          "issuing a certificate requires a linked wallet holding the certifier role token on devnet, and none of "
          "yours (" + f.holder + ") holds it: an admin mints it with `abcictl mint-role --address " + f.holder +
              " --role certifier --chain devnet`");
    const auto walletless = http.post("/v1/certifiers/certificates", certificate, f.chain.server().login_admin().token);
    INFO(walletless.body);
    CHECK(walletless.status == 403);
    CHECK(walletless.json["message"] ==
          "issuing a certificate requires a linked wallet holding the certifier role token on devnet, and you have no "
          "linked wallet: an admin links one with `abcictl admin user link-wallet --email admin@example.org --address "
          "ADDRESS` and mints it the token with `abcictl mint-role --address ADDRESS --role certifier --chain devnet`");
}

}  // namespace abci::test::client
