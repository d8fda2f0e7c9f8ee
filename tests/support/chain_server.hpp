#pragma once
// A chain-backed `abcictl serve` for black-box tests of the /abci routes: a
// real anvil, the ABCIToken contract deployed on it by anvil's first dev key
// (the key the server then signs with, `[signer] anvilKey`), and a server
// whose config names that chain "devnet". Plus the checks of the spec's
// value formats (§2 conventions) and cast as the chain-side oracle.
// ABCI_TEST_SIGNER=pkcs11 in the environment: the server signs with the same
// key held in a SoftHSM2 token instead, imported as docs/hsm.md moves a
// keystore's key in, so that the tests run unchanged through a PKCS#11 signer
// (`make chaos`, and a reduced chaos run in tests/CMakeLists.txt).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/anvil.hpp"
#include "support/fault_proxy.hpp"
#include "support/serve.hpp"
#include "support/softhsm.hpp"

namespace abci::test {

/// The spec's value formats (§2): each false for any other JSON type.
/// An ISO 8601 UTC timestamp ("…Z") that parses as RFC 3339.
[[nodiscard]] bool is_utc_timestamp(const nlohmann::json& value);
/// A decimal string: digits only, no sign, no leading zero (gas, balances).
[[nodiscard]] bool is_decimal_string(const nlohmann::json& value);
/// "0x" followed by 64 lower-case hex digits (a transaction hash).
[[nodiscard]] bool is_tx_hash(const nlohmann::json& value);
/// "0x" followed by 40 hex digits, EIP-55 checksummed when mixed case.
[[nodiscard]] bool is_address(const nlohmann::json& value);

class ChainServer {
public:
    static constexpr const char* blockchain_id = "devnet";
    static constexpr const char* blockchain_name = "Anvil devnet";

    struct Options {
        Anvil::Options anvil{};
        /// Keys added to the devnet's own [[chains]] entry ("headMaxAgeMs = 0\n").
        std::string devnet_keys{};
        /// TOML appended after the devnet chain: more [[chains]], [content]…
        /// "{anvil}" in it becomes the node's URL.
        std::string extra_config{};
        /// `[rate_limit] abci`; "0" switches the limit off.
        std::string abci_rate_limit = "0";
        Env env{};
        /// A FaultProxy with these options between the server and anvil (the
        /// devnet's rpcUrl names the proxy; every rate starts at 0). The token
        /// is deployed straight to anvil either way.
        std::optional<FaultProxy::Options> fault_proxy{};
    };

    /// Starts anvil, deploys the token and starts the server; fails the test
    /// (Catch2) when any of them does not come up.
    explicit ChainServer(Options options);
    ChainServer() : ChainServer(Options{}) {}

    [[nodiscard]] Anvil& anvil() noexcept { return anvil_; }
    [[nodiscard]] Server& server() noexcept { return server_; }
    [[nodiscard]] Http http() const { return server_.http(); }
    /// The proxy of Options::fault_proxy; fails the test when there is none.
    [[nodiscard]] FaultProxy& proxy();
    /// The deployed token's address, EIP-55 checksummed.
    [[nodiscard]] const std::string& contract() const noexcept { return contract_; }
    /// The signer's (anvil dev account 0) address, checksummed.
    [[nodiscard]] static std::string signer();
    /// The server's config file as first given ("{port}" not yet filled):
    /// another server with the same chain and signer starts from it.
    [[nodiscard]] const std::string& config() const noexcept { return config_; }
    /// `env` and what the signer needs in the environment (the token's
    /// SOFTHSM2_CONF under ABCI_TEST_SIGNER=pkcs11): another server started
    /// from config() needs it, as the replicas do (one token, a session each).
    [[nodiscard]] Env signer_env(Env env = {}) const;
    /// The server's SQLite database in its data directory.
    [[nodiscard]] std::string database() const;

    /// balanceOf(who, token_id) read by cast, as a decimal string.
    [[nodiscard]] std::string chain_balance(const std::string& who, std::uint64_t token_id) const;
    /// The balances of token_id of each of `owners`, by one balanceOfBatch through cast.
    [[nodiscard]] std::vector<std::string> chain_balances(const std::vector<std::string>& owners,
                                                          std::uint64_t token_id) const;
    /// `cast receipt <hash> --json`.
    [[nodiscard]] nlohmann::json receipt(const std::string& tx_hash) const;
    /// The account's nonce at the latest block (or counting the node's pending
    /// transactions: `pending`), asked of anvil directly.
    [[nodiscard]] std::uint64_t nonce(const std::string& who, bool pending = false) const;

    /// The server stopped and started again with `more_config` (TOML, as
    /// Options::extra_config) after the config it was first given.
    void restart_server(const std::string& more_config);

    /// SIGKILL to the server, as a crash: nothing of it runs on. restart() brings it back.
    void kill_server();

    /// A JSON-RPC call straight to anvil (evm_mine, anvil_setBalance…): its result (json_rpc).
    nlohmann::json node_rpc(const std::string& method, const nlohmann::json& params = nlohmann::json::array()) const;
    /// A devnet restarted without its state: anvil back at genesis
    /// (anvil_reset, mining each transaction at once) and the token deployed
    /// again, at the same address.
    void reset_chain();

private:
    std::unique_ptr<SoftHsm> hsm_;  // the server's signer under ABCI_TEST_SIGNER=pkcs11; outlives the server
    Anvil anvil_;
    std::string contract_;
    std::unique_ptr<FaultProxy> proxy_;  // before server_: it must outlive the server's calls
    std::string config_;                 // the server's first
    Server server_;
};

/// A `[[chains]]` entry for ChainServer::Options::extra_config: chain id
/// 31337 (the anvil signer's only), network "ethereum", no contractAddress
/// when `contract` is empty; status active | testnet | disabled.
[[nodiscard]] std::string chain_entry(const std::string& id, const std::string& name, const std::string& rpc_url,
                                      const std::string& contract, const std::string& status);

/// A JSON-RPC quantity ("0x…", as `cast receipt --json` prints it) in decimal.
[[nodiscard]] std::string quantity_to_decimal(const nlohmann::json& quantity);

/// Asserts (Catch2) that `r` is the 200 answer of spec 4.2 to the
/// mint-entity-token request `body`, field by field (types, values, the
/// devnet blockchain); returns the CID of the stored metadata.
std::string require_entity_minted(const HttpResponse& r, const nlohmann::json& body);

/// Asserts (Catch2) that `r` is the 200 answer of spec 4.1 for role token
/// `token_id` on the devnet chain with the token at `contract`, field by field
/// (types, values, metadata); returns its transaction hash. What the chain
/// says of that transaction is the caller's to check.
std::string require_role_answer(const HttpResponse& r, std::uint64_t token_id, const std::string& contract);

/// The JSON body of a mint-entity-token request of `amount` `entity_type`
/// tokens (report…) for `entity_id` to `to` on the devnet chain.
[[nodiscard]] nlohmann::json entity_mint_body(const std::string& to, const std::string& entity_type,
                                              const std::string& entity_id, std::uint64_t amount = 1);
/// The JSON body of a mint-role-token request of `role` for `to`.
[[nodiscard]] nlohmann::json role_mint_body(const std::string& to, const std::string& role,
                                            const std::string& blockchain_id = ChainServer::blockchain_id);

}  // namespace abci::test
