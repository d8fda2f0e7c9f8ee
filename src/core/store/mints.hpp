#pragma once
// The mint requests the service accepted and the idempotency keys that name them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/mint_jobs.hpp"
#include "core/store/records.hpp"

namespace abci::store {

enum class MintState { pending, done, failed };
[[nodiscard]] const char* to_string(MintState state) noexcept;
[[nodiscard]] std::optional<MintState> parse_mint_state(std::string_view name) noexcept;

/// What a mint makes and who asked for it: a role or entity token through
/// its route, a role token for an approved role request, a certificate's
/// entity token. Stored by its name (mint_requests.kind,
/// idempotency_keys.kind, the journal's mint record): "role", "entity",
/// "workflow-role", "certificate". Rows written before the kind was stored
/// held a route's name; a schema migration made them kinds.
enum class MintKind { role, entity, workflow_role, certificate };
[[nodiscard]] const char* to_string(MintKind kind) noexcept;
[[nodiscard]] std::optional<MintKind> parse_mint_kind(std::string_view name) noexcept;
/// Every kind, in the order of the enum.
[[nodiscard]] const std::vector<MintKind>& all_mint_kinds();

/// An Idempotency-Key header as the service scopes it: per caller and kind of mint.
struct IdempotencyKey {
    std::string actor;
    MintKind kind;
    std::string key;
};

/// One mint request the service accepted (docs/api.md, "Mint status"): its
/// state and, once final, its answer; the transactions signed for it are
/// linked through the journal (JournalEntry::mint_ids, Journal::of_mint).
struct MintRequest {
    std::string id;               // UUID v4, chosen by the service
    std::string actor;            // user id or apikey:<id>
    MintKind kind = MintKind::role;
    std::string blockchain_id;
    std::string idempotency_key;  // the header's value; "" without one
    std::string fingerprint;      // service::Fingerprint::current ("2:…"), or an earlier release's body hash
    MintState state = MintState::pending;
    std::string answer;  // done: the answer's body; failed: {"kind", "message"} of the error
    TimePoint created_at;
    TimePoint updated_at;
};

class Mints {
public:
    virtual ~Mints() = default;
    /// Records a new pending mint and, when it carries an idempotency key,
    /// claims (actor, kind, key) for it. Returns nothing, or, when the key
    /// is claimed already, that key's mint unchanged (pending or final) and
    /// records nothing. Atomic: of two concurrent claims exactly one wins.
    /// With `job`, the mint is queued for the server that sends for its
    /// chain (mint_jobs.hpp) in the same transaction.
    [[nodiscard]] virtual std::optional<MintRequest> begin(const MintRequest& mint,
                                                           const std::optional<MintJob>& job = std::nullopt) = 0;
    /// Makes a pending mint final (done or failed, with its answer), its job
    /// gone; a final mint is left as it is. True when this call made it
    /// final. A mint that Journal::settle made pending again (answered, then
    /// its transaction reorged out and mined anew) gets this answer and its
    /// event as well, and false: it was made final once already.
    /// Error(not_found) for an unknown id.
    virtual bool finish(const std::string& id, MintState state, const std::string& answer) = 0;
    /// Makes a pending mint failed and frees its idempotency key, so that a
    /// retry with the key runs again: for a mint of which nothing was
    /// signed, or nothing can be mined any more. A final mint is left as it is.
    /// True when this call made it failed. Error(not_found) for an unknown id.
    virtual bool release(const std::string& id, const std::string& answer) = 0;
    /// Makes a failed mint pending again, and claims its idempotency key for
    /// it again unless a retry claimed it meanwhile: a transaction given up
    /// for it was mined after all (`admin journal abandon`), and what the
    /// chain holds is what the mint answers. True when it was failed.
    /// Error(not_found) for an unknown id.
    [[nodiscard]] virtual bool reopen(const std::string& id) = 0;
    /// Tells a server waiting for the mint that its sender stopped waiting
    /// for a receipt (kMintUnsettledChannel); the mint stays pending and
    /// nothing is written.
    virtual void announce_unsettled(const std::string& id) = 0;
    [[nodiscard]] virtual std::optional<MintRequest> find(const std::string& id) = 0;
    /// The mint an idempotency key names.
    [[nodiscard]] virtual std::optional<MintRequest> find_by_key(const IdempotencyKey& key) = 0;
    /// Those of `ids` that are final (done or failed): one query for many.
    [[nodiscard]] virtual std::vector<std::string> final_among(const std::vector<std::string>& ids) = 0;
    /// Mints still pending (for reconciliation at start), oldest first.
    [[nodiscard]] virtual std::vector<MintRequest> pending() = 0;
};

}  // namespace abci::store
