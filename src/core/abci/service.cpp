#include "core/abci/service.hpp"

#include <algorithm>
#include <future>

#include "core/abci/mint_record.hpp"
#include "core/abci/requests.hpp"
#include "core/abci/tokens.hpp"
#include "core/content/content_store.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/chain/send_errors.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/quantity.hpp"
#include "core/store/store.hpp"
#include "core/util/fields.hpp"
#include "core/util/log.hpp"
#include "core/util/next_steps.hpp"
#include "core/util/time.hpp"

namespace abci::service {

using nlohmann::json;

namespace {

constexpr const char* kMintRoleRoute = "POST /abci/contracts/mint-role-token";
constexpr const char* kMintEntityRoute = "POST /abci/contracts/mint-entity-token";

std::string now_iso() { return util::format_iso8601_utc(std::chrono::system_clock::now()); }

json optional_time(const std::optional<store::TimePoint>& t) {
    return t ? json(util::format_iso8601_utc(*t)) : json(nullptr);
}

json envelope(json data, json metadata) {
    return {{"success", true}, {"data", std::move(data)}, {"metadata", std::move(metadata)}};
}

json blockchain_ref(const NetworkConfig& config) {
    return {{"name", config.name}, {"chainId", config.chain_id}};
}

std::optional<std::uint64_t> parse_token_id(util::Fields& fields, const std::string& text) {
    if (text.empty()) return std::nullopt;
    const bool digits = text.size() <= 19 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    fields.check(digits, "tokenId must be a non-negative integer");
    if (!digits) return std::nullopt;
    return std::stoull(text);
}

// The ERC-1155 metadata record of spec 2.4 for one mint.
json metadata_record(const TokenKind& kind, const json& details, const eth::Address& issuer,
                     const eth::Address& beneficiary, const std::string& issued_at) {
    return {
        {"tokenId", kind.id},
        {"tokenType", to_string(kind.family)},
        {"category", kind.category},
        {"name", details.value("name", std::string(kind.name))},
        {"description", details.value("description", std::string())},
        {"image", details.value("image", std::string())},
        {"external_url", details.value("external_url", std::string())},
        {"attributes", details.value("attributes", json::array())},
        {"properties",
         {{"issuer", issuer.checksummed()},
          {"beneficiary", beneficiary.checksummed()},
          {"issuedAt", issued_at},
          {"expiresAt", nullptr},
          {"transferable", !is_soulbound(kind.family)},
          {"revocable", false}}},
    };
}

std::string lower_address(const eth::Address& a) { return a.lower(); }

}  // namespace

void validate_idempotency_key(const std::string& key) {
    const bool ok = !key.empty() && key.size() <= 255 &&
                    std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (!ok) throw Error(ErrorKind::invalid_input, "invalid request", {"Idempotency-Key must be 1 to 255 printable ASCII characters"});
}

struct AbciService::Mint {
    std::string route;
    Network* network = nullptr;
    eth::Address to;
    TokenKind kind;
    std::uint64_t amount = 1;
    std::string entity_type;
    std::string entity_id;
    json details;  // metadata given by the caller (entity) or built (role attributes)

