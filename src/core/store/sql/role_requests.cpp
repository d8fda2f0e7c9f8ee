// Role requests.

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"
#include "core/store/sql/outbox.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kRoleRequestColumns =
    "id, user_id, role_type, wallet_address, blockchain_id, note, status, created_at, updated_at, approved_by, "
    "approved_at, tx_hash, block_number, failure, attempt";
constexpr auto read_role_request = [](const auto& row) {
    return RoleRequest{.id = row.text("id"),
                       .user_id = row.text("user_id"),
                       .role_type = row.text("role_type"),
                       .wallet_address = row.text("wallet_address"),
                       .blockchain_id = row.text("blockchain_id"),
                       .note = row.text("note"),
                       .status = row.enum_at("status", parse_role_request_status),
                       .created_at = row.time_at("created_at"),
                       .updated_at = row.time_at("updated_at"),
                       .approved_by = row.text("approved_by"),
                       .approved_at = row.optional_time_at("approved_at"),
                       .tx_hash = row.text("tx_hash"),
                       .block_number = row.unsigned_integer("block_number"),
                       .failure = row.text("failure"),
                       .attempt = static_cast<std::uint32_t>(row.unsigned_integer("attempt"))};
};

// Attempts to file a request before giving up on a pending twin that keeps
// moving on between the insert and the look-up (each time, another was filed).
constexpr int kFilingAttempts = 8;

template <class Db>
class SqlRoleRequests final : public RoleRequests {
public:
    explicit SqlRoleRequests(Db& db) : db_(db) {}

    RoleRequest create(const NewRoleRequest& request) override {
        const TimePoint now = now_millis();
        RoleRequest created{.id = crypto::random_uuid(),
                            .user_id = request.user_id,
                            .role_type = request.role_type,
                            .wallet_address = request.wallet_address,
                            .blockchain_id = request.blockchain_id,
                            .note = request.note,
                            .status = RoleRequestStatus::pending,
                            .created_at = now,
                            .updated_at = now};
        bool wrote_event = false;
        // With its role_request.created, in one transaction (issue 34).
        db_.transaction({.not_found = "user not found"}, [&](auto& c) {
            wrote_event = false;
            // The partial unique index over pending requests decides, on
            // either backend and across servers: the insert that meets a
            // pending twin adds nothing, and the twin is named.
            for (int attempt = 1; attempt <= kFilingAttempts; ++attempt) {
                if (execute(c,
                            "INSERT INTO role_requests (id, user_id, role_type, wallet_address, blockchain_id, note, "
                            "status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                            "ON CONFLICT (wallet_address, role_type, blockchain_id) WHERE status = 'pending' DO NOTHING",
                            created.id, created.user_id, created.role_type, created.wallet_address,
                            created.blockchain_id, created.note, created.status, to_millis(created.created_at),
                            to_millis(created.updated_at)) == 1) {
                    wrote_event = write_role_request_event<Db>(c, EventType::role_request_created, created.id);
                    return;
                }
                const auto twin = query_one(
                    c,
                    "SELECT id FROM role_requests WHERE wallet_address = ? AND role_type = ? AND blockchain_id = ? "
                    "AND status = 'pending'",
                    [](const auto& row) { return row.text("id"); }, created.wallet_address, created.role_type,
                    created.blockchain_id);
                if (twin)
                    throw Error(ErrorKind::conflict,
                                "role request " + *twin + " asks for the same role for this wallet on this chain and is "
                                "still pending: it is the one an admin approves or rejects");
            }
            throw Error(ErrorKind::unavailable, "role requests for this wallet and role keep changing: file it again");
        });
        if (wrote_event) events_written();
        return created;
    }

    std::vector<RoleRequest> list(std::optional<RoleRequestStatus> status) override {
        return db_.run({}, [&](auto& c) {
            return query_all(
                c, select_columns(kRoleRequestColumns, "FROM role_requests WHERE CAST(?1 AS TEXT) IS NULL OR status = ?1 ORDER BY rowid"),
                read_role_request, status);
        });
    }

    std::optional<RoleRequest> find(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kRoleRequestColumns, "FROM role_requests WHERE id = ?"),
                             read_role_request, id);
        });
    }

    bool transition(const std::string& id, RoleRequestStatus from, RoleRequestStatus to,
                    const std::string& actor) override {
        // One UPDATE guarded by the expected status: writers are serialised,
        // so of two concurrent approvers exactly one sees a changed row, and
        // writes the role_request.approved (or .rejected) with it.
        bool wrote_event = false;
        const bool changed = db_.transaction({}, [&](auto& c) {
            wrote_event = false;
            const bool changed = execute(c,
                           "UPDATE role_requests SET status = ?3, updated_at = ?5, "
                           "approved_by = CASE WHEN ?3 = 'approved' THEN ?4 ELSE approved_by END, "
                           "approved_at = CASE WHEN ?3 = 'approved' THEN ?5 ELSE approved_at END, "
                           "failure = CASE WHEN ?3 = 'approved' THEN '' ELSE failure END, "
                           "attempt = CASE WHEN ?2 = 'failed' AND ?3 = 'approved' THEN attempt + 1 ELSE attempt END "
                           "WHERE id = ?1 AND status = ?2",
                           id, from, to, actor, to_millis(now_millis())) == 1;
            if (changed && to == RoleRequestStatus::approved)
                wrote_event = write_role_request_event<Db>(c, EventType::role_request_approved, id);
            else if (changed && to == RoleRequestStatus::rejected)
                wrote_event = write_role_request_event<Db>(c, EventType::role_request_rejected, id);
            return changed;
        });
        if (wrote_event) events_written();
        return changed;
    }

    bool fail(const std::string& id, const std::string& reason) override {
        return db_.run({}, [&](auto& c) {
            return execute(c,
                           "UPDATE role_requests SET status = 'failed', failure = ?2, updated_at = ?3 "
                           "WHERE id = ?1 AND status = 'approved'",
                           id, reason, to_millis(now_millis())) == 1;
        });
    }

    void set_minted(const std::string& id, const std::string& tx_hash, std::uint64_t block_number) override {
        update_existing(db_, "role request not found", "SELECT 1 FROM role_requests WHERE id = ?1",
                            "UPDATE role_requests SET status = 'minted', tx_hash = ?2, block_number = ?3, "
                            "updated_at = ?4 WHERE id = ?1 AND NOT (status = 'minted' AND tx_hash = ?2 AND "
                            "block_number = ?3)",
                            id, tx_hash, block_number, to_millis(now_millis()));
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<RoleRequests> make_role_requests(Db& db) {
    return std::make_unique<SqlRoleRequests<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_role_requests, RoleRequests)

}  // namespace abci::store::sql
