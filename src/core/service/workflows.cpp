#include "core/service/workflows.hpp"

#include "core/service/certificate_token.hpp"
#include "core/service/requests.hpp"
#include "core/service/tokens.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/util/next_steps.hpp"
#include "core/util/time.hpp"

namespace abci::service {

namespace {

// The platform role that goes with an on-chain role, where one exists
// (spec 5.4): a verifier token makes a farmer a verifier; nothing is ever
// taken away, and admins and developers keep their role. `holder` is the
// user the token's wallet is linked to.
void update_user_role(store::Store& store, const store::User& holder, const store::RoleRequest& request) {
    if (request.role_type == "verifier" && holder.role == "farmer") store.users().set_role(holder.id, "verifier");
}

// The user `wallet` (lower-case) is linked to, when that is `user_id`.
std::optional<store::User> linked_to(store::Store& store, const std::string& wallet, const std::string& user_id) {
    auto holder = store.credentials().find_user_by_wallet(wallet);
    if (!holder || holder->id != user_id) return std::nullopt;
    return holder;
}

// Why `user_id` may not issue a certificate on `blockchain_id`, and what an admin does about it.
Error no_certifier_wallet(store::Store& store, const std::string& user_id, const std::string& blockchain_id) {
    std::string why = "issuing a certificate requires a linked wallet holding the certifier role token on " +
                      blockchain_id + ", and ";
    std::string wallets;
    for (const auto& wallet : store.credentials().wallets_of(user_id))
        wallets += (wallets.empty() ? "" : ", ") + eth::Address::parse(wallet).checksummed();
    if (wallets.empty()) {
        const auto user = store.users().find_by_id(user_id);
        why += "you have no linked wallet: an admin links one with " +
               util::link_wallet_command(user ? user->email : "EMAIL", "ADDRESS") + " and mints it the token with " +
               util::mint_role_command("ADDRESS", "certifier", blockchain_id);
    } else {
        why += "none of yours (" + wallets + ") holds it: an admin mints it with " +
               util::mint_role_command(wallets.substr(0, wallets.find(',')), "certifier", blockchain_id);
    }
    return Error(ErrorKind::forbidden, why);
}

store::RoleRequest load(store::Store& store, const std::string& id) {
    auto request = store.role_requests().find(id);
    if (!request) throw Error(ErrorKind::not_found, "no role request " + id);
    return *request;
}

// Whether a failed mint refused the approval for good, as far as a retry of
// the same approval goes: what the caller or the chain said no to, rather
// than a node that did not answer or a dependency that was down.
bool refusal(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::invalid_input:
    case ErrorKind::not_found:
    case ErrorKind::conflict:
    case ErrorKind::forbidden:
    case ErrorKind::unprocessable:
    case ErrorKind::chain_rejected: return true;
    default: return false;
    }
}

// The Idempotency-Key of an approval's mint: one mint per approval whoever
// retries it, and each approval after a failure a mint of its own (the first
// keeps the request's id, the key of releases before failures were recorded).
std::string mint_key(const store::RoleRequest& request) {
    return request.attempt == 0 ? request.id : request.id + "/attempt-" + std::to_string(request.attempt);
}

// The mint an approval of `request` makes.
MintRoleRequest approval_mint(const store::RoleRequest& request) {
    const auto approved_at = request.approved_at.value_or(std::chrono::system_clock::now());
    MintRoleRequest mint{eth::Address::parse(request.wallet_address), *role_token(request.role_type),
                         request.blockchain_id, {}, {}};
    mint.approval.approval_id = request.id;
    mint.approval.approved_by = request.approved_by;
    mint.approval.approved_at = std::chrono::duration_cast<std::chrono::seconds>(approved_at.time_since_epoch()).count();
    if (!request.note.empty()) mint.approval.notes = request.note;
    // The fingerprint of the body the previous release built for this mint
    // and parsed back (its keys sorted, as nlohmann printed them), so that an
    // approval it began and this release retries is the same request.
    std::string legacy = "{\"blockchainId\":" + json_string(request.blockchain_id) +
                         ",\"metadata\":{\"approvalId\":" + json_string(request.id) +
                         ",\"approvedAt\":" + json_string(util::format_iso8601_utc(approved_at)) +
                         ",\"approvedBy\":" + json_string(request.approved_by);
    if (mint.approval.notes) legacy += ",\"notes\":" + json_string(*mint.approval.notes);
    legacy += "},\"roleType\":" + json_string(request.role_type) +
              ",\"userAddress\":" + json_string(mint.user_address.checksummed()) + "}";
    mint.legacy_fingerprint = crypto::sha256_hex(legacy);
    return mint;
}

}  // namespace

