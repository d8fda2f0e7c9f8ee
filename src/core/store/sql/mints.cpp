// Mint requests and their idempotency keys.

#include <nlohmann/json.hpp>

#include "core/store/sql/backends.hpp"
#include "core/store/sql/outbox.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kMintColumns =
    "id, actor, kind, blockchain_id, idempotency_key, fingerprint, state, answer, created_at, updated_at";
constexpr auto read_mint = [](const auto& row) {
    return MintRequest{.id = row.text("id"),
                       .actor = row.text("actor"),
                       .kind = row.enum_at("kind", parse_mint_kind),
                       .blockchain_id = row.text("blockchain_id"),
                       .idempotency_key = row.text("idempotency_key"),
                       .fingerprint = row.text("fingerprint"),
                       .state = row.enum_at("state", parse_mint_state),
                       .answer = row.text("answer"),
                       .created_at = row.time_at("created_at"),
                       .updated_at = row.time_at("updated_at")};
};

/// The mint that the claim (actor, kind, key) names.
template <class Connection>
std::optional<MintRequest> mint_by_key(Connection& c, const IdempotencyKey& key) {
    return query_one(c,
                     select_columns(kMintColumns,
                                    "FROM mint_requests WHERE id = (SELECT mint_id FROM idempotency_keys "
                                    "WHERE actor = ? AND kind = ? AND key = ?)"),
                     read_mint, key.actor, to_string(key.kind), key.key);
}

/// A mint just made final: its job, if any, is void, and a server waiting for it is woken.
template <class Connection>
void settled(Connection& c, const std::string& id) {
    execute(c, "DELETE FROM mint_jobs WHERE mint_id = ?", id);
    notify(c, kMintSettledChannel, id);
}

template <class Connection>
void require_mint(Connection& c, const std::string& id) {
    require_row(c, "SELECT 1 FROM mint_requests WHERE id = ?", id, "no mint " + id);
}

template <class Db>
class SqlMints final : public Mints {
public:
    explicit SqlMints(Db& db) : db_(db) {}

    std::optional<MintRequest> begin(const MintRequest& mint, const std::optional<MintJob>& job) override {
        const std::int64_t now = to_millis(now_millis());
        return db_.transaction({}, [&](auto& c) {
            // The claim, the read of the winner's mint and the new mint in one
            // write transaction: a release in between cannot leave us with neither.
            std::optional<MintRequest> existing;
            if (!mint.idempotency_key.empty() &&
                execute(c,
                        "INSERT INTO idempotency_keys (actor, kind, key, mint_id, created_at) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT DO NOTHING",
                        mint.actor, to_string(mint.kind), mint.idempotency_key, mint.id, now) == 0) {
                existing = mint_by_key(c, {mint.actor, mint.kind, mint.idempotency_key});
                if (!existing) throw Error(ErrorKind::internal, "an idempotency key names no mint");
            } else {
                execute(c,
                        "INSERT INTO mint_requests (id, actor, kind, blockchain_id, idempotency_key, fingerprint, "
                        "state, answer, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', '', ?7, ?7)",
                        mint.id, mint.actor, to_string(mint.kind), mint.blockchain_id, mint.idempotency_key, mint.fingerprint,
                        now);
                if (job) {
                    execute(c,
                            "INSERT INTO mint_jobs (mint_id, blockchain_id, record, content, created_at) "
                            "VALUES (?, ?, ?, ?, ?)",
                            mint.id, job->blockchain_id, job->record, job->content, now);
                    notify(c, kMintQueuedChannel, mint.id);
                }
            }
            return existing;
        });
    }

    // Each of finish() and release() is one compare-and-set on the mint's row:
    // a block's worth of mints settling at once must not fail each other.
    bool finish(const std::string& id, MintState state, const std::string& answer) override {
        bool wrote_event = false;
        bool answered = false;
        const bool made_final = db_.row_transaction({}, [&](auto& c) {
            wrote_event = false;
            const auto answer_it = [&](const char* before) {
                return execute(c,
                               std::string("UPDATE mint_requests SET state = ?, answer = ?, updated_at = ? WHERE id = ? "
                                           "AND state = 'pending' AND answer ") +
                                   before,
                               state, answer, to_millis(now_millis()), id) == 1;
            };
            // A pending mint with an answer was answered before a reorg took
            // its block (Journal::settle): answered anew, not made final.
            const bool first = answer_it("= ''");
            answered = first || answer_it("<> ''");
            // Only an UPDATE that changed nothing asks whether the mint exists: a round trip less per mint.
            if (answered) {
                settled(c, id);
                wrote_event = write_mint_event<Db>(
                    c, state == MintState::done ? EventType::mint_confirmed : EventType::mint_failed, id);
            } else {
                require_mint(c, id);
            }
            return first;
        });
        if (answered && wrote_event) events_written();
        return made_final;
    }

    bool release(const std::string& id, const std::string& answer) override {
        bool wrote_event = false;
        const bool released = db_.row_transaction({}, [&](auto& c) {
            if (execute(c,
                        "UPDATE mint_requests SET state = 'failed', answer = ?, updated_at = ? "
                        "WHERE id = ? AND state = 'pending'",
                        answer, to_millis(now_millis()), id) == 1) {
                execute(c, "DELETE FROM idempotency_keys WHERE mint_id = ?", id);
                settled(c, id);
                wrote_event = write_mint_event<Db>(c, EventType::mint_failed, id);
                return true;
            }
            require_mint(c, id);
            return false;
        });
        if (released && wrote_event) events_written();
        return released;
    }

    bool reopen(const std::string& id) override {
        const std::int64_t now = to_millis(now_millis());
        return db_.transaction({}, [&](auto& c) {
            if (execute(c, "UPDATE mint_requests SET state = 'pending', answer = '', updated_at = ? WHERE id = ? AND state = 'failed'",
                        now, id) == 0) {
                require_mint(c, id);
                return false;
            }
            execute(c,
                    "INSERT INTO idempotency_keys (actor, kind, key, mint_id, created_at) SELECT actor, kind, "
                    "idempotency_key, id, ? FROM mint_requests WHERE id = ? AND idempotency_key != '' ON CONFLICT DO NOTHING",
                    now, id);
            return true;
        });
    }

    void announce_unsettled(const std::string& id) override {
        db_.run({}, [&](auto& c) { notify(c, kMintUnsettledChannel, id); });
    }

    std::optional<MintRequest> find(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kMintColumns, "FROM mint_requests WHERE id = ?"), read_mint, id);
        });
    }

    std::optional<MintRequest> find_by_key(const IdempotencyKey& key) override {
        return db_.run({}, [&](auto& c) { return mint_by_key(c, key); });
    }

    std::vector<std::string> final_among(const std::vector<std::string>& ids) override {
        // The ids bound as one JSON parameter: the statement stays prepared, never spliced.
        const std::string wanted = nlohmann::json(ids).dump();
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             "SELECT id FROM mint_requests WHERE state != 'pending' AND id IN (" +
                                 Db::json_array_values("?") + ")",
                             [](const auto& row) { return row.text("id"); }, wanted);
        });
    }

    std::vector<MintRequest> pending() override {
        return db_.run({}, [&](auto& c) {
            return query_all(
                c, select_columns(kMintColumns, "FROM mint_requests WHERE state = 'pending' ORDER BY created_at, rowid"),
                read_mint);
        });
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Mints> make_mints(Db& db) {
    return std::make_unique<SqlMints<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_mints, Mints)

}  // namespace abci::store::sql
