#pragma once
// Certificates: a certifier's entity token, from stored metadata to the mint.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

enum class CertificateStatus { pending, minted };  // pending: metadata stored, not yet minted
[[nodiscard]] const char* to_string(CertificateStatus status) noexcept;
[[nodiscard]] std::optional<CertificateStatus> parse_certificate_status(std::string_view name) noexcept;

struct Certificate {
    std::string id;  // UUID v4, assigned by the store
    std::string user_id;
    std::string blockchain_id;
    std::string wallet_address;  // lower-case: the certifier's wallet
    std::string recipient;       // lower-case: who receives the entity token
    std::string title;
    std::string description;
    CertificateStatus status = CertificateStatus::pending;
    std::string cid;
    std::uint64_t token_id = 0;
    std::string tx_hash;
    std::uint64_t block_number = 0;
    std::string token;  // JSON: the mint's token details as returned to the caller
    TimePoint created_at;
    TimePoint updated_at;
};

struct NewCertificate {
    std::string user_id;
    std::string blockchain_id;
    std::string wallet_address;
    std::string recipient;
    std::string title;
    std::string description;
    std::string cid;
};

class Certificates {
public:
    virtual ~Certificates() = default;
    /// A new pending certificate. Error(not_found) when the user does not exist.
    [[nodiscard]] virtual Certificate create(const NewCertificate& certificate) = 0;
    [[nodiscard]] virtual std::optional<Certificate> find(const std::string& id) = 0;
    /// The user's certificates, oldest first.
    [[nodiscard]] virtual std::vector<Certificate> of_user(const std::string& user_id) = 0;
    /// Stores the mined token details and sets it minted; idempotent. The
    /// first time, certificate.issued (naming `mint_id`, the mint that minted
    /// it) goes to the webhook outbox in the same transaction.
    /// Error(not_found) for an unknown id.
    virtual void set_minted(const std::string& id, std::uint64_t token_id, const std::string& tx_hash,
                            std::uint64_t block_number, const std::string& token, const std::string& mint_id) = 0;
};

}  // namespace abci::store
