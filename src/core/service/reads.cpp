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

using nlohmann::json;

namespace {

json optional_time(const std::optional<store::TimePoint>& t) {
    return t ? json(util::format_iso8601_utc(*t)) : json(nullptr);
}

std::optional<std::uint64_t> parse_token_id(util::Fields& fields, const std::string& text) {
    if (text.empty()) return std::nullopt;
    const bool digits = text.size() <= 19 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    fields.check(digits, "tokenId must be a non-negative integer");
    if (!digits) return std::nullopt;
    return std::stoull(text);
}

struct Lookup {
    Network* network = nullptr;
    eth::Address address;
};

// The common query parameters of the balance routes, validated together.
Lookup balance_query(Registry& registry, util::Fields& fields, const std::optional<std::string>& user_address,
                     const std::optional<std::string>& blockchain_id) {
    fields.check(user_address && !user_address->empty(), "userAddress is required");
    fields.check(blockchain_id && !blockchain_id->empty(), "blockchainId is required");
    const auto address = parse_address_field(fields, "userAddress", user_address.value_or(""));
    fields.done();
    return {&registry.find(*blockchain_id), *address};
}

json balance_entry(const store::TokenBalance& row, const TokenKind& kind) {
    json entry = {{"tokenId", row.token_id},
                  {"tokenType", to_string(kind.family)},
                  {"category", kind.category},
                  {"balance", row.balance},
                  {"name", kind.name},
                  {"isSoulbound", is_soulbound(kind.family)}};
    if (kind.family == TokenFamily::role)
        entry["mintedAt"] = optional_time(row.minted_at);
    else
        entry["lastMinted"] = optional_time(row.last_minted);
    return entry;
}

json gas_prices(Network& network) {
    try {
        const auto tiers = network.probe().fee_tiers();
        return {{"low", tiers.expected_price(chain::FeeTier::low).to_dec()},
                {"standard", tiers.expected_price(chain::FeeTier::standard).to_dec()},
                {"fast", tiers.expected_price(chain::FeeTier::fast).to_dec()}};
    } catch (const Error& e) {
        util::log(util::LogLevel::warning, "a blockchain's gas prices could not be read from its node; shown as null",
                  {{"blockchainId", network.config().id}, {"error", e.what()}});
        return nullptr;
    }
}

}  // namespace

json AbciService::mint_status(const std::string& mint_id, const std::string& actor, bool any_actor) {
    const auto mint = store_.mints().find(mint_id);
    if (!mint || (!any_actor && mint->actor != actor)) throw Error(ErrorKind::not_found, "no mint " + mint_id);
    return mint_status_body(*mint);
}

json AbciService::mint_status_by_key(const std::string& key, const std::string& actor) {
    validate_idempotency_key(key);
    for (const char* route : {kMintRoleRoute, kMintEntityRoute})
        if (const auto mint = store_.mints().find_by_key({actor, route, key})) return mint_status_body(*mint);
    throw Error(ErrorKind::not_found, "no mint was requested with this Idempotency-Key");
}

json AbciService::mint_status_body(const store::MintRequest& mint) {
    json transactions = json::array();
    for (const auto& tx : store_.journal().of_mint(mint.id))
        transactions.push_back({{"hash", tx.hash},
                                {"nonce", tx.nonce},
                                {"status", chain::to_string(tx.status)},
                                {"blockNumber", tx.block_number == 0 ? json(nullptr) : json(tx.block_number)}});
    const json stored = mint.answer.empty() ? json(nullptr) : json::parse(mint.answer, nullptr, false);
    json data = {{"mintId", mint.id},
                 {"state", mint.state == store::MintState::done ? "mined" : store::to_string(mint.state)},
                 {"route", mint.route},
                 {"blockchainId", mint.blockchain_id},
                 {"idempotencyKey", mint.idempotency_key.empty() ? json(nullptr) : json(mint.idempotency_key)},
                 {"transactions", transactions},
                 {"result", mint.state == store::MintState::done ? stored : json(nullptr)},
                 {"error", mint.state == store::MintState::failed ? stored : json(nullptr)},
                 {"createdAt", util::format_iso8601_utc(mint.created_at)},
                 {"updatedAt", util::format_iso8601_utc(mint.updated_at)}};
    return envelope(std::move(data), {{"checkedAt", now_iso()}});
}

