// Lanes and the election of their owners (lanes.hpp), for both backends: the
// rows are the same; what keeps two servers from taking a lane at once is
// the backend's (LaneLock below).

#include <map>

#include "core/store/sql/backends.hpp"
#include "core/store/sql/outbox.hpp"
#include "core/store/stuck_record.hpp"
#include "core/util/log.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kLaneColumns = "lane, epoch, owner, lease_until, halted, accepted_nonce, stuck, genesis";

constexpr auto read_lane = [](const auto& row) {
    return LaneStatus{.lane = row.text("lane"),
                      .epoch = row.integer("epoch"),
                      .owner = row.text("owner"),
                      .lease_until = row.time_at("lease_until"),
                      .halted = row.text("halted"),
                      .accepted_nonce = row.is_null("accepted_nonce")
                                            ? std::nullopt
                                            : std::optional(row.unsigned_integer("accepted_nonce")),
                      .stuck = StuckRecord::parse(row.text("stuck")).transactions,
                      .genesis = row.text("genesis")};
};

template <class Db>
class SqlLanes final : public Lanes {
public:
    explicit SqlLanes(Db& db) : db_(db) {}

    std::vector<LaneStatus> list() override {
        return db_.run({}, [&](auto& c) { return query_all(c, select_columns(kLaneColumns, "FROM lanes ORDER BY lane"), read_lane); });
    }

    std::optional<LaneStatus> find(const std::string& lane) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kLaneColumns, "FROM lanes WHERE lane = ?"), read_lane, lane);
        });
    }

    void halt(const LaneFence& fence, const std::string& why) override {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE lanes SET halted = ? WHERE lane = ? AND epoch = ?", why, fence.lane, fence.epoch);
        });
    }

    bool resume(const std::string& lane) override {
        return db_.run({}, [&](auto& c) {
            return execute(c, "UPDATE lanes SET halted = '', accepted_nonce = NULL WHERE lane = ? AND halted != ''", lane) == 1;
        });
    }

    void accept_nonce(const LaneFence& fence, std::uint64_t nonce) override {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE lanes SET accepted_nonce = ? WHERE lane = ? AND epoch = ?", nonce, fence.lane, fence.epoch);
        });
    }

    void report_stuck(const LaneFence& fence, const std::vector<StuckTransaction>& stuck) override {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE lanes SET stuck = ? WHERE lane = ? AND epoch = ?", StuckRecord{stuck}.serialize(), fence.lane,
                    fence.epoch);
        });
    }

    void record_genesis(const LaneFence& fence, const std::string& genesis) override {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE lanes SET genesis = ? WHERE lane = ? AND epoch = ?", genesis, fence.lane, fence.epoch);
        });
    }

    bool record_signer_balance(const LaneFence& fence, const SignerBalance& reading) override {
        bool wrote_event = false;
        // The compare-and-set flips the latch once per crossing, whoever reads
        // the balance how often; the event commits with the flip or not at all.
        const bool crossed = db_.row_transaction({}, [&](auto& c) {
            if (!reading.low) {
                execute(c, "UPDATE lanes SET balance_low = FALSE WHERE lane = ? AND epoch = ? AND balance_low = TRUE",
                        fence.lane, fence.epoch);
                return false;
            }
            if (execute(c, "UPDATE lanes SET balance_low = TRUE WHERE lane = ? AND epoch = ? AND balance_low = FALSE",
                        fence.lane, fence.epoch) != 1)
                return false;
            wrote_event = write_event<Db>(c, EventType::signer_balance_low, fence.lane,
                                          "SELECT lane FROM lanes WHERE lane = ?1", [&](const auto& row) {
                                              return SignerBalanceEvent{.lane = row.text("lane"), .reading = reading};
                                          });
            return true;
        });
        if (wrote_event) events_written();
        return crossed;
    }

private:
    Db& db_;
};

