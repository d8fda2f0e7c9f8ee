// Role requests.

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kRoleRequestColumns =
    "id, user_id, role_type, wallet_address, blockchain_id, note, status, created_at, updated_at, approved_by, "
    "approved_at, tx_hash, block_number";
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
                       .block_number = row.unsigned_integer("block_number")};
};

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
        db_.run({.not_found = "user not found"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO role_requests (id, user_id, role_type, wallet_address, blockchain_id, note, status, "
                    "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    created.id, created.user_id, created.role_type, created.wallet_address, created.blockchain_id,
                    created.note, created.status, to_millis(created.created_at),
                    to_millis(created.updated_at));
        });
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
        // so of two concurrent approvers exactly one sees a changed row.
        return db_.run({}, [&](auto& c) {
            return execute(c,
                           "UPDATE role_requests SET status = ?3, updated_at = ?5, "
                           "approved_by = CASE WHEN ?3 = 'approved' THEN ?4 ELSE approved_by END, "
                           "approved_at = CASE WHEN ?3 = 'approved' THEN ?5 ELSE approved_at END "
                           "WHERE id = ?1 AND status = ?2",
                           id, from, to, actor, to_millis(now_millis())) == 1;
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
