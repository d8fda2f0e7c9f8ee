#pragma once
// What the black-box tests of the ABCI client commands share: a real
// `abcictl serve` on a real anvil with a user whose wallet receives the
// mints, the admin's and that user's terminals logged in, and the argv of a
// role or report mint to that wallet.

#include <string>
#include <utility>
#include <vector>

#include "cli/client_test.hpp"
#include "support/chain_server.hpp"

namespace abci::test::client {

/// A chain's user with a wallet, and the admin's terminal, logged in.
struct Fixture {
    ChainServer chain;
    std::string holder = Anvil::dev_accounts()[3].address;
    Terminal admin{chain.server().url()};
    Terminal farmer{chain.server().url()};

    explicit Fixture(ChainServer::Options options = {}) : chain(std::move(options)) {
        chain.server().add_user("producer@example.org", "farmer", "producer pass 1234");
        chain.server().link_wallet("producer@example.org", holder);
        admin.login(Server::admin_email, Server::admin_password);
        farmer.login("producer@example.org", "producer pass 1234");
    }
    [[nodiscard]] std::vector<std::string> mint_role(const std::string& role) const {
        return {"mint-role", "--address", holder, "--role", role, "--chain", ChainServer::blockchain_id};
    }
    [[nodiscard]] std::vector<std::string> mint_report(const std::string& entity_id) const {
        return {"mint-entity", "--address", holder, "--type", "report", "--entity-id", entity_id,
                "--chain", ChainServer::blockchain_id};
    }
};

template <typename... More>
std::vector<std::string> with(std::vector<std::string> args, More... more) {
    (args.push_back(more), ...);
    return args;
}

}  // namespace abci::test::client
