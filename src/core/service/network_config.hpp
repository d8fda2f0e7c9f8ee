#pragma once
// What the operator configures about one EVM network (a `[[chains]]` entry of
// the server's config, DESIGN.md §5) and about the key that signs for all of
// them. Plain data: parsing lives with the config file (serve/settings), use
// in service::Registry (core/service/registry.hpp).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/chain/mint_batcher.hpp"

namespace abci::service {

struct NativeCurrency {
    std::string name = "Ether";
    std::string symbol = "ETH";
    int decimals = 18;
};

enum class NetworkStatus { active, testnet, disabled };

/// "active" | "testnet" | "disabled".
[[nodiscard]] const char* to_string(NetworkStatus status) noexcept;
/// Inverse of to_string(); nothing for any other text.
[[nodiscard]] std::optional<NetworkStatus> parse_network_status(const std::string& text) noexcept;

struct NetworkConfig {
    std::string id;  // slug used as blockchainId: [a-z0-9][a-z0-9-]{0,62}
    std::string name;
    std::uint64_t chain_id = 0;
    std::string network;                // family label, e.g. "ethereum"
    std::vector<std::string> rpc_urls;  // first is primary; the rest are failover
    std::string contract_address;       // 0x…; empty: no contract deployed yet
    NativeCurrency native_currency;
    std::string block_explorer;
    NetworkStatus status = NetworkStatus::active;
    std::uint64_t confirmations = 1;
    /// How old a head observation a balance read may rely on (headMaxAgeMs);
    /// the answer's lastSynced tells the client how current it is.
    std::chrono::milliseconds head_max_age{250};
    /// Deadline of one JSON-RPC call to the node, retries included (rpcTimeoutMs).
    std::chrono::milliseconds rpc_timeout{30'000};
    /// How long a mint request waits for its receipt (receiptTimeoutMs); the
    /// transaction stays tracked after that and its outcome is recorded when known.
    std::chrono::milliseconds receipt_timeout{120'000};
    /// How long a transaction the node knows stays unmined before it is
    /// replaced with higher fees (replaceAfterMs).
    std::chrono::milliseconds replace_after{30'000};
    /// The most a fee bump may offer per gas, in gwei (maxFeePerGasGwei); 0:
    /// four times what the transaction was first signed with.
    std::uint64_t max_fee_per_gas_gwei = 0;
    /// Health reports the signer degraded below this balance, in gwei
    /// (minSignerBalanceGwei); 0: enough for 100 mints at the current fee.
    std::uint64_t min_signer_balance_gwei = 0;
    /// Set: concurrent mints on this network are folded into mintMany
    /// transactions (the server's [mint_batching]); unset: one transaction per mint.
    std::optional<chain::BatchOptions> mint_batching;
};

/// A network as answers name it (spec metadata's "blockchain").
struct ChainRef {
    std::string name;
    std::uint64_t chain_id = 0;
    std::string network;
    [[nodiscard]] static ChainRef of(const NetworkConfig& config) { return {config.name, config.chain_id, config.network}; }
};

/// Where the signing key comes from. Exactly one source is set.
struct SignerConfig {
    std::string keystore;       // v3 keystore file
    std::string password_file;  // its password; else the environment's ABCI_SIGNER_PASSWORD
    std::string password;       // filled from ABCI_SIGNER_PASSWORD by the settings loader; never from a file or flag
    /// Use anvil's well-known first dev key. Refused unless every configured
    /// chain is a local devnet (chain id 31337), so it can never sign on a public network.
    bool anvil_key = false;
    // A key in a PKCS#11 token (DESIGN.md §10): the module, the token's label,
    // the key's label or CKA_ID (hex), and the user PIN, from pkcs11_pin_file
    // or the environment's ABCI_SIGNER_PIN (filled by the settings loader).
    std::string pkcs11_module;
    std::string pkcs11_token;
    std::string pkcs11_key;
    std::string pkcs11_pin_file;
    std::string pkcs11_pin;
    // A remote JSON-RPC signer (DESIGN.md §10): its URL, the account it signs
    // for, and a bearer token from remote_token_file or the environment's
    // ABCI_SIGNER_TOKEN (filled by the settings loader).
    std::string remote;
    std::string remote_address;
    std::string remote_token_file;
    std::string remote_token;

    /// True when some signer is configured.
    [[nodiscard]] bool any() const noexcept {
        return anvil_key || !keystore.empty() || !pkcs11_module.empty() || !remote.empty();
    }
};

/// Checks a network entry: id slug, name, chain id > 0, at least one http(s)
/// rpc URL, contract address (when set) a valid 0x address, confirmations ≥ 1.
/// Throws Error(invalid_input) naming the entry and the field.
void validate(const NetworkConfig& config);

}  // namespace abci::service
