#pragma once
// Requests for a role token, from a user's ask to the admin's decision and the mint.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

// pending → approved → minted, or pending → rejected. An approval the chain
// or the mint's pre-flight refuses moves approved → failed (with the reason),
// from where an admin rejects it or approves it again.
enum class RoleRequestStatus { pending, approved, minted, rejected, failed };
[[nodiscard]] const char* to_string(RoleRequestStatus status) noexcept;
[[nodiscard]] std::optional<RoleRequestStatus> parse_role_request_status(std::string_view name) noexcept;
/// Every status's name, in the order of the enum.
[[nodiscard]] std::vector<std::string> role_request_status_names();

struct RoleRequest {
    std::string id;  // UUID v4
    std::string user_id;
    std::string role_type;       // producer | verifier | valuator | certifier
    std::string wallet_address;  // lower-case 0x address
    std::string blockchain_id;
    std::string note;
    RoleRequestStatus status = RoleRequestStatus::pending;
    TimePoint created_at;
    TimePoint updated_at;
    // Set by the approval workflow.
    std::string approved_by;  // admin's user id
    std::optional<TimePoint> approved_at;
    std::string tx_hash;  // the role mint, once mined
    std::uint64_t block_number = 0;
    std::string failure;        // why the last approval failed; empty unless it did
    std::uint32_t attempt = 0;  // approvals after a failure: each mints under a key of its own
};

struct NewRoleRequest {
    std::string user_id;
    std::string role_type;
    std::string wallet_address;
    std::string blockchain_id;
    std::string note;
};

class RoleRequests {
public:
    virtual ~RoleRequests() = default;
    /// A new pending request. Error(not_found) when the user does not exist;
    /// Error(conflict) naming the pending request when one for the same
    /// wallet, role and chain is pending already (atomic: of concurrent
    /// identical requests exactly one is filed, whichever server files them).
    [[nodiscard]] virtual RoleRequest create(const NewRoleRequest& request) = 0;
    /// All role requests, oldest first; only those with `status` when given.
    [[nodiscard]] virtual std::vector<RoleRequest> list(std::optional<RoleRequestStatus> status) = 0;
    [[nodiscard]] virtual std::optional<RoleRequest> find(const std::string& id) = 0;
    /// Moves the request from `from` to `to` (compare-and-set); false when it
    /// is not in `from` (another approver got there first). Moving to
    /// approved also sets approved_by/approved_at from `actor`/now and clears
    /// the failure; moving there from failed counts an attempt.
    [[nodiscard]] virtual bool transition(const std::string& id, RoleRequestStatus from, RoleRequestStatus to,
                                          const std::string& actor) = 0;
    /// Moves an approved request to failed with `reason` (compare-and-set);
    /// false when it is not approved (its mint was recorded meanwhile).
    [[nodiscard]] virtual bool fail(const std::string& id, const std::string& reason) = 0;
    /// Records the mined role mint on the request and sets it minted; idempotent.
    /// Error(not_found) for an unknown id.
    virtual void set_minted(const std::string& id, const std::string& tx_hash, std::uint64_t block_number) = 0;
};

}  // namespace abci::store
