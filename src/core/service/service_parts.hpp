#pragma once
// What the files of AbciService share (service.cpp defines it): a mint
// request, the metadata record of a mint. Not for use outside core/service.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/service/mint_failure.hpp"
#include "core/service/network_config.hpp"
#include "core/service/requests.hpp"
#include "core/service/service.hpp"
#include "core/service/tokens.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/store/mints.hpp"
#include "core/store/notifications.hpp"

namespace abci::service {

/// One mint request as the mint routes take it.
struct AbciService::Mint {
    store::MintKind mint_kind = store::MintKind::role;
    Network* network = nullptr;
    eth::Address to;
    TokenKind kind;
    std::uint64_t amount = 1;
    std::string entity_type;
    std::string entity_id;
    EntityMetadata metadata;  // given by the caller (entity) or built (role)
};

/// What forwarding.cpp keeps: the listener, the requests of this server
/// waiting for mints another sends, and the queued mints this server sends.
struct AbciService::Forwarding {
    std::unique_ptr<store::Listener> listener;  // none when no other server shares the store
    std::thread thread;
    std::atomic<bool> stopping = false;

    [[nodiscard]] bool shared() const noexcept { return listener != nullptr; }

    /// A job this server queued: taken at once without a listener (with one,
    /// the database's notification says so).
    void queued_here(std::string mint_id) {
        if (shared()) return;
        {
            std::lock_guard lock(mutex);
            queued_by_us.push_back(std::move(mint_id));
        }
        queued_cv.notify_one();
    }

    /// What was heard within `slice`: the listener's notifications, or the jobs queued here.
    [[nodiscard]] std::vector<store::Notification> hear(std::chrono::milliseconds slice) {
        if (shared()) return listener->wait(slice);
        std::unique_lock lock(mutex);
        queued_cv.wait_for(lock, slice, [this] { return !queued_by_us.empty() || stopping; });
        std::vector<store::Notification> heard;
        for (auto& id : queued_by_us) heard.push_back({store::kMintQueuedChannel, std::move(id)});
        queued_by_us.clear();
        return heard;
    }

    // A request of this server waiting for a mint another sends: woken
    // alone (a wake-up per settled mint must not stir every waiter).
    struct Waiter {
        bool woken = true;  // look once before the first wait
        bool sender_gave_up = false;  // the owner answered its own callers 504 by now
        std::condition_variable cv;
    };

    std::mutex mutex;  // guards what follows
    std::map<std::string, Waiter> awaited;  // by mint id
    // Jobs this server sends, by mint id, each on its thread; `finished` ones are joined.
    std::map<std::string, std::thread> sending;
    std::set<std::string> finished;
    std::vector<std::string> queued_by_us;  // queued_here() without a listener, for hear()
    std::condition_variable queued_cv;

    void wake(const std::string& mint_id, bool sender_gave_up = false) {
        std::lock_guard lock(mutex);
        if (auto it = awaited.find(mint_id); it != awaited.end()) {
            it->second.woken = true;
            it->second.sender_gave_up = it->second.sender_gave_up || sender_gave_up;
            it->second.cv.notify_one();
        }
    }

    void join_finished() {
        std::set<std::string> done;
        std::map<std::string, std::thread> threads;
        {
            std::lock_guard lock(mutex);
            for (const auto& id : finished) threads.emplace(id, std::move(sending.at(id)));
            for (const auto& id : finished) sending.erase(id);
            finished.clear();
        }
        for (auto& [id, thread] : threads) thread.join();
    }
};

/// A mint taken here whose lane went to another server before anything was
/// signed for it: released (its key free), for mint() to hand to the new owner.
class LaneLost : public Error {
public:
    explicit LaneLost(const Error& cause) : Error(cause) {}
};

[[nodiscard]] std::string now_iso();
/// The ERC-1155 metadata record of spec 2.4 for one mint: the document stored as content.
[[nodiscard]] nlohmann::json metadata_record(const TokenKind& kind, const EntityMetadata& metadata,
                                             const eth::Address& issuer, const eth::Address& beneficiary,
                                             const std::string& issued_at);

/// A role token's metadata: its name, the description every role token has, and `attributes`.
[[nodiscard]] EntityMetadata role_metadata(const TokenKind& kind, Attributes attributes);

/// The signer's balance, about what one mint costs at the current fee, and
/// the floor below which the signer is unhealthy and signer.balance_low is sent.
struct SignerFunds {
    eth::U256 balance;
    eth::U256 per_mint;
    eth::U256 floor;  // minSignerBalanceGwei, or enough for kMintsInReserve mints
};
/// Reads them through `client` (health.cpp) and hands them to the lane's
/// metrics: the health check's reading, and the lane owner's every few seconds.
[[nodiscard]] SignerFunds read_signer_funds(Network& network, chain::ChainClient& client);

}  // namespace abci::service
