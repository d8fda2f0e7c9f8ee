// Role requests on SQLite.

#include "core/crypto/encoding.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kRoleRequestColumns =
    "id, user_id, role_type, wallet_address, blockchain_id, note, status, created_at, updated_at, approved_by, "
    "approved_at, tx_hash, block_number";
RoleRequest read_role_request(const Statement& s) {
    return RoleRequest{.id = text(s, "id"),
                       .user_id = text(s, "user_id"),
                       .role_type = text(s, "role_type"),
                       .wallet_address = text(s, "wallet_address"),
                       .blockchain_id = text(s, "blockchain_id"),
                       .note = text(s, "note"),
                       .status = enum_at(s, "status", parse_role_request_status),
                       .created_at = time_at(s, "created_at"),
                       .updated_at = time_at(s, "updated_at"),
                       .approved_by = text(s, "approved_by"),
                       .approved_at = optional_time_at(s, "approved_at"),
                       .tx_hash = text(s, "tx_hash"),
                       .block_number = unsigned_integer(s, "block_number")};
}

class SqliteRoleRequests final : public RoleRequests {
public:
    explicit SqliteRoleRequests(Db& db) : db_(db) {}

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
        db_.run({.not_found = "user not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO role_requests (id, user_id, role_type, wallet_address, blockchain_id, note, status, "
                    "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    created.id, created.user_id, created.role_type, created.wallet_address, created.blockchain_id,
                    created.note, created.status, to_millis(created.created_at),
                    to_millis(created.updated_at));
        });
        return created;
    }

    std::vector<RoleRequest> list(std::optional<RoleRequestStatus> status) override {
        return db_.run({}, [&](Database& db) {
            return query_all(
                db, select_columns(kRoleRequestColumns, "FROM role_requests WHERE ?1 IS NULL OR status = ?1 ORDER BY rowid"),
                read_role_request, status);
        });
    }

    std::optional<RoleRequest> find(const std::string& id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kRoleRequestColumns, "FROM role_requests WHERE id = ?"),
                             read_role_request, id);
        });
    }

    bool transition(const std::string& id, RoleRequestStatus from, RoleRequestStatus to,
                    const std::string& actor) override {
        // One UPDATE guarded by the expected status: writers are serialised,
        // so of two concurrent approvers exactly one sees a changed row.
        return db_.run({}, [&](Database& db) {
            return execute(db,
                           "UPDATE role_requests SET status = ?3, updated_at = ?5, "
                           "approved_by = CASE WHEN ?3 = 'approved' THEN ?4 ELSE approved_by END, "
                           "approved_at = CASE WHEN ?3 = 'approved' THEN ?5 ELSE approved_at END "
                           "WHERE id = ?1 AND status = ?2",
                           id, from, to, actor, to_millis(now_millis())) == 1;
        });
    }

    void set_minted(const std::string& id, const std::string& tx_hash, std::uint64_t block_number) override {
        db_.update_existing("role request not found", "SELECT 1 FROM role_requests WHERE id = ?1",
                            "UPDATE role_requests SET status = 'minted', tx_hash = ?2, block_number = ?3, "
                            "updated_at = ?4 WHERE id = ?1 AND NOT (status = 'minted' AND tx_hash = ?2 AND "
                            "block_number = ?3)",
                            id, tx_hash, block_number, to_millis(now_millis()));
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<RoleRequests> make_role_requests(Db& db) { return std::make_unique<SqliteRoleRequests>(db); }

}  // namespace abci::store::sqlite
