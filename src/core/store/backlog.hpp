#pragma once
// What waits in the database for a server to do it (docs/metrics.md): the
// mint jobs queued for each chain's lane owner and the webhook deliveries
// still to send or given up, counted together in one query at each metrics
// scrape (service/backlog_metrics.hpp).

#include <cstdint>
#include <map>
#include <string>

namespace abci::store {

struct Backlog {
    std::map<std::string, std::uint64_t> mint_jobs;  // by blockchain id; a chain with none queued is absent
    std::uint64_t webhooks_pending = 0;             // to deliver, now or at a later attempt
    std::uint64_t webhooks_failed = 0;              // given up after the last attempt (until replayed)
};

class BacklogCounter {
public:
    virtual ~BacklogCounter() = default;
    /// The counts now: one query, over the tables' indexes.
    [[nodiscard]] virtual Backlog count() = 0;
};

}  // namespace abci::store