// What keeps a lane to one server. SQLite: the data directory's lock
// (DataDir::lock_for_server) already makes this server the only one.
class SoleServer {
public:
    explicit SoleServer(sqlite::Db&) {}
    bool try_lock(const std::string&) { return true; }
    void unlock(const std::string&) {}
    bool session_lost() { return false; }
    void end_stale_holder(const std::string&) {}
};

// PostgreSQL: a session advisory lock per lane on a connection of its own.
// The server drops it when the session ends, however it ends (kill -9 closes
// the socket), so a dead owner's lanes are free at once; a frozen owner's
// session lives on, and is ended once its lease has run out.
class AdvisoryLocks {
public:
    explicit AdvisoryLocks(postgresql::Db& db) : db_(db) {}

    bool try_lock(const std::string& lane) {
        return query_one(session(), "SELECT pg_try_advisory_lock(?, hashtext(?)) AS got",
                         [](const auto& row) { return row.boolean("got"); }, kLockSpace, lane)
            .value_or(false);
    }

    void unlock(const std::string& lane) {
        if (!session_ || session_->broken()) return;
        try {
            (void)query_one(*session_, "SELECT pg_advisory_unlock(?, hashtext(?)) AS released",
                            [](const auto& row) { return row.boolean("released"); }, kLockSpace, lane);
        } catch (const Error&) {
            // The session is gone (ended by a takeover): its locks went with it.
        }
    }

    /// Whether the locks' session was lost (its locks with it): then every
    /// lane held is lost, and the next try_lock() opens a new session.
    bool session_lost() { return session_ && !session_->alive(); }

    void end_stale_holder(const std::string& lane) {
        // The holder's lease ran out while it keeps its lock: frozen (SIGSTOP,
        // a stalled VM) or cut off from the database. Ending its session frees
        // the lock; its epoch is bumped by whoever takes the lane, so it
        // cannot write when it wakes.
        const auto ended = db_.run({}, [&](auto& c) {
            return query_all(c,
                             "SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l, lanes "
                             "WHERE lanes.lane = ?2 AND lanes.lease_until < " +
                                 postgresql::Db::clock_millis() +
                                 " AND l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
                                 "AND l.classid = ?1 AND l.objid = CAST(hashtext(?2) AS BIGINT) & 4294967295",
                             [](const auto& row) { return row.boolean("ended"); }, kLockSpace, lane);
        });
        if (!ended.empty())
            util::log(util::LogLevel::warning, "ended the session of a lane owner whose lease ran out",
                      {{"lane", lane}});
    }

private:
    // The advisory locks' first key: "abci" in ASCII, apart from other programs' locks.
    static constexpr std::int64_t kLockSpace = 0x61626369;

    postgresql::Connection& session() {
        if (!session_ || session_->broken()) session_ = db_.dedicated_connection();
        return *session_;
    }

    postgresql::Db& db_;
    std::unique_ptr<postgresql::Connection> session_;
};

template <class Db, class Lock>
class SqlLaneElection final : public LaneElection {
public:
    SqlLaneElection(Db& db, std::string owner) : db_(db), lock_(db), owner_(std::move(owner)) {}

    ~SqlLaneElection() override {
        for (const auto& [lane, epoch] : held_) {
            try {
                release_row(lane, epoch);
                lock_.unlock(lane);
            } catch (const Error& e) {
                util::log(util::LogLevel::warning, "giving up a lane failed; it is taken over when its lease runs out",
                          {{"lane", lane}, {"error", e.what()}});
            }
        }
    }

    std::optional<LaneFence> hold(const std::string& lane) override {
        try {
            return held_.contains(lane) ? renew(lane) : take(lane);
        } catch (const Error& e) {
            // Unsure whether we still hold it: as lost. The lease runs out
            // for the others all the same, and the epoch fences us meanwhile.
            held_.erase(lane);
            util::log(util::LogLevel::warning, "lost the hold on a lane", {{"lane", lane}, {"error", e.what()}});
            return std::nullopt;
        }
    }

