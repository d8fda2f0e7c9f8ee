// What the service reads and reports: token balances (reconciled with the
// chain), the networks and their status, token metadata, and a mint's status.
#include <algorithm>
#include <future>

#include "core/service/requests.hpp"
#include "core/service/service.hpp"
#include "core/service/service_parts.hpp"
#include "core/service/tokens.hpp"
#include "core/content/content_store.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/store/store.hpp"
#include "core/util/fields.hpp"
#include "core/util/log.hpp"
#include "core/util/time.hpp"

namespace abci::service {

namespace {

std::optional<std::uint64_t> parse_token_id(util::Fields& fields, const std::string& text) {
    if (text.empty()) return std::nullopt;
    const bool digits = text.size() <= 19 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    fields.check(digits, "tokenId must be a non-negative integer");
    if (!digits) return std::nullopt;
    return std::stoull(text);
}

// The common query parameters of the balance routes, checked together.
UserBalanceQuery balance_query(util::Fields& fields, const Param& user_address, const Param& blockchain_id) {
    fields.check(user_address && !user_address->empty(), "userAddress is required");
    fields.check(blockchain_id && !blockchain_id->empty(), "blockchainId is required");
    const auto address = parse_address_field(fields, "userAddress", user_address.value_or(""));
    fields.done();
    return {*address, *blockchain_id};
}

std::optional<GasPrices> gas_prices(Network& network) {
    try {
        const auto tiers = network.probe().fee_tiers();
        return GasPrices{tiers.expected_price(chain::FeeTier::low), tiers.expected_price(chain::FeeTier::standard),
                         tiers.expected_price(chain::FeeTier::fast)};
    } catch (const Error& e) {
        util::log(util::LogLevel::warning, "a blockchain's gas prices could not be read from its node; shown as null",
                  {{"blockchainId", network.config().id}, {"error", e.what()}});
        return std::nullopt;
    }
}

}  // namespace

TokenBalanceQuery TokenBalanceQuery::parse(const Param& user_address, const Param& token_id,
                                           const Param& blockchain_id) {
    nlohmann::json none = nlohmann::json::object();
    util::Fields fields(none);
    fields.check(token_id && !token_id->empty(), "tokenId is required");
    const auto id = parse_token_id(fields, token_id.value_or(""));
    const auto kind = id ? token_kind(*id) : std::nullopt;
    fields.check(!id || kind.has_value(), "tokenId must be a role (10000, 10100, 10200, 10300) or entity (1000, 1100, 1200, 1300) token id");
    auto wallet = balance_query(fields, user_address, blockchain_id);
    return {wallet.user, *kind, std::move(wallet.blockchain_id)};
}

UserBalanceQuery UserBalanceQuery::parse(const Param& user_address, const Param& blockchain_id) {
    nlohmann::json none = nlohmann::json::object();
    util::Fields fields(none);
    return balance_query(fields, user_address, blockchain_id);
}

TokenMetadataQuery TokenMetadataQuery::parse(const std::string& token_id, const Param& blockchain_id,
                                             const Param& entity_id, const Param& user_address) {
    nlohmann::json none = nlohmann::json::object();
    util::Fields fields(none);
    const auto id = parse_token_id(fields, token_id);
    fields.check(blockchain_id && !blockchain_id->empty(), "blockchainId is required");
    const auto address = user_address ? parse_address_field(fields, "userAddress", *user_address) : std::nullopt;
    fields.done();
    return {token_id, id ? token_kind(*id) : std::nullopt, *blockchain_id, entity_id, address};
}

MintStatus AbciService::mint_status(const std::string& mint_id, const std::string& actor, bool any_actor) {
    auto mint = store_.mints().find(mint_id);
    if (!mint || (!any_actor && mint->actor != actor)) throw Error(ErrorKind::not_found, "no mint " + mint_id);
    return {std::move(*mint), store_.journal().of_mint(mint_id)};
}

MintStatus AbciService::mint_status_by_key(const std::string& key, const std::string& actor) {
    validate_idempotency_key(key);
    for (const auto kind : store::all_mint_kinds())
        if (auto mint = store_.mints().find_by_key({actor, kind, key})) {
            auto transactions = store_.journal().of_mint(mint->id);
            return {std::move(*mint), std::move(transactions)};
        }
    throw Error(ErrorKind::not_found, "no mint was requested with this Idempotency-Key");
}

TokenBalance AbciService::token_balance(const TokenBalanceQuery& query) {
    Network& network = registry_.find(query.blockchain_id);
    (void)balances_.sync(network, query.user);
    return {query.user, query.kind, store_.tokens().find_balance(network.config().id, query.user.lower(), query.kind.id),
            ChainRef::of(network.config()), network.contract().address()};
}

bool AbciService::holds(const eth::Address& wallet, const TokenKind& kind, const std::string& blockchain_id) {
    Network& network = registry_.find(blockchain_id);
    (void)balances_.sync(network, wallet);
    const auto row = store_.tokens().find_balance(network.config().id, wallet.lower(), kind.id);
    return row && row->balance != "0";
}

UserBalance AbciService::user_balance(const UserBalanceQuery& query) {
    Network& network = registry_.find(query.blockchain_id);
    const auto& config = network.config();
    UserBalance result{query.user, {}, ChainRef::of(config), network.contract().address(), std::nullopt};
    const auto synced_now = balances_.sync(network, query.user);
    std::optional<store::TimePoint> oldest_sync;
    for (auto& row : store_.tokens().balances_of(config.id, query.user.lower())) {
        const auto kind = token_kind(row.token_id);
        if (!kind) continue;
        if (row.last_synced && (!oldest_sync || *row.last_synced < *oldest_sync)) oldest_sync = row.last_synced;
        result.holdings.push_back({std::move(row), *kind});
    }
    result.last_synced = synced_now ? synced_now : oldest_sync;
    return result;
}

std::vector<NetworkListing> AbciService::blockchains() {
    std::vector<Network*> listed;
    for (const auto& network : registry_.networks())
        if (network->config().status != NetworkStatus::disabled) listed.push_back(network.get());
    // One deadline for all: the fee lookups run at once.
    std::vector<std::future<std::optional<GasPrices>>> prices;
    for (auto* network : listed) prices.push_back(std::async(std::launch::async, [network] { return gas_prices(*network); }));
    std::vector<NetworkListing> networks;
    for (std::size_t i = 0; i < listed.size(); ++i)
        networks.push_back({listed[i]->config(), listed[i]->masked_rpc_url(), prices[i].get()});
    return networks;
}

BlockchainStatus AbciService::blockchain_status(const std::string& id) {
    Network& network = registry_.find(id);
    BlockchainStatus status{.config = network.config()};
    const auto& c = status.config;
    try {
        // A node of another chain answers, but nothing it says is about this network (health agrees).
        if (network.probe().node_chain_id() != c.chain_id) {
            status.rpc = BlockchainStatus::Rpc::wrong_chain;
        } else {
            // Averaged over the last (up to) 10 blocks: one block's gap is noise.
            const auto head = network.probe().block_stamp();
            const auto span = std::min<std::uint64_t>(head.number, 10);
            status.latest_block = head.number;
            if (span > 0) {
                const auto old = network.probe().block_stamp(head.number - span);
                status.block_time = static_cast<double>(head.timestamp - old.timestamp) / static_cast<double>(span);
            }
            status.gas_price = network.probe().gas_price();
            status.rpc = BlockchainStatus::Rpc::healthy;
        }
    } catch (const Error& e) {
        // Shown as unreachable in the answer; the reason goes to the operator.
        util::log(util::LogLevel::warning, "a blockchain's status could not be read from its node",
                  {{"blockchainId", c.id}, {"error", e.what()}});
    }
    if (status.rpc != BlockchainStatus::Rpc::healthy) return status;
    status.recommended = gas_prices(network);
    if (!network.has_contract()) {
        status.deployed = false;
        return status;
    }
    try {
        auto& token = network.probe_contract();
        status.deployed = token.is_deployed();
        if (*status.deployed) {
            status.contract_version = token.version();
            status.last_upgrade = std::chrono::system_clock::time_point(std::chrono::seconds(token.deployed_at()));
        }
    } catch (const Error& e) {
        util::log(util::LogLevel::warning, "a blockchain's contract could not be read; its status is degraded",
                  {{"blockchainId", c.id}, {"error", e.what()}});
    }
    return status;
}

TokenMetadata AbciService::token_metadata(const TokenMetadataQuery& query) {
    if (!query.kind) throw Error(ErrorKind::not_found, "no token with id " + query.token_id);
    const TokenKind& kind = *query.kind;
    Network& network = registry_.find(query.blockchain_id);
    const auto& c = network.config();

    std::string record;
    store::TimePoint updated = std::chrono::system_clock::now();
    if (kind.family == TokenFamily::entity) {
        const auto entity = store_.entities().find(c.id, kind.id, query.entity_id);
        if (!entity)
            throw Error(ErrorKind::not_found, query.entity_id ? "no " + std::string(kind.category) + " entity " +
                                                                    *query.entity_id + " was minted on " + c.id
                                                              : "no " + std::string(kind.category) + " token was minted on " + c.id);
        record = entity->metadata;
        updated = entity->created_at;
    } else {
        // A role's record: the role itself, for one holder when named.
        const auto held = query.user ? store_.tokens().find_balance(c.id, query.user->lower(), kind.id) : std::nullopt;
        const auto issued = held && held->minted_at ? *held->minted_at
                                                    : std::chrono::system_clock::time_point(std::chrono::seconds(
                                                          network.probe_contract().deployed_at()));
        const auto metadata = role_metadata(kind, {{"role", std::string(kind.category), std::nullopt}});
        const eth::Address issuer = network.signer_address();
        record = metadata_record(kind, metadata, issuer, query.user.value_or(eth::Address{}), util::format_iso8601_utc(issued))
                     .dump();
        if (held) updated = held->last_updated;
    }
    // The record is served from content storage too, so ipfsHash resolves at /ipfs/{cid}.
    const auto cid = content_.put(eth::as_bytes(record));
    return {nlohmann::json::parse(record), cid.to_string(), ChainRef::of(c), updated};
}
}  // namespace abci::service
