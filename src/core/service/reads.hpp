#pragma once
// The service's reads (spec §4.3–4.7 and a mint's status): typed queries,
// parsed from a front end's parameters with every problem in one
// Error(invalid_input), and typed results that serve renders in the spec's
// shape (serve/routes/abci_views.*).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/eth/address.hpp"
#include "core/eth/u256.hpp"
#include "core/service/network_config.hpp"
#include "core/service/tokens.hpp"
#include "core/store/store.hpp"

namespace abci::service {

/// A front end's query parameter: absent is nullopt.
using Param = std::optional<std::string>;

/// GET /abci/contracts/token-balance: userAddress, tokenId, blockchainId.
struct TokenBalanceQuery {
    eth::Address user;
    TokenKind kind;
    std::string blockchain_id;
    [[nodiscard]] static TokenBalanceQuery parse(const Param& user_address, const Param& token_id,
                                                 const Param& blockchain_id);
};

/// GET /abci/tokens/user-balance: userAddress, blockchainId.
struct UserBalanceQuery {
    eth::Address user;
    std::string blockchain_id;
    [[nodiscard]] static UserBalanceQuery parse(const Param& user_address, const Param& blockchain_id);
};

/// GET /abci/tokens/metadata/{tokenId}: blockchainId, entityId, userAddress.
/// A token id that names no token parses (it is a 404, not a 400).
struct TokenMetadataQuery {
    std::string token_id;             // as asked, for the 404's message
    std::optional<TokenKind> kind;    // none: no such token
    std::string blockchain_id;
    std::optional<std::string> entity_id;
    std::optional<eth::Address> user;
    [[nodiscard]] static TokenMetadataQuery parse(const std::string& token_id, const Param& blockchain_id,
                                                  const Param& entity_id, const Param& user_address);
};

struct TokenBalance {
    eth::Address user;
    TokenKind kind;
    std::optional<store::TokenBalance> row;  // none: never held
    ChainRef chain;
    eth::Address contract;
};

struct UserBalance {
    struct Holding {
        store::TokenBalance row;
        TokenKind kind;
    };
    eth::Address user;
    std::vector<Holding> holdings;  // non-zero, by token id
    ChainRef chain;
    eth::Address contract;
    /// When these balances were read from the chain: now, or (the chain did
    /// not answer) as old as the stalest row; none when never.
    std::optional<store::TimePoint> last_synced;
};

/// The expected price per gas of each fee tier, in wei.
struct GasPrices {
    eth::U256 low, standard, fast;
};

/// One network of GET /abci/blockchains/list.
struct NetworkListing {
    NetworkConfig config;
    std::string rpc_url;                  // masked
    std::optional<GasPrices> gas_prices;  // none: the node did not answer
};

/// GET /abci/blockchains/{id}/status. Unreachable parts are none.
struct BlockchainStatus {
    enum class Rpc { healthy, wrong_chain, unreachable };
    NetworkConfig config;
    Rpc rpc = Rpc::unreachable;
    std::optional<std::uint64_t> latest_block;
    std::optional<double> block_time;  // seconds, averaged over the last (up to) 10 blocks
    std::optional<eth::U256> gas_price;
    std::optional<GasPrices> recommended;
    std::optional<bool> deployed;  // none: unknown (no answer from the node)
    std::optional<std::string> contract_version;
    std::optional<store::TimePoint> last_upgrade;
    /// Deployed, and its version and deployment read (the last is read last).
    [[nodiscard]] bool contract_ok() const noexcept { return last_upgrade.has_value(); }
    [[nodiscard]] bool healthy() const noexcept { return rpc == Rpc::healthy && contract_ok(); }
};

/// GET /abci/tokens/metadata/{tokenId}: the ERC-1155 metadata record (spec
/// 2.4) as stored in content storage, and where it is.
struct TokenMetadata {
    nlohmann::json record;
    std::string cid;
    ChainRef chain;
    store::TimePoint last_updated;
};

/// GET /abci/contracts/mints/{id}: the mint and the transactions signed for it.
struct MintStatus {
    store::MintRequest mint;
    std::vector<store::JournalEntry> transactions;  // oldest first
};

}  // namespace abci::service