store::RoleRequest Workflows::file_role_request(store::NewRoleRequest request) {
    const auto user_id = request.user_id;
    (void)registry_.find(request.blockchain_id);  // an unknown chain is 404 now, not when an admin approves
    // One message whether the wallet is someone else's or nobody's: a
    // requester learns nothing about other users' wallets.
    if (!linked_to(store_, request.wallet_address, user_id)) {
        const auto wallet = eth::Address::parse(request.wallet_address).checksummed();
        const auto requester = store_.users().find_by_id(user_id);
        throw Error(ErrorKind::unprocessable,
                    "the wallet " + wallet + " is not linked to your account; ask an admin to link it to you (" +
                        util::link_wallet_command(requester ? requester->email : "EMAIL", wallet) +
                        "), then file the request again");
    }
    return store_.role_requests().create(std::move(request));
}

RoleApproval Workflows::approve_role_request(const std::string& id, const std::string& admin_id) {
    auto request = load(store_, id);
    if (request.status == store::RoleRequestStatus::rejected) throw Error(ErrorKind::conflict, "role request " + id + " was rejected");
    // Checked again: the link may have changed since the request was filed
    // (or the request predates the check at filing).
    const auto holder = linked_to(store_, request.wallet_address, request.user_id);
    if (!holder)
        throw Error(ErrorKind::unprocessable, "the wallet " + eth::Address::parse(request.wallet_address).checksummed() +
                                                  " of role request " + id +
                                                  " is no longer linked to the user who filed it; this approval "
                                                  "mints nothing, and the user may file a new request for a wallet of theirs");
    if (request.status == store::RoleRequestStatus::pending || request.status == store::RoleRequestStatus::failed) {
        // Of two admins approving at once, one records the approval; both go on to the same idempotent mint.
        (void)store_.role_requests().transition(id, request.status, store::RoleRequestStatus::approved, admin_id);
        request = load(store_, id);
    }
    std::optional<MintResult> mint;
    if (request.status == store::RoleRequestStatus::approved) {
        MintOptions options;
        options.actor = "workflow:role-request";
        options.idempotency_key = mint_key(request);
        options.role_request_id = request.id;
        options.origin = MintOrigin::workflow;
        try {
            mint = abci_.mint_role(approval_mint(request), options);
        } catch (const MintUnsettled&) {
            throw;  // signed, and perhaps mined yet: still approved
        } catch (const Error& e) {
            // Never approved for ever: the admin sees why, then rejects it or approves it again.
            if (refusal(e.kind())) (void)store_.role_requests().fail(id, e.what());
            throw;
        }
        request = load(store_, id);  // the mint marked it minted
    }
    update_user_role(store_, *holder, request);
    return {std::move(request), std::move(mint)};
}

store::RoleRequest Workflows::reject_role_request(const std::string& id, const std::string& admin_id) {
    // Compare-and-set from pending (or failed): an approval that got there first keeps its mint.
    auto& requests = store_.role_requests();
    if (!requests.transition(id, store::RoleRequestStatus::pending, store::RoleRequestStatus::rejected, admin_id) &&
        !requests.transition(id, store::RoleRequestStatus::failed, store::RoleRequestStatus::rejected, admin_id)) {
        const auto request = load(store_, id);
        if (request.status != store::RoleRequestStatus::rejected)
            throw Error(ErrorKind::conflict, "role request " + id + " is " + store::to_string(request.status) + ", not pending or failed: it can no longer be rejected");
    }
    return load(store_, id);
}

store::Certificate Workflows::issue_certificate(const std::string& user_id, const CertificateRequest& request) {
    const auto& blockchain_id = request.blockchain_id;
    // The caller's wallet that holds the certifier role token, as the chain says.
    const auto certifier_role = role_token("certifier");
    std::string certifier;
    for (const auto& wallet : store_.credentials().wallets_of(user_id)) {
        if (abci_.holds(eth::Address::parse(wallet), *certifier_role, blockchain_id)) {
            certifier = wallet;
            break;
        }
    }
    if (certifier.empty()) throw no_certifier_wallet(store_, user_id, blockchain_id);

    store::NewCertificate fresh{user_id, blockchain_id, certifier, request.recipient.lower(), request.title,
                                request.description, ""};
    const auto certificate = store_.certificates().create(fresh);
    const MintEntityRequest mint{request.recipient,
                                 *entity_token("certificate"),
                                 certificate.id,
                                 blockchain_id,
                                 1,
                                 {request.title, request.description, request.image, request.external_url,
                                  request.attributes},
                                 {}};
    MintOptions options;
    options.actor = user_id;
    options.idempotency_key = "certificate:" + certificate.id;
    options.origin = MintOrigin::workflow;
    const auto minted = abci_.mint_entity(mint, options);
    store_.certificates().set_minted(certificate.id, minted.token_id, minted.transaction_hash, minted.block_number,
                                     CertificateToken::of(minted).serialize(), minted.mint_id);
    return *store_.certificates().find(certificate.id);
}

store::Certificate Workflows::certificate(const std::string& id, const auth::Principal& caller) {
    auto found = store_.certificates().find(id);
    if (!found || (found->user_id != caller.id && !caller.is_admin()))
        throw Error(ErrorKind::not_found, "no certificate " + id);
    return *found;
}

std::vector<store::Certificate> Workflows::certificates_of(const std::string& user_id) {
    return store_.certificates().of_user(user_id);
}

}  // namespace abci::service