json AbciService::token_balance(const std::optional<std::string>& user_address,
                                const std::optional<std::string>& token_id,
                                const std::optional<std::string>& blockchain_id) {
    json none = json::object();
    util::Fields fields(none);
    fields.check(token_id && !token_id->empty(), "tokenId is required");
    const auto id = parse_token_id(fields, token_id.value_or(""));
    const auto kind = id ? token_kind(*id) : std::nullopt;
    fields.check(!id || kind.has_value(), "tokenId must be a role (10000, 10100, 10200, 10300) or entity (1000, 1100, 1200, 1300) token id");
    const auto [network, address] = balance_query(registry_, fields, user_address, blockchain_id);
    const auto& config = network->config();
    (void)balances_.sync(*network, address);
    const auto row = store_.tokens().find_balance(config.id, address.lower(), kind->id);
    json data = {{"userAddress", address.checksummed()},
                 {"tokenId", kind->id},
                 {"balance", row ? row->balance : "0"},
                 {"tokenType", to_string(kind->family)},
                 {"tokenName", kind->name},
                 {"isSoulbound", is_soulbound(kind->family)},
                 {"mintedAt", row ? optional_time(row->minted_at) : json(nullptr)},
                 {"lastUpdated", row ? json(util::format_iso8601_utc(row->last_updated)) : json(nullptr)}};
    json metadata = {{"blockchain", blockchain_ref(config)}, {"contractAddress", network->contract().address().checksummed()}};
    return envelope(std::move(data), std::move(metadata));
}

bool AbciService::holds(const eth::Address& wallet, const TokenKind& kind, const std::string& blockchain_id) {
    Network& network = registry_.find(blockchain_id);
    (void)balances_.sync(network, wallet);
    const auto row = store_.tokens().find_balance(network.config().id, wallet.lower(), kind.id);
    return row && row->balance != "0";
}

json AbciService::user_balance(const std::optional<std::string>& user_address,
                               const std::optional<std::string>& blockchain_id) {
    json none = json::object();
    util::Fields fields(none);
    const auto [network, address] = balance_query(registry_, fields, user_address, blockchain_id);
    const auto& config = network->config();
    const std::string contract = network->contract().address().checksummed();
    const auto synced_now = balances_.sync(*network, address);
    json balances = json::array();
    std::optional<store::TimePoint> oldest_sync;
    for (const auto& row : store_.tokens().balances_of(config.id, address.lower())) {
        const auto kind = token_kind(row.token_id);
        if (!kind) continue;
        balances.push_back(balance_entry(row, *kind));
        if (row.last_synced && (!oldest_sync || *row.last_synced < *oldest_sync)) oldest_sync = row.last_synced;
    }
    // Read from the chain just now, or (the chain did not answer) as old as the stalest row.
    const auto synced = synced_now ? synced_now : oldest_sync;
    json data = {{"userAddress", address.checksummed()}, {"totalTokens", balances.size()}, {"balances", balances}};
    json metadata = {{"blockchain", blockchain_ref(config)}, {"contractAddress", contract}, {"lastSynced", optional_time(synced)}};
    return envelope(std::move(data), std::move(metadata));
}

json AbciService::blockchains() {
    std::vector<Network*> listed;
    for (const auto& network : registry_.networks())
        if (network->config().status != NetworkStatus::disabled) listed.push_back(network.get());
    // One deadline for all: the fee lookups run at once.
    std::vector<std::future<json>> prices;
    for (auto* network : listed) prices.push_back(std::async(std::launch::async, [network] { return gas_prices(*network); }));
    json data = json::array();
    int active = 0, test = 0;
    for (std::size_t i = 0; i < listed.size(); ++i) {
        const auto& c = listed[i]->config();
        active += c.status == NetworkStatus::active;
        test += c.status == NetworkStatus::testnet;
        data.push_back({{"id", c.id},
                        {"name", c.name},
                        {"chainId", c.chain_id},
                        {"network", c.network},
                        {"rpcUrl", listed[i]->masked_rpc_url()},
                        {"contractAddress", c.contract_address.empty() ? json(nullptr)
                                                                        : json(eth::Address::parse(c.contract_address).checksummed())},
                        {"nativeCurrency", {{"name", c.native_currency.name},
                                            {"symbol", c.native_currency.symbol},
                                            {"decimals", c.native_currency.decimals}}},
                        {"blockExplorer", c.block_explorer},
                        {"status", to_string(c.status)},
                        {"gasPrice", prices[i].get()}});
    }
    json metadata = {{"totalNetworks", listed.size()}, {"activeNetworks", active}, {"testNetworks", test}};
    return envelope(std::move(data), std::move(metadata));
}

