// Certificates on SQLite.

#include "core/crypto/encoding.hpp"
#include "core/store/sqlite/sqlite.hpp"

namespace abci::store::sqlite {
namespace {

constexpr const char* kCertificateColumns =
    "id, user_id, blockchain_id, wallet_address, recipient, title, description, status, cid, token_id, tx_hash, "
    "block_number, token, created_at, updated_at";
Certificate read_certificate(const Statement& s) {
    return Certificate{.id = text(s, "id"),
                       .user_id = text(s, "user_id"),
                       .blockchain_id = text(s, "blockchain_id"),
                       .wallet_address = text(s, "wallet_address"),
                       .recipient = text(s, "recipient"),
                       .title = text(s, "title"),
                       .description = text(s, "description"),
                       .status = enum_at(s, "status", parse_certificate_status),
                       .cid = text(s, "cid"),
                       .token_id = unsigned_integer(s, "token_id"),
                       .tx_hash = text(s, "tx_hash"),
                       .block_number = unsigned_integer(s, "block_number"),
                       .token = text(s, "token"),
                       .created_at = time_at(s, "created_at"),
                       .updated_at = time_at(s, "updated_at")};
}

class SqliteCertificates final : public Certificates {
public:
    explicit SqliteCertificates(Db& db) : db_(db) {}

    Certificate create(const NewCertificate& certificate) override {
        const TimePoint now = now_millis();
        Certificate created{.id = crypto::random_uuid(),
                            .user_id = certificate.user_id,
                            .blockchain_id = certificate.blockchain_id,
                            .wallet_address = certificate.wallet_address,
                            .recipient = certificate.recipient,
                            .title = certificate.title,
                            .description = certificate.description,
                            .status = CertificateStatus::pending,
                            .cid = certificate.cid,
                            .created_at = now,
                            .updated_at = now};
        db_.run({.not_found = "user not found"}, [&](Database& db) {
            execute(db,
                    "INSERT INTO certificates (id, user_id, blockchain_id, wallet_address, recipient, title, "
                    "description, status, cid, token_id, tx_hash, block_number, token, created_at, updated_at) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, '', 0, '', ?10, ?10)",
                    created.id, created.user_id, created.blockchain_id, created.wallet_address, created.recipient,
                    created.title, created.description, created.status, created.cid, to_millis(now));
        });
        return created;
    }

    std::optional<Certificate> find(const std::string& id) override {
        return db_.run({}, [&](Database& db) {
            return query_one(db, select_columns(kCertificateColumns, "FROM certificates WHERE id = ?"),
                             read_certificate, id);
        });
    }

    std::vector<Certificate> of_user(const std::string& user_id) override {
        return db_.run({}, [&](Database& db) {
            return query_all(db,
                             select_columns(kCertificateColumns, "FROM certificates WHERE user_id = ? ORDER BY rowid"),
                             read_certificate, user_id);
        });
    }

    void set_minted(const std::string& id, std::uint64_t token_id, const std::string& tx_hash,
                    std::uint64_t block_number, const std::string& token) override {
        db_.update_existing("certificate not found", "SELECT 1 FROM certificates WHERE id = ?1",
                            "UPDATE certificates SET status = 'minted', token_id = ?2, tx_hash = ?3, "
                            "block_number = ?4, token = ?5, updated_at = ?6 WHERE id = ?1 AND NOT (status = 'minted' "
                            "AND token_id = ?2 AND tx_hash = ?3 AND block_number = ?4 AND token = ?5)",
                            id, token_id, tx_hash, block_number, token, to_millis(now_millis()));
    }

private:
    Db& db_;
};

}  // namespace

std::unique_ptr<Certificates> make_certificates(Db& db) { return std::make_unique<SqliteCertificates>(db); }

}  // namespace abci::store::sqlite