    // The 409 of a role mint for a wallet that holds that role.
    [[nodiscard]] Error role_held() const {
        return Error(ErrorKind::conflict,
                     to.checksummed() + " already holds the " + std::string(kind.category) + " role token");
    }
};

AbciService::AbciService(store::Store& store, Registry& registry, content::ContentStore& content)
    : store_(store), registry_(registry), content_(content), balances_(store) {
    // What becomes of a mint nobody waits for any more (its request timed
    // out, or it was adopted from the journal at start) is recorded when the
    // chain settles it, not at the next start.
    for (const auto& n : registry_.networks())
        if (n->has_sender())
            n->sender().on_unwaited([this, network = n.get()](const chain::Unwaited& fate) { settle_unwaited(*network, fate); });
}

Answer AbciService::mint_role(const json& body, const MintOptions& options) {
    const auto request = parse_mint_role(body);
    Mint m;
    m.route = kMintRoleRoute;
    m.to = request.user_address;
    m.kind = request.kind;
    m.details = {{"attributes", request.attributes},
                 {"description", "Soulbound " + std::string(request.kind.category) + " role of the ESG workflow platform"}};
    m.network = &registry_.find(request.blockchain_id);
    return mint(std::move(m), options, body);
}

Answer AbciService::mint_entity(const json& body, const MintOptions& options) {
    const auto request = parse_mint_entity(body);
    Mint m;
    m.route = kMintEntityRoute;
    m.to = request.user_address;
    m.kind = request.kind;
    m.amount = request.amount;
    m.entity_type = std::string(request.kind.category);
    m.entity_id = request.entity_id;
    m.details = request.details;
    m.network = &registry_.find(request.blockchain_id);
    return mint(std::move(m), options, body);
}

Answer AbciService::mint(Mint m, const MintOptions& options, const json& body) {
    if (options.idempotency_key) validate_idempotency_key(*options.idempotency_key);
    store::MintRequest request;
    request.id = crypto::random_uuid();
    request.actor = options.actor;
    request.route = m.route;
    request.blockchain_id = m.network->config().id;
    request.idempotency_key = options.idempotency_key.value_or("");
    request.fingerprint = crypto::sha256_hex(body.dump());
    if (auto existing = store_.begin_mint(request)) {
        if (existing->fingerprint != request.fingerprint)
            throw Error(ErrorKind::unprocessable, "this Idempotency-Key was used for a different request");
        return replay(*existing, "a request with this Idempotency-Key is still in progress");
    }
    return submit_and_wait(*m.network, m, options, request.id);
}

Answer AbciService::replay(const store::MintRequest& mint, const std::string& pending_message) {
    if (mint.state == "done") return {200, json::parse(mint.answer)};
    if (mint.state == "failed") {
        const auto stored = json::parse(mint.answer, nullptr, false);
        const auto kind = stored.is_object() ? error_kind_named(stored.value("kind", "")) : std::nullopt;
        throw Error(kind.value_or(ErrorKind::internal), stored.is_object() ? stored.value("message", "") : mint.answer);
    }
    throw unsettled(ErrorKind::conflict, pending_message, mint.id);
}

MintUnsettled AbciService::unsettled(ErrorKind kind, const std::string& message, const std::string& mint_id) {
    std::vector<std::string> hashes;
    for (const auto& tx : store_.mint_transactions(mint_id)) hashes.push_back(tx.hash);
    return MintUnsettled(kind, message, mint_id, std::move(hashes));
}

namespace {

std::string failure_answer(const Error& error) {
    return json{{"kind", to_string(error.kind())}, {"message", error.what()}}.dump();
}

}  // namespace

void AbciService::release(const std::string& mint_id, const Error& why) {
    try {
        store_.release_mint(mint_id, failure_answer(why));
    } catch (const Error& e) {
        // The claim stays pending: the next start finds nothing was signed and releases it.
        util::log(util::LogLevel::error, "releasing a mint that sent nothing failed",
                  {{"mintId", mint_id}, {"error", e.what()}});
    }
}

namespace {

/// Whether `never_mined` came of a node that did not answer (rpc::Unreachable, nested by PendingMint::wait).
bool silent_node(const chain::NeverMined& never_mined) {
    try {
        std::rethrow_if_nested(never_mined);
    } catch (const rpc::Unreachable&) {
        return true;
    } catch (const std::exception&) {
        return false;  // another cause: the refusal's own message says it
    }
    return false;
}

/// A mint that was not sent because the node did not answer, in plain words;
/// the RPC client's own (batch label, attempts, retries) stay in details.
Error node_silent(Network& network, const Error& raw) {
    const auto& id = network.config().id;
    return Error(raw.kind(),
                 "the node of blockchain '" + id + "' (" + network.masked_rpc_url() +
                     ") did not answer, so nothing was sent: try again later; GET /abci/blockchains/" + id +
                     "/status shows its state",
                 {raw.what()});
}

}  // namespace

Answer AbciService::submit_and_wait(Network& network, const Mint& m, const MintOptions& options,
                                    const std::string& mint_id) {
    std::optional<chain::PendingMint> pending;
    MintRecord record;
    try {
        record = prepare(network, m, options, mint_id);
        pending.emplace(network.submit_mint(record));
    } catch (const rpc::Unreachable& e) {
        const auto plain = node_silent(network, e);
        release(mint_id, plain);
        throw plain;
    } catch (const Error& e) {
        release(mint_id, e);  // nothing was signed
        throw;
    }
    chain::Receipt receipt;
    try {
        receipt = pending->wait();
    } catch (const chain::NeverMined& e) {
        // The contract is the final guard (DESIGN.md §4): a refused role mint
        // for a wallet that holds the role is the same conflict as the pre-flight's.
        const bool held = m.kind.family == TokenFamily::role &&
                          (e.kind() == ErrorKind::conflict ||
                           (e.kind() == ErrorKind::chain_rejected && network.contract().balance_of(m.to, m.kind.id) != eth::U256(0)));
        const Error refusal = held                ? m.role_held()
                              : silent_node(e) ? node_silent(network, e)
                                               : Error(e.kind(), e.what(), e.details());
        release(mint_id, refusal);
        throw refusal;
    } catch (const Error& e) {
        // Signed, and perhaps mined later: settle_unwaited() records it then.
        throw unsettled(e.kind(), std::string(e.what()) + "; ask for its outcome with the mint id", mint_id);
    }
    if (!receipt.success) {
        // Estimated on the latest block, a role mint can still meet the same
        // role minted by a transaction that was pending then: same conflict.
        const Error failure = m.kind.family == TokenFamily::role &&
                                      network.contract().balance_of(m.to, m.kind.id) != eth::U256(0)
                                  ? m.role_held()
                                  : reverted(receipt);
        store_.finish_mint(mint_id, "failed", failure_answer(failure));
        throw failure;
    }
    return finish(network, mint_id, record, receipt);
}

MintRecord AbciService::prepare(Network& network, const Mint& m, const MintOptions& options, const std::string& mint_id) {
    const auto& config = network.config();
    // Pre-flight (spec 4.1 rule 5; statuses per DESIGN.md §4).
    if (config.status == NetworkStatus::disabled)
        throw Error(ErrorKind::conflict, "blockchain " + config.id + " is not active");
    const std::string to = lower_address(m.to);
    if (m.kind.family == TokenFamily::role) {
        if (!store_.find_user_by_wallet(to))
            throw Error(ErrorKind::unprocessable, "no user is linked to the address " + m.to.checksummed() +
                                                      ": a role token goes to a user's wallet; link it with " +
                                                      util::link_wallet_command("EMAIL", m.to.checksummed()));
        const auto held = store_.find_token_balance(config.id, to, m.kind.id);
        if (held && held->balance != "0") throw m.role_held();
    }
    const auto issuer = network.sender().address();
    network.require_deployed();
    // Read (and cached) now, before anything is signed: the answer of a mined
    // role mint names it, and finish() must not depend on the node then.
    if (m.kind.family == TokenFamily::role) (void)network.contract_version();

    const std::string metadata = metadata_record(m.kind, m.details, issuer, m.to, now_iso()).dump();
    const auto cid = content_.put(eth::as_bytes(metadata));
    MintRecord record;
    record.mint_id = mint_id;
    record.route = m.route;
    record.to = m.to;
    record.token_id = m.kind.id;
    record.amount = m.amount;
    record.cid = cid.to_string();
    record.entity_type = m.entity_type;
    record.entity_id = m.entity_id;
    record.actor = options.actor;
    record.key = options.idempotency_key.value_or("");
    record.role_request_id = options.role_request_id;
    return record;
}

Error AbciService::reverted(const chain::Receipt& receipt) {
    return Error(ErrorKind::chain_rejected, "mint transaction " + eth::to_hex(receipt.transaction_hash) +
                                                " reverted in block " + std::to_string(receipt.block_number));
}

void AbciService::settle_reverted(const std::string& mint_id, const chain::Receipt& receipt, bool batched) {
    if (!batched) return store_.finish_mint(mint_id, "failed", failure_answer(reverted(receipt)));
    store_.release_mint(mint_id, failure_answer(Error(ErrorKind::unavailable,
                                                      "the mint was not made: the batch carrying it reverted in block " +
                                                          std::to_string(receipt.block_number) + "; send it again")));
}

void AbciService::settle_unwaited(Network& network, const chain::Unwaited& fate) {
    const auto mints = parse_mint_purpose(fate.purpose).mints;
    for (const auto& record : mints) {
        const std::string& mint_id = record.mint_id;
        if (mint_id.empty()) continue;  // journaled by a release without mint records: the next start settles it
        switch (fate.status) {
        case chain::TxStatus::mined: (void)finish(network, mint_id, record, *fate.receipt); break;
        case chain::TxStatus::reverted: settle_reverted(mint_id, *fate.receipt, mints.size() > 1); break;
        default:
            // Nothing signed for it can be mined any more: a retry mints anew.
            store_.release_mint(mint_id, failure_answer(Error(ErrorKind::unavailable,
                                                              std::string("the mint was not made: its transaction was ") +
                                                                  chain::to_string(fate.status) + "; send it again")));
            break;
        }
    }
}

Answer AbciService::finish(Network& network, const std::string& mint_id, const MintRecord& record,
                           const chain::Receipt& receipt) {
    const auto& config = network.config();
    const std::string hash = eth::to_hex(receipt.transaction_hash);
    const auto kind = token_kind(record.token_id);
    if (!kind) throw Error(ErrorKind::internal, "journaled mint names an unknown token id");
    const auto& to = record.to;
    const auto amount = record.amount;
    const auto now = std::chrono::system_clock::now();
    // Before any record: a failure here leaves nothing half written.
    const std::string version = kind->family == TokenFamily::role ? network.contract_version() : std::string();

    store::MintRecord mint;
    mint.blockchain_id = config.id;
    mint.address = to.lower();
    mint.token_id = kind->id;
    mint.amount = std::to_string(amount);
    mint.token_type = std::string(to_string(kind->family));
    mint.category = std::string(kind->category);
    mint.tx_hash = hash;
    mint.block_number = receipt.block_number;
    mint.time = now;
    store_.record_mint(mint);

    const std::string& cid = record.cid;
    json data, metadata;
    if (kind->family == TokenFamily::role) {
        data = {{"transactionHash", hash},
                {"blockNumber", receipt.block_number},
                {"gasUsed", std::to_string(receipt.gas_used)},
                {"gasPrice", receipt.effective_gas_price.to_dec()},
                {"tokenId", kind->id},
                {"tokenType", "role"},
                {"confirmations", receipt.confirmations},
                {"timestamp", util::format_iso8601_utc(now)}};
        metadata = {{"blockchain", {{"name", config.name}, {"chainId", config.chain_id}, {"network", config.network}}},
                    {"contract", {{"address", network.contract().address().checksummed()},
                                  {"version", version}}}};
        if (!record.role_request_id.empty())
            store_.set_role_request_minted(record.role_request_id, hash, receipt.block_number);
    } else {
        store::Entity entity;
        entity.blockchain_id = config.id;
        entity.entity_type = record.entity_type;
        entity.entity_id = record.entity_id;
        entity.token_id = kind->id;
        entity.recipient = to.lower();
        entity.amount = amount;
        entity.cid = cid;
        if (auto bytes = content_.get(content::Cid::parse(cid))) entity.metadata.assign(bytes->begin(), bytes->end());
        entity.tx_hash = hash;
        entity.block_number = receipt.block_number;
        (void)store_.record_entity(entity);
        data = {{"transactionHash", hash},
                {"blockNumber", receipt.block_number},
                {"gasUsed", std::to_string(receipt.gas_used)},
                {"tokenId", kind->id},
                {"amount", amount},
                {"metadataUri", "ipfs://" + cid},
                {"confirmations", receipt.confirmations}};
        metadata = {{"entityType", entity.entity_type},
                    {"entityId", entity.entity_id},
                    {"ipfsHash", cid},
                    {"blockchain", blockchain_ref(config)}};
    }
    Answer answer{200, envelope(std::move(data), std::move(metadata))};
    store_.finish_mint(mint_id, "done", answer.body.dump());
    return answer;
}

json AbciService::mint_status(const std::string& mint_id, const std::string& actor, bool any_actor) {
    const auto mint = store_.find_mint(mint_id);
    if (!mint || (!any_actor && mint->actor != actor)) throw Error(ErrorKind::not_found, "no mint " + mint_id);
    return mint_status_body(*mint);
}

json AbciService::mint_status_by_key(const std::string& key, const std::string& actor) {
    validate_idempotency_key(key);
    for (const char* route : {kMintRoleRoute, kMintEntityRoute})
        if (const auto mint = store_.find_mint_by_key(actor, route, key)) return mint_status_body(*mint);
    throw Error(ErrorKind::not_found, "no mint was requested with this Idempotency-Key");
}

json AbciService::mint_status_body(const store::MintRequest& mint) {
    json transactions = json::array();
    for (const auto& tx : store_.mint_transactions(mint.id))
        transactions.push_back({{"hash", tx.hash},
                                {"nonce", tx.nonce},
                                {"status", tx.status},
                                {"blockNumber", tx.block_number == 0 ? json(nullptr) : json(tx.block_number)}});
    const json stored = mint.answer.empty() ? json(nullptr) : json::parse(mint.answer, nullptr, false);
    json data = {{"mintId", mint.id},
                 {"state", mint.state == "done" ? "mined" : mint.state},
                 {"route", mint.route},
                 {"blockchainId", mint.blockchain_id},
                 {"idempotencyKey", mint.idempotency_key.empty() ? json(nullptr) : json(mint.idempotency_key)},
                 {"transactions", transactions},
                 {"result", mint.state == "done" ? stored : json(nullptr)},
                 {"error", mint.state == "failed" ? stored : json(nullptr)},
                 {"createdAt", util::format_iso8601_utc(mint.created_at)},
                 {"updatedAt", util::format_iso8601_utc(mint.updated_at)}};
    return envelope(std::move(data), {{"checkedAt", now_iso()}});
}

namespace {

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

}  // namespace

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
    const auto row = store_.find_token_balance(config.id, address.lower(), kind->id);
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
    for (const auto& row : store_.token_balances_of(config.id, address.lower())) {
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

namespace {

// About what one role or entity mint costs in gas (DESIGN.md §8: 57k), rounded up.
constexpr std::uint64_t kMintGas = 60'000;
constexpr std::uint64_t kMintsInReserve = 100;

// The signer of one network: funded for kMintsInReserve mints at the current
// fee (or the configured floor), and no transaction stuck at the fee cap.
std::pair<std::string, json> signer_check(Network& network) {
    const auto& c = network.config();
    auto& sender = network.sender();
    json check = {{"healthy", false}, {"address", sender.address().checksummed()}};
    json stuck = json::array();
    for (const auto& tx : sender.stuck())
        stuck.push_back({{"nonce", tx.nonce}, {"hash", eth::to_hex(tx.hash)}, {"ageSeconds", tx.age.count()}});
    try {
        const auto balance = network.probe().balance(sender.address());
        const eth::U256 floor = c.min_signer_balance_gwei != 0
                                    ? eth::U256(c.min_signer_balance_gwei) * eth::U256(1'000'000'000)
                                    : eth::U256(kMintGas * kMintsInReserve) *
                                          network.probe().fee_tiers().expected_price(chain::FeeTier::standard);
        check["balance"] = balance.to_dec();
        check["minimumBalance"] = floor.to_dec();
        check["healthy"] = balance >= floor && stuck.empty();
        if (balance < floor)
            check["message"] = "the signer holds " + balance.to_dec() + " wei, less than the " + floor.to_dec() +
                               " wei it needs for the next mints: fund it";
    } catch (const Error& e) {
        check["message"] = e.what();
    }
    if (!stuck.empty()) {
        check["stuck"] = stuck;
        check["message"] = std::to_string(stuck.size()) +
                           " transaction(s) unmined at the fee cap (maxFeePerGasGwei): raise the cap or see "
                           "`abcictl admin journal list`";
    }
    return {"signer:" + c.id, check};
}

json gas_prices(Network& network) {
    try {
        const auto tiers = network.probe().fee_tiers();
        return {{"low", tiers.expected_price(chain::FeeTier::low).to_dec()},
                {"standard", tiers.expected_price(chain::FeeTier::standard).to_dec()},
                {"fast", tiers.expected_price(chain::FeeTier::fast).to_dec()}};
    } catch (const Error&) {
        return nullptr;  // the node did not answer within the probe's deadline
    }
}

}  // namespace

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
    auto& rpc = network.probe().rpc();
    json latest_block = nullptr, block_time = nullptr, current = nullptr;
    bool rpc_ok = false;
    // A node of another chain answers, but nothing it says is about this network (health agrees).
    bool wrong_chain = false;
    try {
        wrong_chain = network.probe().node_chain_id() != c.chain_id;
        if (!wrong_chain) {
            // Averaged over the last (up to) 10 blocks: one block's gap is noise.
            const json head = rpc.call("eth_getBlockByNumber", json::array({"latest", false}));
            const auto number = rpc::quantity_to_u64(head.at("number"), "block number");
            const auto span = std::min<std::uint64_t>(number, 10);
            latest_block = number;
            if (span > 0) {
                const json old = rpc.call("eth_getBlockByNumber", json::array({rpc::to_quantity(number - span), false}));
                const auto t1 = rpc::quantity_to_u64(head.at("timestamp"), "block timestamp");
                const auto t0 = rpc::quantity_to_u64(old.at("timestamp"), "block timestamp");
                block_time = static_cast<double>(t1 - t0) / static_cast<double>(span);
            }
            current = rpc::quantity_to_u256(rpc.call("eth_gasPrice"), "gas price").to_dec();
            rpc_ok = true;
        }
    } catch (const Error&) {
    } catch (const json::exception&) {
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
        } catch (const Error&) {
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
        const auto entity = store_.find_entity(c.id, kind->id, entity_id);
        if (!entity)
            throw Error(ErrorKind::not_found, entity_id ? "no " + std::string(kind->category) + " entity " + *entity_id +
                                                              " was minted on " + c.id
                                                        : "no " + std::string(kind->category) + " token was minted on " + c.id);
        record = entity->metadata;
        updated = entity->created_at;
    } else {
        // A role's record: the role itself, for one holder when named.
        const auto held = address ? store_.find_token_balance(c.id, address->lower(), kind->id) : std::nullopt;
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

namespace {

using Check = std::pair<std::string, json>;

Check network_check(Network& network) {
    const auto& c = network.config();
    json check = {{"healthy", false}, {"chainId", c.chain_id}};
    const auto start = std::chrono::steady_clock::now();
    try {
        const auto chain_id = network.probe().node_chain_id();
        const auto block = network.probe().block_number();
        check["latestBlock"] = block;
        check["healthy"] = chain_id == c.chain_id;
        if (chain_id != c.chain_id)
            check["message"] = "the node at " + network.masked_rpc_url() + " serves chain id " + std::to_string(chain_id) +
                               ", not the configured chainId " + std::to_string(c.chain_id) + ": check rpcUrls and chainId";
    } catch (const Error& e) {
        check["message"] = "the node at " + network.masked_rpc_url() + " does not answer: " + e.what();
    }
    check["latencyMs"] = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return {"network:" + c.id, check};
}

Check contract_check(Network& network) {
    const auto address = eth::Address::parse(network.config().contract_address).checksummed();
    json check = {{"healthy", false}, {"address", address}};
    try {
        auto& token = network.probe_contract();
        if (token.is_deployed()) {
            check["version"] = token.version();
            check["healthy"] = true;
        } else {
            check["message"] = "no contract deployed at " + address +
                               ": check contractAddress, or deploy one with `abcictl admin contract deploy`";
        }
    } catch (const Error& e) {
        check["message"] = "the contract at " + address + " cannot be read: " + e.what();
    }
    return {"contract:" + network.config().id, check};
}

Check minter_check(Network& network) {
    const auto signer = network.sender().address().checksummed();
    json check = {{"healthy", false}, {"address", signer}};
    try {
        check["healthy"] = network.probe_contract().is_minter(network.sender().address());
        if (!check["healthy"].get<bool>())
            check["message"] = "the signer " + signer + " does not hold MINTER_ROLE on the contract, so every mint "
                               "reverts: grant it (grantRole) from the contract's admin account";
    } catch (const Error& e) {
        check["message"] = "cannot read the signer's MINTER_ROLE: " + std::string(e.what());
    }
    return {"minter:" + network.config().id, check};
}

/// The checks of every network (only those not disabled with `enabled_only`), started at once.
std::vector<std::future<Check>> network_checks(const Registry& registry, bool enabled_only) {
    std::vector<std::future<Check>> checks;
    for (const auto& n : registry.networks()) {
        Network* network = n.get();
        if (enabled_only && network->config().status == NetworkStatus::disabled) continue;
        checks.push_back(std::async(std::launch::async, [network] { return network_check(*network); }));
        if (network->has_contract())
            checks.push_back(std::async(std::launch::async, [network] { return contract_check(*network); }));
        if (network->has_contract() && network->has_sender())
            checks.push_back(std::async(std::launch::async, [network] { return minter_check(*network); }));
        if (network->has_sender())
            checks.push_back(std::async(std::launch::async, [network] { return signer_check(*network); }));
    }
    return checks;
}

Check database_check(store::Store& store) {
    try {
        (void)store.count_users();
        return {"database", {{"healthy", true}}};
    } catch (const Error& e) {
        return {"database", {{"healthy", false}, {"message", e.what()}}};
    }
}

/// 200 with `good` when every check is healthy, else 503 with `bad`.
Answer collect(std::vector<std::future<Check>> checks, const char* good, const char* bad) {
    json results = json::object();
    bool healthy = true;
    for (auto& f : checks) {
        auto [name, check] = f.get();
        healthy = healthy && check["healthy"].get<bool>();
        results[name] = std::move(check);
    }
    return {healthy ? 200 : 503, {{"status", healthy ? good : bad}, {"checks", results}, {"timestamp", now_iso()}}};
}

}  // namespace

Answer AbciService::health() {
    auto checks = network_checks(registry_, false);
    checks.push_back(std::async(std::launch::async, [this]() -> Check {
        const auto result = content_.check();
        return {"contentStorage", {{"healthy", result.healthy}, {"message", result.message}}};
    }));
    checks.push_back(std::async(std::launch::async, [this] { return database_check(store_); }));
    return collect(std::move(checks), "healthy", "degraded");
}

Answer AbciService::readiness() {
    auto checks = network_checks(registry_, true);
    checks.push_back(std::async(std::launch::async, [this] { return database_check(store_); }));
    return collect(std::move(checks), "ready", "not ready");
}

namespace {

// The receipt of a journaled transaction, with its confirmations as of now; nothing while unmined.
std::optional<chain::Receipt> fetch_receipt(Network& network, const std::string& hash) {
    const json found = network.client().rpc().call("eth_getTransactionReceipt", json::array({hash}));
    if (found.is_null()) return std::nullopt;
    auto receipt = chain::Receipt::from_json(found);
    const auto head = network.client().block_number();
    receipt.confirmations = head >= receipt.block_number ? head - receipt.block_number + 1 : 1;
    return receipt;
}

}  // namespace

void AbciService::reconcile() {
    // What was journaled and is unsettled goes back to its sender, which
    // settles it by the same rules as what it sends live (tx_state.hpp).
    for (const auto& network : registry_.networks()) {
        if (!network->has_sender()) continue;
        std::vector<chain::JournaledTx> adopted;
        for (auto& entry : store_.journal_pending(network->config().id)) {
            chain::JournaledTx tx;
            tx.hash = eth::from_hex_fixed<32>(entry.hash, "journaled hash");
            tx.nonce = entry.nonce;
            tx.raw = eth::from_hex(entry.raw, "journaled transaction");
            tx.purpose = std::move(entry.purpose);
            adopted.push_back(std::move(tx));
        }
        if (!adopted.empty())
            util::log(util::LogLevel::info, "sending again what the journal holds unsettled",
                      {{"blockchainId", network->config().id}, {"transactions", adopted.size()}});
        network->sender().adopt(std::move(adopted));
    }
    for (const auto& mint : store_.pending_mints()) {
        try {
            reconcile(mint);
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "a mint could not be settled at start; the next start tries again",
                      {{"mintId", mint.id}, {"error", e.what()}});
        }
    }
}

void AbciService::reconcile(const store::MintRequest& mint) {
    const auto txs = store_.mint_transactions(mint.id);
    // Transactions are linked to their mint when journaled, before broadcast:
    // none linked means the request ended before anything reached the node.
    if (txs.empty())
        return release(mint.id, Error(ErrorKind::unavailable, "the server stopped before the mint was sent; send it again"));
    const auto pending = std::any_of(txs.begin(), txs.end(), [](const auto& tx) { return tx.status == "pending"; });
    if (pending) return;  // adopted by its sender: settle_unwaited() finishes it
    // A mined one first: a mint whose batch reverted may have been mined alone after it.
    auto landed = std::find_if(txs.begin(), txs.end(), [](const auto& tx) { return tx.status == "mined"; });
    if (landed == txs.end())
        landed = std::find_if(txs.begin(), txs.end(), [](const auto& tx) { return tx.status == "reverted"; });
    if (landed == txs.end())
        return release(mint.id, Error(ErrorKind::unavailable, "the mint was not made: its transaction was " +
                                                                  txs.back().status + "; send it again"));
    // Mined before the stop, but its bookkeeping was not done.
    Network& network = registry_.find(landed->blockchain_id);
    const auto receipt = fetch_receipt(network, landed->hash);
    if (!receipt) throw Error(ErrorKind::unavailable, "the node has no receipt for " + landed->hash);
    const auto mints = parse_mint_purpose(landed->purpose).mints;
    for (const auto& record : mints) {
        const bool ours = record.mint_id == mint.id ||
                          (record.mint_id.empty() && !mint.idempotency_key.empty() && record.key == mint.idempotency_key &&
                           record.actor == mint.actor && record.route == mint.route);
        if (!ours) continue;
        if (receipt->success)
            (void)finish(network, mint.id, record, *receipt);
        else
            settle_reverted(mint.id, *receipt, mints.size() > 1);
    }
}

}  // namespace abci::service
