// The backlog's counts for a metrics scrape.

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

template <class Db>
class SqlBacklogCounter final : public BacklogCounter {
public:
    explicit SqlBacklogCounter(Db& db) : db_(db) {}

    Backlog count() override {
        struct Count {
            std::string queue, name;
            std::uint64_t n;
        };
        const auto counts = db_.run({}, [&](auto& c) {
            return query_all(c,
                             "SELECT 'mint_jobs' AS queue, blockchain_id AS name, COUNT(*) AS n FROM mint_jobs "
                             "GROUP BY blockchain_id "
                             "UNION ALL SELECT 'webhook_deliveries', state, COUNT(*) FROM webhook_deliveries "
                             "WHERE state IN ('pending', 'failed') GROUP BY state",
                             [](const auto& row) {
                                 return Count{row.text("queue"), row.text("name"), row.unsigned_integer("n")};
                             });
        });
        Backlog backlog;
        for (const auto& [queue, name, n] : counts) {
            if (queue == "mint_jobs")
                backlog.mint_jobs[name] = n;
            else
                (name == "pending" ? backlog.webhooks_pending : backlog.webhooks_failed) = n;
        }
        return backlog;
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<BacklogCounter> make_backlog_counter(Db& db) {
    return std::make_unique<SqlBacklogCounter<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_backlog_counter, BacklogCounter)

}  // namespace abci::store::sql