json AbciService::blockchain_status(const std::string& id) {
    Network& network = registry_.find(id);
    const auto& c = network.config();
    json latest_block = nullptr, block_time = nullptr, current = nullptr;
    bool rpc_ok = false;
    // A node of another chain answers, but nothing it says is about this network (health agrees).
    bool wrong_chain = false;
    try {
        wrong_chain = network.probe().node_chain_id() != c.chain_id;
        if (!wrong_chain) {
            // Averaged over the last (up to) 10 blocks: one block's gap is noise.
            const auto head = network.probe().block_stamp();
            const auto span = std::min<std::uint64_t>(head.number, 10);
            latest_block = head.number;
            if (span > 0) {
                const auto old = network.probe().block_stamp(head.number - span);
                block_time = static_cast<double>(head.timestamp - old.timestamp) / static_cast<double>(span);
            }
            current = network.probe().gas_price().to_dec();
            rpc_ok = true;
        }
    } catch (const Error& e) {
        // Shown as unreachable in the answer; the reason goes to the operator.
        util::log(util::LogLevel::warning, "a blockchain's status could not be read from its node",
                  {{"blockchainId", c.id}, {"error", e.what()}});
    }
    // Without an answer from the node whether the contract is deployed is unknown: null, not false.
    json contract = {{"address", c.contract_address.empty() ? json(nullptr) : json(eth::Address::parse(c.contract_address).checksummed())},
                     {"deployed", rpc_ok && !network.has_contract() ? json(false) : json(nullptr)},
                     {"version", nullptr},
                     {"lastUpgrade", nullptr}};
    bool contract_ok = false;
    if (rpc_ok && network.has_contract()) {
        try {
            auto& token = network.probe_contract();
            contract["deployed"] = token.is_deployed();
            if (contract["deployed"].get<bool>()) {
                contract["version"] = token.version();
                contract["lastUpgrade"] = util::format_iso8601_utc(std::chrono::system_clock::time_point(
                    std::chrono::seconds(token.deployed_at())));
                contract_ok = true;
            }
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "a blockchain's contract could not be read; its status is degraded",
                      {{"blockchainId", c.id}, {"error", e.what()}});
        }
    }
    json data = {{"id", c.id},
                 {"name", c.name},
                 {"status", rpc_ok && contract_ok ? "healthy" : "degraded"},
                 {"latestBlock", latest_block},
                 {"blockTime", block_time},
                 {"gasPrice", {{"current", current}, {"recommended", rpc_ok ? gas_prices(network) : json(nullptr)}}},
                 {"contractStatus", contract},
                 {"health", {{"rpcConnectivity", rpc_ok ? "healthy" : wrong_chain ? "wrong-chain" : "unreachable"},
                             {"contractAccessible", contract_ok ? "healthy" : rpc_ok ? "unavailable" : "unknown"},
                             {"lastChecked", now_iso()}}}};
    return envelope(std::move(data), {{"blockchain", blockchain_ref(c)}});
}

json AbciService::token_metadata(const std::string& token_id, const std::optional<std::string>& blockchain_id,
                                 const std::optional<std::string>& entity_id,
                                 const std::optional<std::string>& user_address) {
    json none = json::object();
    util::Fields fields(none);
    const auto id = parse_token_id(fields, token_id);
    const auto kind = id ? token_kind(*id) : std::nullopt;
    fields.check(blockchain_id && !blockchain_id->empty(), "blockchainId is required");
    const auto address = user_address ? parse_address_field(fields, "userAddress", *user_address) : std::nullopt;
    fields.done();
    if (!kind) throw Error(ErrorKind::not_found, "no token with id " + token_id);
    Network& network = registry_.find(*blockchain_id);
    const auto& c = network.config();

    std::string record;
    store::TimePoint updated = std::chrono::system_clock::now();
    if (kind->family == TokenFamily::entity) {
        const auto entity = store_.entities().find(c.id, kind->id, entity_id);
        if (!entity)
            throw Error(ErrorKind::not_found, entity_id ? "no " + std::string(kind->category) + " entity " + *entity_id +
                                                              " was minted on " + c.id
                                                        : "no " + std::string(kind->category) + " token was minted on " + c.id);
        record = entity->metadata;
        updated = entity->created_at;
    } else {
        // A role's record: the role itself, for one holder when named.
        const auto held = address ? store_.tokens().find_balance(c.id, address->lower(), kind->id) : std::nullopt;
        const auto issued = held && held->minted_at ? *held->minted_at
                                                    : std::chrono::system_clock::time_point(std::chrono::seconds(
                                                          network.probe_contract().deployed_at()));
        json details = {{"description", "Soulbound " + std::string(kind->category) + " role of the ESG workflow platform"},
                        {"attributes", json::array({{{"trait_type", "role"}, {"value", kind->category}}})}};
        const eth::Address issuer = network.sender().address();
        record = metadata_record(*kind, details, issuer, address.value_or(eth::Address{}), util::format_iso8601_utc(issued)).dump();
        if (held) updated = held->last_updated;
    }
    // The record is served from content storage too, so ipfsHash resolves at /ipfs/{cid}.
    const auto cid = content_.put(eth::as_bytes(record));
    return envelope(json::parse(record), {{"ipfsHash", cid.to_string()},
                                          {"blockchain", blockchain_ref(c)},
                                          {"lastUpdated", util::format_iso8601_utc(updated)}});
}
}  // namespace abci::service
