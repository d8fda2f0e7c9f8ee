#pragma once
// The database's queues at each scrape (docs/metrics.md): mint jobs waiting
// for each lane's owner (abcictl_mint_jobs_queued, exported by the owner
// only, as the lane's other gauges are, so that sum() across replicas counts
// each queue once) and webhook deliveries pending and failed
// (abcictl_webhook_deliveries, the same figure from every replica: no
// replica owns the deliveries, each is leased one at a time). One query per
// scrape, on a thread of its own: a scrape waits for it at most `timeout`,
// and meanwhile a slow or unreachable database costs the scrape these two
// families, never the others, nor a second query queued behind the first.

#include <chrono>
#include <memory>
#include <thread>

namespace abci::metrics {
class Registry;
}
namespace abci::store {
class Store;
}

namespace abci::service {

class Registry;

class BacklogMetrics {
public:
    /// Adds the collector to `metrics`; `store` and `networks` must outlive this object, which the
    /// collector no longer touches once destroyed (a later scrape shows no backlog families).
    BacklogMetrics(store::Store& store, const Registry& networks, metrics::Registry& metrics,
                   std::chrono::milliseconds timeout = std::chrono::seconds(1));
    ~BacklogMetrics();
    BacklogMetrics(const BacklogMetrics&) = delete;
    BacklogMetrics& operator=(const BacklogMetrics&) = delete;

    struct Shared;

private:
    std::shared_ptr<Shared> shared_;
    std::thread worker_;
};

}  // namespace abci::service