    void release(const std::string& lane) override {
        const auto it = held_.find(lane);
        if (it == held_.end()) return;
        const auto epoch = it->second;
        held_.erase(it);
        release_row(lane, epoch);
        lock_.unlock(lane);
    }

private:
    std::optional<LaneFence> take(const std::string& lane) {
        if (!lock_.try_lock(lane)) {
            lock_.end_stale_holder(lane);
            return std::nullopt;
        }
        // A new epoch fences whoever owned it before, whatever it still believes.
        // The lock makes this server the lane's one writer, so rows need no more isolation.
        bool wrote_event = false;
        const auto epoch = db_.row_transaction({}, [&](auto& c) {
            const auto previous = query_one(c, "SELECT owner FROM lanes WHERE lane = ?",
                                            [](const auto& row) { return row.text("owner"); }, lane);
            const auto taken = *query_one(c,
                              "INSERT INTO lanes (lane, epoch, owner, lease_until, halted) VALUES (?1, 1, ?2, " +
                                  Db::clock_millis() + " + ?3, '') ON CONFLICT (lane) DO UPDATE SET epoch = "
                                  "lanes.epoch + 1, owner = ?2, lease_until = " + Db::clock_millis() +
                                  " + ?3 RETURNING epoch",
                              [](const auto& row) { return row.integer("epoch"); }, lane, owner_,
                              static_cast<std::int64_t>(kLaneLease.count()));
            // A server taking back a lane it owned last (its lease lapsed) changes no owner.
            wrote_event = previous != owner_ &&
                          write_event<Db>(c, EventType::lane_owner_changed, lane,
                                          "SELECT lane, owner, epoch FROM lanes WHERE lane = ?1", [&](const auto& row) {
                                              return LaneEvent{.lane = row.text("lane"),
                                                               .previous_owner = previous.value_or(""),
                                                               .owner = row.text("owner"),
                                                               .epoch = row.integer("epoch")};
                                          });
            return taken;
        });
        if (wrote_event) events_written();
        held_[lane] = epoch;
        util::log(util::LogLevel::info, "took a lane", {{"lane", lane}, {"epoch", epoch}});
        return LaneFence{lane, epoch};
    }

    std::optional<LaneFence> renew(const std::string& lane) {
        const auto epoch = held_.at(lane);
        const bool renewed = !lock_.session_lost() && db_.run({}, [&](auto& c) {
            return execute(c, "UPDATE lanes SET lease_until = " + Db::clock_millis() + " + ? WHERE lane = ? AND epoch = ?",
                           static_cast<std::int64_t>(kLaneLease.count()), lane, epoch) == 1;
        });
        if (renewed) return LaneFence{lane, epoch};
        held_.erase(lane);
        lock_.unlock(lane);
        util::log(util::LogLevel::warning, "lost a lane to another server", {{"lane", lane}, {"epoch", epoch}});
        return std::nullopt;
    }

    // The lease ends now, so that the next owner need not wait for it.
    void release_row(const std::string& lane, std::int64_t epoch) {
        db_.run({}, [&](auto& c) {
            execute(c, "UPDATE lanes SET lease_until = " + Db::clock_millis() + " WHERE lane = ? AND epoch = ?", lane, epoch);
        });
    }

    Db& db_;
    Lock lock_;
    std::string owner_;
    std::map<std::string, std::int64_t> held_;  // lane → the epoch this server holds it under
};

}  // namespace

template <class Db>
std::unique_ptr<Lanes> make_lanes(Db& db) {
    return std::make_unique<SqlLanes<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_lanes, Lanes)

template <class Db>
std::unique_ptr<LaneElection> make_lane_election(Db& db, std::string owner) {
    using Lock = std::conditional_t<std::is_same_v<Db, postgresql::Db>, AdvisoryLocks, SoleServer>;
    return std::make_unique<SqlLaneElection<Db, Lock>>(db, std::move(owner));
}

template std::unique_ptr<LaneElection> make_lane_election(sqlite::Db& db, std::string owner);
template std::unique_ptr<LaneElection> make_lane_election(postgresql::Db& db, std::string owner);

}  // namespace abci::store::sql
