// Tickets: single-use values with an expiry.

#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

template <class Db>
class SqlTickets final : public Tickets {
public:
    explicit SqlTickets(Db& db) : db_(db) {}

    void put(const std::string& kind, const std::string& key, const std::string& payload,
             TimePoint expires_at) override {
        db_.run({"ticket already exists"}, [&](auto& c) {
            execute(c, "INSERT INTO tickets (kind, key, payload, expires_at) VALUES (?, ?, ?, ?)", kind, key,
                    payload, to_millis(expires_at));
        });
    }

    std::optional<std::string> take(const std::string& kind, const std::string& key, TimePoint now) override {
        return db_.run({}, [&](auto& c) {
            // DELETE … RETURNING is one write: of concurrent takers, only the
            // one whose DELETE removed the row gets the payload.
            auto payload = query_one(c,
                                     "DELETE FROM tickets WHERE kind = ? AND key = ? AND expires_at > ? "
                                     "RETURNING payload",
                                     [](const auto& row) { return row.text("payload"); }, kind, key,
                                     to_millis(now));
            execute(c, "DELETE FROM tickets WHERE expires_at <= ?", to_millis(now));
            return payload;
        });
    }

    std::size_t count(const std::string& kind, TimePoint now) override {
        return db_.run({}, [&](auto& c) {
            const auto count = query_one(c, "SELECT count(*) AS n FROM tickets WHERE kind = ? AND expires_at > ?",
                                         [](const auto& row) { return row.integer("n"); }, kind, to_millis(now));
            return static_cast<std::size_t>(count.value_or(0));
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Tickets> make_tickets(Db& db) {
    return std::make_unique<SqlTickets<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_tickets, Tickets)

}  // namespace abci::store::sql
