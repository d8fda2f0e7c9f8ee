// Certificates.

#include "core/crypto/encoding.hpp"
#include "core/store/sql/backends.hpp"
#include "core/store/sql/outbox.hpp"

namespace abci::store::sql {
namespace {

constexpr const char* kCertificateColumns =
    "id, user_id, blockchain_id, wallet_address, recipient, title, description, status, cid, token_id, tx_hash, "
    "block_number, token, created_at, updated_at";
constexpr auto read_certificate = [](const auto& row) {
    return Certificate{.id = row.text("id"),
                       .user_id = row.text("user_id"),
                       .blockchain_id = row.text("blockchain_id"),
                       .wallet_address = row.text("wallet_address"),
                       .recipient = row.text("recipient"),
                       .title = row.text("title"),
                       .description = row.text("description"),
                       .status = row.enum_at("status", parse_certificate_status),
                       .cid = row.text("cid"),
                       .token_id = row.unsigned_integer("token_id"),
                       .tx_hash = row.text("tx_hash"),
                       .block_number = row.unsigned_integer("block_number"),
                       .token = row.text("token"),
                       .created_at = row.time_at("created_at"),
                       .updated_at = row.time_at("updated_at")};
};

template <class Db>
class SqlCertificates final : public Certificates {
public:
    explicit SqlCertificates(Db& db) : db_(db) {}

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
        db_.run({.not_found = "user not found"}, [&](auto& c) {
            execute(c,
                    "INSERT INTO certificates (id, user_id, blockchain_id, wallet_address, recipient, title, "
                    "description, status, cid, token_id, tx_hash, block_number, token, created_at, updated_at) "
                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, '', 0, '', ?10, ?10)",
                    created.id, created.user_id, created.blockchain_id, created.wallet_address, created.recipient,
                    created.title, created.description, created.status, created.cid, to_millis(now));
        });
        return created;
    }

    std::optional<Certificate> find(const std::string& id) override {
        return db_.run({}, [&](auto& c) {
            return query_one(c, select_columns(kCertificateColumns, "FROM certificates WHERE id = ?"),
                             read_certificate, id);
        });
    }

    std::vector<Certificate> of_user(const std::string& user_id) override {
        return db_.run({}, [&](auto& c) {
            return query_all(c,
                             select_columns(kCertificateColumns, "FROM certificates WHERE user_id = ? ORDER BY rowid"),
                             read_certificate, user_id);
        });
    }

    void set_minted(const std::string& id, std::uint64_t token_id, const std::string& tx_hash,
                    std::uint64_t block_number, const std::string& token, const std::string& mint_id) override {
        bool wrote_event = false;
        const bool found = db_.transaction({}, [&](auto& c) {
            wrote_event = false;
            const bool issuing = exists(c, "SELECT 1 FROM certificates WHERE id = ?1 AND status = 'pending'", id);
            if (execute(c,
                        "UPDATE certificates SET status = 'minted', token_id = ?2, tx_hash = ?3, block_number = ?4, "
                        "token = ?5, updated_at = ?6 WHERE id = ?1 AND NOT (status = 'minted' AND token_id = ?2 AND "
                        "tx_hash = ?3 AND block_number = ?4 AND token = ?5)",
                        id, token_id, tx_hash, block_number, token, to_millis(now_millis())) == 0)
                return exists(c, "SELECT 1 FROM certificates WHERE id = ?1", id);
            if (issuing)
                wrote_event = write_event<Db>(
                    c, EventType::certificate_issued, id,
                    select_columns(kCertificateColumns, "FROM certificates WHERE id = ?1"),
                    [&](const auto& row) {
                        return CertificateEvent{.certificate = read_certificate(row), .mint_id = mint_id};
                    });
            return true;
        });
        if (!found) throw Error(ErrorKind::not_found, "certificate not found");
        if (wrote_event) events_written();
    }

private:
    Db& db_;
};

}  // namespace

template <class Db>
std::unique_ptr<Certificates> make_certificates(Db& db) {
    return std::make_unique<SqlCertificates<Db>>(db);
}

ABCI_STORE_REPOSITORY(make_certificates, Certificates)

}  // namespace abci::store::sql
