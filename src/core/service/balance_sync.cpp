#include "core/service/balance_sync.hpp"

#include <algorithm>
#include <vector>

#include "core/service/registry.hpp"
#include "core/service/tokens.hpp"
#include "core/error.hpp"
#include "core/store/store.hpp"
#include "core/util/log.hpp"

namespace abci::service {

namespace {

// Beyond this many wallets the memory of past syncs starts over (a forgotten
// wallet is merely read from the chain once more).
constexpr std::size_t kMaxRemembered = 100'000;

// The stored balances answer, with the time they were last synced; the operator learns why.
std::nullopt_t unsynced(const Network& network, const Error& why) {
    util::log(util::LogLevel::warning, "balances could not be read from the chain; the stored ones are answered",
              {{"blockchainId", network.config().id}, {"error", why.what()}});
    return std::nullopt;
}

}  // namespace

std::optional<BalanceSync::TimePoint> BalanceSync::sync(Network& network, const eth::Address& address) {
    const std::string key = network.config().id + "/" + address.lower();
    chain::ObservedHead head;
    try {
        head = network.probe().recent_head();
    } catch (const Error& e) {
        return unsynced(network, e);
    }
    {
        std::lock_guard lock(mutex_);
        // Current as of the later of the head's observation and this wallet's last read.
        if (auto it = synced_at_.find(key); it != synced_at_.end() && it->second.head == head.number)
            return std::max(head.as_of, it->second.at);
    }
    const auto kinds = all_tokens();
    std::vector<eth::Address> owners(kinds.size(), address);
    std::vector<std::uint64_t> ids;
    for (const auto& kind : kinds) ids.push_back(kind.id);
    std::vector<eth::U256> balances;
    try {
        balances = network.probe_contract().balance_of_batch(owners, ids);
    } catch (const Error& e) {
        return unsynced(network, e);
    }
    std::vector<store::ChainBalance> chain_balances;
    for (std::size_t i = 0; i < kinds.size(); ++i)
        chain_balances.push_back({kinds[i].id, balances[i].to_dec(), std::string(to_string(kinds[i].family)),
                                  std::string(kinds[i].category)});
    const auto now = std::chrono::system_clock::now();
    store_.tokens().sync_balances(network.config().id, address.lower(), chain_balances, now);
    // The head seen before the read: if a block came in between, the next read syncs again.
    std::lock_guard lock(mutex_);
    if (synced_at_.size() >= kMaxRemembered) synced_at_.clear();
    synced_at_[key] = Synced{head.number, now};
    return now;
}

}  // namespace abci::service
