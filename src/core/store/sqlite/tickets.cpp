// Tickets on SQLite: single-use values with an expiry.

#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

class SqliteTickets final : public Tickets {
public:
    explicit SqliteTickets(Db& db) : db_(db) {}

    void put(const std::string& kind, const std::string& key, const std::string& payload,
             TimePoint expires_at) override {
        db_.run({"ticket already exists"}, [&](Database& db) {
            execute(db, "INSERT INTO tickets (kind, key, payload, expires_at) VALUES (?, ?, ?, ?)", kind, key,
                    payload, to_millis(expires_at));
        });
    }

    std::optional<std::string> take(const std::string& kind, const std::string& key, TimePoint now) override {
        return db_.run({}, [&](Database& db) {
            // DELETE … RETURNING is one write: of concurrent takers, only the
            // one whose DELETE removed the row gets the payload.
            auto payload = query_one(db,
                                     "DELETE FROM tickets WHERE kind = ? AND key = ? AND expires_at > ? "
                                     "RETURNING payload",
                                     [](const Statement& s) { return text(s, "payload"); }, kind, key,
                                     to_millis(now));
            execute(db, "DELETE FROM tickets WHERE expires_at <= ?", to_millis(now));
            return payload;
        });
    }

    std::size_t count(const std::string& kind, TimePoint now) override {
        return db_.run({}, [&](Database& db) {
            const auto count = query_one(db, "SELECT count(*) AS n FROM tickets WHERE kind = ? AND expires_at > ?",
                                         [](const Statement& s) { return integer(s, "n"); }, kind, to_millis(now));
            return static_cast<std::size_t>(count.value_or(0));
        });
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Tickets> make_tickets(Db& db) { return std::make_unique<SqliteTickets>(db); }

}  // namespace abci::store::sqlite
