#pragma once
// The two workflows of spec §1 that use ABCI (DESIGN.md §4):
//  - role approval: record the approval → mint the role token → update the
//    user's roles. Each step is idempotent and keyed by the request, so a
//    failure or crash between steps is finished by a retry (or by the
//    journal's reconciliation at start) and never mints twice;
//  - certification: a certifier's certificate → metadata in content storage
//    → entity token minted → token details stored with the certificate.

#include <optional>
#include <string>

#include "core/auth/auth_service.hpp"
#include "core/service/requests.hpp"
#include "core/service/service.hpp"
#include "core/store/store.hpp"

namespace abci::service {

/// An approved role request and the mint it caused.
struct RoleApproval {
    store::RoleRequest request;
    std::optional<MintResult> mint;  // none when the request was minted earlier
};

class Workflows {
public:
    /// All three must outlive this object.
    Workflows(store::Store& store, Registry& registry, AbciService& abci)
        : store_(store), registry_(registry), abci_(abci) {}

    /// Files `request`, a role request of its user (spec §1; read by
    /// wire::parse_role_request()). The chain must
    /// be configured (Error(not_found), as the mint's pre-flight says). The
    /// wallet must be linked to the requester: the token goes to the wallet
    /// and the platform role to the user, so they must be one person
    /// (Error(unprocessable) otherwise, whoever the wallet belongs to).
    /// Error(conflict) naming the request when the same wallet, role and
    /// chain have one pending already.
    [[nodiscard]] store::RoleRequest file_role_request(store::NewRoleRequest request);

    /// Approves role request `id` (pending, or failed: a retry) on behalf of
    /// admin `admin_id` and carries it through to minted. Returns the
    /// request and the mint's result (none when the request was already
    /// minted earlier). Error(not_found) for an unknown request;
    /// Error(unprocessable) when its wallet is no longer linked to its
    /// requester (nothing is recorded or minted then); Error(conflict) when it
    /// was rejected, or its mint is still running (retry later). Otherwise the
    /// mint's own errors: a refusal (the wallet holds the role already, the
    /// chain is unknown or inactive, the chain reverted the mint…) moves the
    /// request to failed with the reason; a mint that may still land or a
    /// node that did not answer leaves it approved, and a retry continues
    /// from there.
    [[nodiscard]] RoleApproval approve_role_request(const std::string& id, const std::string& admin_id);

    /// Rejects role request `id` (pending or failed; admin `admin_id`);
    /// rejecting it again changes nothing. Returns the request.
    /// Error(not_found) for an unknown request, Error(conflict) when it is
    /// approved or minted already.
    [[nodiscard]] store::RoleRequest reject_role_request(const std::string& id, const std::string& admin_id);

    /// Issues `request`, a certificate from the certifier `user_id` (spec §1;
    /// read by wire::parse_certificate()). Requires that one of the user's linked
    /// wallets holds the certifier role token on that chain (Error(forbidden)).
    /// Returns the certificate with its token details.
    [[nodiscard]] store::Certificate issue_certificate(const std::string& user_id, const CertificateRequest& request);

    /// Certificate `id` as `caller` may read it: their own, or any for an
    /// admin. Someone else's is as absent as a missing one: Error(not_found).
    [[nodiscard]] store::Certificate certificate(const std::string& id, const auth::Principal& caller);
    /// The certificates `user_id` issued, oldest first.
    [[nodiscard]] std::vector<store::Certificate> certificates_of(const std::string& user_id);

private:
    store::Store& store_;
    Registry& registry_;
    AbciService& abci_;
};

}  // namespace abci::service
