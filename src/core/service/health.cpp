// GET /abci/health and /readyz: every check of every network, the content
// store and the database, started at once, each with what to fix when it fails.
#include <future>

#include "core/service/service.hpp"
#include "core/service/service_parts.hpp"
#include "core/content/content_store.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/store/store.hpp"

namespace abci::service {

using nlohmann::json;

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
        (void)store.users().count();
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
}  // namespace abci::service
