#include "core/service/backlog_metrics.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/metrics/registry.hpp"
#include "core/service/registry.hpp"
#include "core/store/store.hpp"
#include "core/util/log.hpp"

namespace abci::service {

// What one query found: the store's counts, and the chains whose lane this
// server owned then. Not in the anonymous namespace: Shared, which has
// external linkage, holds one.
struct BacklogReading {
    store::Backlog backlog;
    std::vector<std::string> owned;
};

struct BacklogMetrics::Shared {
    std::mutex mutex;
    std::condition_variable cv;
    bool stopping = false;
    std::uint64_t asked = 0;     // scrapes that asked for a reading
    std::uint64_t answered = 0;  // the last `asked` a finished query covers
    std::optional<BacklogReading> last;  // none when that query failed
};

namespace {

metrics::Sample gauge(std::string label, std::string value, double figure) {
    return {{{std::move(label), std::move(value)}}, figure, {}};
}

class BacklogCollector : public metrics::Collectable {
public:
    BacklogCollector(std::shared_ptr<BacklogMetrics::Shared> shared, std::chrono::milliseconds timeout)
        : shared_(std::move(shared)), timeout_(timeout) {}

    std::vector<metrics::MetricFamily> collect() const override {
        auto& s = *shared_;
        std::unique_lock lock(s.mutex);
        if (s.stopping) return {};
        const auto asked = ++s.asked;
        s.cv.notify_all();
        if (!s.cv.wait_for(lock, timeout_, [&] { return s.stopping || s.answered >= asked; }) || s.stopping || !s.last)
            return {};
        const auto& [backlog, owned] = *s.last;
        metrics::MetricFamily jobs{"abcictl_mint_jobs_queued",
                                   "Mints queued for the chain's lane owner and not yet journaled (exported by the "
                                   "owner only)",
                                   metrics::MetricType::gauge,
                                   {}};
        for (const auto& chain : owned) {
            const auto it = backlog.mint_jobs.find(chain);
            jobs.samples.push_back(gauge("chain", chain, it == backlog.mint_jobs.end() ? 0 : static_cast<double>(it->second)));
        }
        metrics::MetricFamily deliveries{
            "abcictl_webhook_deliveries",
            "Webhook deliveries in the database by state: pending (to send, now or at a later attempt) and failed "
            "(given up); every replica exports the same figure",
            metrics::MetricType::gauge,
            {gauge("state", "pending", static_cast<double>(backlog.webhooks_pending)),
             gauge("state", "failed", static_cast<double>(backlog.webhooks_failed))}};
        std::vector<metrics::MetricFamily> out;
        if (!jobs.samples.empty()) out.push_back(std::move(jobs));
        out.push_back(std::move(deliveries));
        return out;
    }

private:
    std::shared_ptr<BacklogMetrics::Shared> shared_;
    std::chrono::milliseconds timeout_;
};

}  // namespace

BacklogMetrics::BacklogMetrics(store::Store& store, const Registry& networks, metrics::Registry& metrics,
                               std::chrono::milliseconds timeout)
    : shared_(std::make_shared<Shared>()) {
    worker_ = std::thread([&store, &networks, &s = *shared_] {
        std::unique_lock lock(s.mutex);
        for (;;) {
            s.cv.wait(lock, [&] { return s.stopping || s.asked > s.answered; });
            if (s.stopping) return;
            const auto asked = s.asked;
            lock.unlock();
            std::optional<BacklogReading> reading;
            try {
                BacklogReading r{.backlog = store.backlog().count(), .owned = {}};
                for (const auto& network : networks.networks())
                    if (network->has_signer() && network->current_term()) r.owned.push_back(network->config().id);
                reading = std::move(r);
            } catch (const Error& e) {
                // Logged at each scrape while it lasts; the scrape shows no backlog families.
                util::log(util::LogLevel::warning, "counting the database's queues for a metrics scrape failed",
                          {{"error", e.what()}});
            }
            lock.lock();
            s.last = std::move(reading);
            s.answered = asked;
            s.cv.notify_all();
        }
    });
    metrics.add_collectable(std::make_shared<BacklogCollector>(shared_, timeout));
}

BacklogMetrics::~BacklogMetrics() {
    {
        std::lock_guard lock(shared_->mutex);
        shared_->stopping = true;
    }
    shared_->cv.notify_all();
    worker_.join();
}

}  // namespace abci::service
