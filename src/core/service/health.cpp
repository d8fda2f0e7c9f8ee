// GET /abci/health and /readyz: every check of every network, the content
// store and the database, started at once, each with what to fix when it fails.
#include <algorithm>
#include <future>

#include "core/service/health.hpp"
#include "core/service/service.hpp"
#include "core/service/service_parts.hpp"
#include "core/content/content_store.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/store/store.hpp"
#include "core/store/unavailable.hpp"
#include "core/util/log.hpp"

namespace abci::service {

namespace {

// About what one role or entity mint costs in gas (DESIGN.md §8: 57k), rounded up.
constexpr std::uint64_t kMintGas = 60'000;
constexpr std::uint64_t kMintsInReserve = 100;

// What the lane's sender finds stuck at the fee cap: this server's own
// sender when it owns the lane, else what the owner last wrote to the lane.
std::vector<chain::StuckTx> stuck_transactions(Network& network, store::Store& store) {
    if (const auto term = network.current_term()) return term->sender().stuck();
    std::vector<chain::StuckTx> stuck;
    const auto lane = store.lanes().find(network.lane());
    if (!lane) return stuck;
    const auto now = std::chrono::system_clock::now();
    for (const auto& tx : lane->stuck)
        stuck.push_back({.nonce = tx.nonce,
                         .hash = eth::from_hex_fixed<32>(tx.hash, "stuck transaction hash"),
                         .age = std::chrono::duration_cast<std::chrono::seconds>(now - tx.since)});
    return stuck;
}

// The signer of one network: funded for kMintsInReserve mints at the current
// fee (or the configured floor), and no transaction stuck at the fee cap.
HealthCheck signer_check(Network& network, store::Store& store) {
    const auto& c = network.config();
    const auto& signer = network.signer_address();
    HealthCheck check{.name = "signer:" + c.id, .address = signer.checksummed()};
    try {
        check.stuck = stuck_transactions(network, store);
        const auto funds = read_signer_funds(network, network.probe());
        check.balance = funds.balance;
        check.minimum_balance = funds.floor;
        check.healthy = funds.balance >= funds.floor && check.stuck.empty();
        if (funds.balance < funds.floor)
            check.message = "the signer holds " + funds.balance.to_dec() + " wei, less than the " + funds.floor.to_dec() +
                            " wei it needs for the next mints: fund it";
    } catch (const Error& e) {
        check.message = e.what();
    }
    if (!check.stuck.empty())
        check.message = std::to_string(check.stuck.size()) +
                        " transaction(s) unmined at the fee cap (maxFeePerGasGwei): raise the cap or see "
                        "`abcictl admin journal list`";
    // Said above all else: while the key cannot sign, every mint fails.
    if (auto why = network.signer_unavailable()) {
        check.healthy = false;
        check.message = std::move(*why);
    }
    return check;
}

HealthCheck network_check(Network& network) {
    const auto& c = network.config();
    HealthCheck check{.name = "network:" + c.id, .chain_id = c.chain_id};
    const auto start = std::chrono::steady_clock::now();
    try {
        const auto chain_id = network.probe().node_chain_id();
        check.latest_block = network.probe().block_number();
        check.healthy = chain_id == c.chain_id;
        if (chain_id != c.chain_id)
            check.message = "the node at " + network.masked_rpc_url() + " serves chain id " + std::to_string(chain_id) +
                            ", not the configured chainId " + std::to_string(c.chain_id) + ": check rpcUrls and chainId";
    } catch (const Error& e) {
        check.message = "the node at " + network.masked_rpc_url() + " does not answer: " + e.what();
    }
    check.latency_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return check;
}

HealthCheck contract_check(Network& network) {
    const auto address = eth::Address::parse(network.config().contract_address).checksummed();
    HealthCheck check{.name = "contract:" + network.config().id, .address = address};
    try {
        auto& token = network.probe_contract();
        if (token.is_deployed()) {
            check.version = token.version();
            check.healthy = true;
        } else {
            check.message = "no contract deployed at " + address +
                            ": check contractAddress, or deploy one with `abcictl admin contract deploy`";
        }
    } catch (const Error& e) {
        check.message = "the contract at " + address + " cannot be read: " + e.what();
    }
    return check;
}

HealthCheck minter_check(Network& network) {
    const auto signer = network.signer_address().checksummed();
    HealthCheck check{.name = "minter:" + network.config().id, .address = signer};
    try {
        check.healthy = network.probe_contract().is_minter(network.signer_address());
        if (!check.healthy)
            check.message = "the signer " + signer + " does not hold MINTER_ROLE on the contract, so every mint "
                            "reverts: grant it (grantRole) from the contract's admin account";
    } catch (const Error& e) {
        check.message = "cannot read the signer's MINTER_ROLE: " + std::string(e.what());
    }
    return check;
}

// The lane of a signing network (store/lanes.hpp): some server owns it,
// holds a current lease and has not halted it; with what its journal holds
// unsettled.
HealthCheck lane_check(Network& network, store::Store& store) {
    HealthCheck check{.name = "lane:" + network.config().id};
    try {
        const auto lane = store.lanes().find(network.lane());
        const auto pending = store.journal().pending(network.config().id);
        const auto now = std::chrono::system_clock::now();
        check.pending = pending.size();
        if (!pending.empty()) {
            const auto oldest = std::min_element(pending.begin(), pending.end(), [](const auto& x, const auto& y) {
                return x.created_at < y.created_at;
            });
            check.oldest_pending_seconds = std::chrono::duration_cast<std::chrono::seconds>(now - oldest->created_at).count();
        }
        if (!lane) {
            check.message = "no server has taken the lane of blockchain " + network.config().id + " yet";
            return check;
        }
        check.owner = lane->owner;
        check.epoch = lane->epoch;
        const auto term = network.current_term();
        check.owned_here = term && term->fence().epoch == lane->epoch;
        if (*check.owned_here) check.in_flight = term->sender().figures();
        const auto& signer = network.signer_address();
        // As the owner's nonce check compares them (AbciService::signer_nonce_agrees).
        check.journal_nonce = std::max(store.journal().next_nonce(network.config().id, signer.lower()).value_or(0),
                                       lane->accepted_nonce.value_or(0));
        try {
            check.chain_latest_nonce = network.probe().latest_nonce(signer);
            check.chain_pending_nonce = network.probe().pending_nonce(signer);
        } catch (const Error&) {
            // The network's own check says the node is silent; the lane is still judged by its lease.
        }
        check.healthy = lane->halted.empty() && lane->lease_until > now;
        if (!lane->halted.empty())
            check.message = "the lane is halted: " + lane->halted;
        else if (!check.healthy)
            check.message = "the lane's owner (" + lane->owner + ") stopped renewing its lease: another server takes it over "
                            "within seconds; if none does, no server with this signer is running";
    } catch (const Error& e) {
        check.message = "the lane cannot be read: " + std::string(e.what());
    }
    return check;
}

/// The checks of every network (only those not disabled with `enabled_only`), started at once.
std::vector<std::future<HealthCheck>> network_checks(const Registry& registry, store::Store& store, bool enabled_only) {
    std::vector<std::future<HealthCheck>> checks;
    for (const auto& n : registry.networks()) {
        Network* network = n.get();
        if (enabled_only && network->config().status == NetworkStatus::disabled) continue;
        checks.push_back(std::async(std::launch::async, [network] { return network_check(*network); }));
        if (network->has_contract())
            checks.push_back(std::async(std::launch::async, [network] { return contract_check(*network); }));
        if (network->has_contract() && network->has_signer())
            checks.push_back(std::async(std::launch::async, [network] { return minter_check(*network); }));
        if (network->has_signer())
            checks.push_back(std::async(std::launch::async, [network, &store] { return signer_check(*network, store); }));
    }
    return checks;
}

HealthCheck database_check(store::Store& store) {
    try {
        (void)store.users().count();
        return {.name = "database", .healthy = true};
    } catch (const store::DatabaseUnavailable& e) {
        // /readyz is anyone's: where the database lives goes to the operator's log only.
        util::log(util::LogLevel::error, "the database check failed", {{"error", e.what()}});
        return {.name = "database", .healthy = false, .message = "the database cannot be reached: the server's log says why"};
    } catch (const Error& e) {
        return {.name = "database", .healthy = false, .message = e.what()};
    }
}

// Healthy however many subscriptions the server disabled: their receivers
// failing says nothing of this server, and a probe must not take it out of
// service for them (docs/decisions.md). The count and the message say it.
HealthCheck webhooks_check(store::Store& store) {
    HealthCheck check{.name = "webhooks", .healthy = true};
    try {
        const auto subscriptions = store.webhooks().list_subscriptions();
        check.disabled_subscriptions = static_cast<std::uint64_t>(std::count_if(
            subscriptions.begin(), subscriptions.end(), [](const auto& s) { return !s.enabled && s.disabled_at; }));
        if (*check.disabled_subscriptions > 0)
            check.message = std::to_string(*check.disabled_subscriptions) +
                            " webhook subscription(s) disabled for failing: `abcictl webhooks list` shows which and "
                            "why; `abcictl webhooks update ID --enable` resumes one";
    } catch (const Error& e) {
        check.message = "the webhook subscriptions cannot be read: " + std::string(e.what());
    }
    return check;
}

HealthReport collect(std::vector<std::future<HealthCheck>> checks) {
    HealthReport report;
    for (auto& check : checks) report.checks.push_back(check.get());
    report.checked_at = std::chrono::system_clock::now();
    return report;
}

}  // namespace

SignerFunds read_signer_funds(Network& network, chain::ChainClient& client) {
    SignerFunds funds{.balance = client.balance(network.signer_address()),
                      .per_mint = eth::U256(kMintGas) * client.fee_tiers().expected_price(chain::FeeTier::standard)};
    const auto gwei = network.config().min_signer_balance_gwei;
    funds.floor = gwei != 0 ? eth::U256(gwei) * eth::U256(1'000'000'000) : eth::U256(kMintsInReserve) * funds.per_mint;
    // What a scrape shows is the last reading: no call of its own.
    network.lane_metrics().signer_funds(funds.balance, funds.per_mint);
    return funds;
}

HealthReport AbciService::health() {
    auto checks = network_checks(registry_, store_, false);
    for (const auto& n : registry_.networks())
        if (n->has_signer())
            checks.push_back(std::async(std::launch::async, [this, network = n.get()] { return lane_check(*network, store_); }));
    checks.push_back(std::async(std::launch::async, [this] {
        const auto result = content_.check();
        return HealthCheck{.name = "contentStorage", .healthy = result.healthy, .message = result.message};
    }));
    checks.push_back(std::async(std::launch::async, [this] { return database_check(store_); }));
    checks.push_back(std::async(std::launch::async, [this] { return webhooks_check(store_); }));
    return collect(std::move(checks));
}

HealthReport AbciService::readiness() {
    auto checks = network_checks(registry_, store_, true);
    checks.push_back(std::async(std::launch::async, [this] { return database_check(store_); }));
    return collect(std::move(checks));
}
}  // namespace abci::service
