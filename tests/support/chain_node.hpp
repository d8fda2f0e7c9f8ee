#pragma once
// A server's chain side without its HTTP front, for in-process tests of
// minting and reconciliation: a real anvil with the token deployed by dev
// account 0 (the signer), a SQLite store and local content storage in a temp
// directory, the network registry over them ("devnet"), and the service.
// Faster than a black-box server per case, and it reaches what the server
// does not show: the store, the journal, the sender.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include "core/content/content_store.hpp"
#include "core/metrics/registry.hpp"
#include "core/service/registry.hpp"
#include "core/service/service.hpp"
#include "core/store/store.hpp"
#include "support/anvil.hpp"
#include "support/cli_runner.hpp"
#include "support/method_counting_proxy.hpp"

namespace abci::test {

/// Deploys the token from dev account 0 (which then holds the minter role)
/// with a sender of its own, gone before any other sender uses that account's
/// nonces; returns its address, checksummed. On a fresh chain the address is
/// always the same (the deployer's nonce 0).
[[nodiscard]] std::string deploy_token(const Anvil& anvil);

/// A devnet restarted without its state: anvil back at genesis, mining each
/// transaction at once as a fresh anvil does, and the token deployed again at
/// `contract`, its address on a fresh chain.
void reset_devnet(const Anvil& anvil, const std::string& contract);

class ChainNode {
public:
    static constexpr const char* blockchain_id = "devnet";

    struct Options {
        Anvil::Options anvil{};
        /// How long a JSON-RPC call (retries included) may take.
        std::chrono::milliseconds rpc_timeout{30'000};
        /// The registry reaches anvil through a method-counting proxy (proxy()).
        bool proxied = false;
        /// Changes to the devnet's network settings (confirmations, receipt timeout…).
        std::function<void(service::NetworkConfig&)> network{};
    };

    explicit ChainNode(Options options);
    ChainNode() : ChainNode(Options{}) {}

    Anvil anvil;
    std::unique_ptr<MethodCountingProxy> proxy;
    TempDir dir;
    std::string contract;
    std::unique_ptr<store::Store> store;
    std::unique_ptr<content::ContentStore> content;
    std::shared_ptr<const eth::PrivateKey> key;  // shared with the registry
    metrics::Registry metrics;  // the registry's and the service's: a test may read what they recorded
    service::Registry registry;
    service::Network& network;

    /// The service over the store and registry, made at the first call and
    /// reconciled as a server's at start (it takes the lane): a test sets up
    /// what a crash left behind before the service starts.
    [[nodiscard]] service::AbciService& service();
    /// The signer's sender, for tests of the sender without the service: a
    /// term of the network's lane, taken by the node itself at the first call.
    /// A service made later takes the lane over, fencing this term's journal.
    [[nodiscard]] chain::TxSender& sender();

    /// The signer's address in lower case.
    [[nodiscard]] std::string signer() const { return key->address().lower(); }

    /// The store's database, read beside it for what the Store interface has no query for.
    [[nodiscard]] SQLite::Database database() const;
    /// The hashes journaled with `purpose`, oldest first.
    [[nodiscard]] std::vector<std::string> journaled(const std::string& purpose) const;
    /// How many entity records the store holds for transaction `hash` (one per mined mint).
    [[nodiscard]] int entities_of(const std::string& hash) const;

    /// `cast <args…> --rpc-url <anvil>`: its output.
    [[nodiscard]] std::string cast_rpc(std::vector<std::string> args) const;
    /// A transfer of 0 from the signer's account to itself with `nonce`, sent
    /// by anvil on the account's behalf (not by the sender under test) at 100
    /// gwei: someone else using the signer's nonce.
    void send_foreign(std::uint64_t nonce) const;
    /// The signer's nonce at the latest block, or counting the node's pending transactions.
    [[nodiscard]] std::uint64_t nonce(bool pending = false) const;
    [[nodiscard]] std::uint64_t pending_nonce() const { return nonce(true); }
    /// balanceOf(who, token_id) read by cast, in decimal.
    [[nodiscard]] std::string chain_balance(const eth::Address& who, std::uint64_t token_id) const;
    /// reset_devnet() of this node.
    void reset_chain() const { reset_devnet(anvil, contract); }

private:
    std::unique_ptr<store::LaneElection> election_;
    std::shared_ptr<service::Network::Term> term_;
    std::optional<service::AbciService> service_;  // after what it uses: destroyed first
};

}  // namespace abci::test
