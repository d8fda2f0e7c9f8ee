#include "serve/routes/abci_views.hpp"

#include "core/eth/bytes.hpp"
#include "core/service/mint_failure.hpp"
#include "serve/routes/views.hpp"

namespace abci::serve {

using nlohmann::json;

namespace {

std::string now_iso() { return iso_time(std::chrono::system_clock::now()); }

json optional_time(const std::optional<store::TimePoint>& t) { return t ? json(iso_time(*t)) : json(nullptr); }

json envelope(json data, json metadata) {
    return {{"success", true}, {"data", std::move(data)}, {"metadata", std::move(metadata)}};
}

/// {name, chainId} of a network, as the spec's metadata names it.
json blockchain_ref(const service::ChainRef& chain) { return {{"name", chain.name}, {"chainId", chain.chain_id}}; }

json gas_prices_view(const std::optional<service::GasPrices>& prices) {
    if (!prices) return nullptr;
    return {{"low", prices->low.to_dec()}, {"standard", prices->standard.to_dec()}, {"fast", prices->fast.to_dec()}};
}

/// The route that takes mints of `kind`, as a mint's status names it. A
/// workflow's mint names the route of what it makes, as the status of one
/// did when the store kept a route for it (docs/api.md).
const char* mint_route(store::MintKind kind) {
    switch (kind) {
    case store::MintKind::role:
    case store::MintKind::workflow_role: return "POST /abci/contracts/mint-role-token";
    case store::MintKind::entity:
    case store::MintKind::certificate: return "POST /abci/contracts/mint-entity-token";
    }
    return "";  // unreachable: every enumerator is a case above (-Wswitch)
}

json mint_failure_view(const service::MintFailure& failure) {
    return {{"kind", to_string(failure.kind)}, {"message", failure.message}};
}

json contract_address(const std::string& configured) {
    return configured.empty() ? json(nullptr) : json(eth::Address::parse(configured).checksummed());
}

json holding_view(const service::UserBalance::Holding& holding) {
    const auto& [row, kind] = holding;
    json entry = {{"tokenId", row.token_id},
                  {"tokenType", to_string(kind.family)},
                  {"category", kind.category},
                  {"balance", row.balance},
                  {"name", kind.name},
                  {"isSoulbound", is_soulbound(kind.family)}};
    if (kind.family == service::TokenFamily::role)
        entry["mintedAt"] = optional_time(row.minted_at);
    else
        entry["lastMinted"] = optional_time(row.last_minted);
    return entry;
}

const char* rpc_connectivity(service::BlockchainStatus::Rpc rpc) {
    switch (rpc) {
    case service::BlockchainStatus::Rpc::healthy:
        return "healthy";
    case service::BlockchainStatus::Rpc::wrong_chain:
        return "wrong-chain";
    case service::BlockchainStatus::Rpc::unreachable:
        break;
    }
    return "unreachable";
}

json check_view(const service::HealthCheck& check) {
    json out = {{"healthy", check.healthy}};
    if (check.message) out["message"] = *check.message;
    if (check.chain_id) out["chainId"] = *check.chain_id;
    if (check.latest_block) out["latestBlock"] = *check.latest_block;
    if (check.latency_ms) out["latencyMs"] = *check.latency_ms;
    if (check.address) out["address"] = *check.address;
    if (check.version) out["version"] = *check.version;
    if (check.balance) out["balance"] = check.balance->to_dec();
    if (check.minimum_balance) out["minimumBalance"] = check.minimum_balance->to_dec();
    if (!check.stuck.empty()) {
        json stuck = json::array();
        for (const auto& tx : check.stuck)
            stuck.push_back({{"nonce", tx.nonce}, {"hash", eth::to_hex(tx.hash)}, {"ageSeconds", tx.age.count()}});
        out["stuck"] = std::move(stuck);
    }
    if (check.owner) out["owner"] = *check.owner;
    if (check.epoch) out["epoch"] = *check.epoch;
    if (check.owned_here) out["ownedHere"] = *check.owned_here;
    if (check.pending) out["pendingTransactions"] = *check.pending;
    if (check.oldest_pending_seconds) out["oldestPendingSeconds"] = *check.oldest_pending_seconds;
    if (check.disabled_subscriptions) out["disabledSubscriptions"] = *check.disabled_subscriptions;
    if (const auto& f = check.in_flight)
        out["pendingByState"] = {{"queued", f->queued}, {"signed", f->signed_unsent}, {"sent", f->sent}, {"stuck", f->stuck}};
    if (check.journal_nonce) {
        json nonces{{"journal", *check.journal_nonce}};
        if (check.chain_latest_nonce) nonces["chainLatest"] = *check.chain_latest_nonce;
        if (check.chain_pending_nonce) nonces["chainPending"] = *check.chain_pending_nonce;
        out["nextNonce"] = std::move(nonces);
    }
    return out;
}

}  // namespace

json mint_result_view(const service::MintResult& r) {
    if (r.family == service::TokenFamily::role)
        return envelope({{"transactionHash", r.transaction_hash},
                         {"blockNumber", r.block_number},
                         {"gasUsed", std::to_string(r.gas_used)},
                         {"gasPrice", r.gas_price.to_dec()},
                         {"tokenId", r.token_id},
                         {"tokenType", "role"},
                         {"confirmations", r.confirmations},
                         {"timestamp", iso_time(r.timestamp)}},
                        {{"blockchain", {{"name", r.chain.name}, {"chainId", r.chain.chain_id}, {"network", r.chain.network}}},
                         {"contract", {{"address", r.contract_address}, {"version", r.contract_version}}}});
    return envelope({{"transactionHash", r.transaction_hash},
                     {"blockNumber", r.block_number},
                     {"gasUsed", std::to_string(r.gas_used)},
                     {"tokenId", r.token_id},
                     {"amount", r.amount},
                     {"metadataUri", "ipfs://" + r.cid},
                     {"confirmations", r.confirmations}},
                    {{"entityType", r.entity_type},
                     {"entityId", r.entity_id},
                     {"ipfsHash", r.cid},
                     {"blockchain", blockchain_ref(r.chain)}});
}

json token_balance_view(const service::TokenBalance& balance) {
    const auto& row = balance.row;
    const auto& kind = balance.kind;
    json data = {{"userAddress", balance.user.checksummed()},
                 {"tokenId", kind.id},
                 {"balance", row ? row->balance : "0"},
                 {"tokenType", to_string(kind.family)},
                 {"tokenName", kind.name},
                 {"isSoulbound", is_soulbound(kind.family)},
                 {"mintedAt", row ? optional_time(row->minted_at) : json(nullptr)},
                 {"lastUpdated", row ? json(iso_time(row->last_updated)) : json(nullptr)}};
    return envelope(std::move(data),
                    {{"blockchain", blockchain_ref(balance.chain)}, {"contractAddress", balance.contract.checksummed()}});
}

json user_balance_view(const service::UserBalance& balance) {
    json balances = json::array();
    for (const auto& holding : balance.holdings) balances.push_back(holding_view(holding));
    json data = {{"userAddress", balance.user.checksummed()}, {"totalTokens", balances.size()}, {"balances", balances}};
    return envelope(std::move(data), {{"blockchain", blockchain_ref(balance.chain)},
                                      {"contractAddress", balance.contract.checksummed()},
                                      {"lastSynced", optional_time(balance.last_synced)}});
}

json blockchains_view(const std::vector<service::NetworkListing>& networks) {
    json data = json::array();
    int active = 0, test = 0;
    for (const auto& [c, rpc_url, prices] : networks) {
        active += c.status == service::NetworkStatus::active;
        test += c.status == service::NetworkStatus::testnet;
        data.push_back({{"id", c.id},
                        {"name", c.name},
                        {"chainId", c.chain_id},
                        {"network", c.network},
                        {"rpcUrl", rpc_url},
                        {"contractAddress", contract_address(c.contract_address)},
                        {"nativeCurrency", {{"name", c.native_currency.name},
                                            {"symbol", c.native_currency.symbol},
                                            {"decimals", c.native_currency.decimals}}},
                        {"blockExplorer", c.block_explorer},
                        {"status", to_string(c.status)},
                        {"gasPrice", gas_prices_view(prices)}});
    }
    return envelope(std::move(data),
                    {{"totalNetworks", networks.size()}, {"activeNetworks", active}, {"testNetworks", test}});
}

json blockchain_status_view(const service::BlockchainStatus& status) {
    const auto& c = status.config;
    const bool rpc_ok = status.rpc == service::BlockchainStatus::Rpc::healthy;
    json contract = {{"address", contract_address(c.contract_address)},
                     {"deployed", status.deployed ? json(*status.deployed) : json(nullptr)},
                     {"version", status.contract_version ? json(*status.contract_version) : json(nullptr)},
                     {"lastUpgrade", optional_time(status.last_upgrade)}};
    json data = {
        {"id", c.id},
        {"name", c.name},
        {"status", status.healthy() ? "healthy" : "degraded"},
        {"latestBlock", status.latest_block ? json(*status.latest_block) : json(nullptr)},
        {"blockTime", status.block_time ? json(*status.block_time) : json(nullptr)},
        {"gasPrice", {{"current", status.gas_price ? json(status.gas_price->to_dec()) : json(nullptr)},
                      {"recommended", gas_prices_view(status.recommended)}}},
        {"contractStatus", contract},
        {"health", {{"rpcConnectivity", rpc_connectivity(status.rpc)},
                    {"contractAccessible", status.contract_ok() ? "healthy" : rpc_ok ? "unavailable" : "unknown"},
                    {"lastChecked", now_iso()}}}};
    return envelope(std::move(data), {{"blockchain", blockchain_ref(service::ChainRef::of(c))}});
}

json token_metadata_view(const service::TokenMetadata& metadata) {
    return envelope(metadata.record, {{"ipfsHash", metadata.cid},
                                      {"blockchain", blockchain_ref(metadata.chain)},
                                      {"lastUpdated", iso_time(metadata.last_updated)}});
}

json mint_status_view(const service::MintStatus& status) {
    const auto& mint = status.mint;
    json transactions = json::array();
    for (const auto& tx : status.transactions)
        transactions.push_back({{"hash", tx.hash},
                                {"nonce", tx.nonce},
                                {"status", chain::to_string(tx.status)},
                                {"blockNumber", tx.block_number == 0 ? json(nullptr) : json(tx.block_number)}});
    // A done mint's answer, a failed one's error ({kind, message}).
    const bool done = mint.state == store::MintState::done;
    const bool failed = mint.state == store::MintState::failed;
    json data = {{"mintId", mint.id},
                 {"state", done ? "mined" : store::to_string(mint.state)},
                 {"route", mint_route(mint.kind)},
                 {"blockchainId", mint.blockchain_id},
                 {"idempotencyKey", mint.idempotency_key.empty() ? json(nullptr) : json(mint.idempotency_key)},
                 {"transactions", transactions},
                 {"result", done ? mint_result_view(service::MintResult::parse(mint.answer)) : json(nullptr)},
                 {"error", failed ? mint_failure_view(service::MintFailure::parse(mint.answer)) : json(nullptr)},
                 {"createdAt", iso_time(mint.created_at)},
                 {"updatedAt", iso_time(mint.updated_at)}};
    return envelope(std::move(data), {{"checkedAt", now_iso()}});
}

json mint_accepted_view(const service::MintResult& result, const std::optional<std::string>& idempotency_key) {
    return {{"mintId", result.mint_id},
            {"state", "pending"},
            {"idempotencyKey", idempotency_key ? json(*idempotency_key) : json(nullptr)}};
}

json health_view(const service::HealthReport& report, const char* healthy_word, const char* unhealthy_word) {
    json checks = json::object();
    for (const auto& check : report.checks) checks[check.name] = check_view(check);
    return {{"status", report.healthy() ? healthy_word : unhealthy_word},
            {"checks", std::move(checks)},
            {"timestamp", iso_time(report.checked_at)}};
}

int health_status(const service::HealthReport& report) { return report.healthy() ? 200 : 503; }

}  // namespace abci::serve
