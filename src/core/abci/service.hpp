#pragma once
// The ABCI service: the operations of spec §4.1–4.8 with their rules and
// pre-flight checks (DESIGN.md §4). Front ends hand it the request's fields
// and get the spec's response body; every refusal is an abci::Error whose
// kind the front end maps (invalid_input 400 with details, not_found 404,
// conflict 409, unprocessable 422, unavailable 503; failures after a
// transaction was broadcast are chain_rejected or timeout and name its hash).
//
// Mints are durable: the transaction's purpose is journaled with its signed
// bytes before broadcast (TxSender + TxJournal), and reconcile() finishes at
// start what a crash interrupted, so a mint is recorded exactly once.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/abci/balance_sync.hpp"
#include "core/abci/registry.hpp"
#include "core/chain/receipt.hpp"

namespace abci::content {
class ContentStore;
}

namespace abci::service {

/// A response body and its HTTP status: 200 with the spec's envelope
/// {success, data, metadata}, or a replayed earlier answer (Idempotency-Key).
struct Answer {
    int status = 200;
    nlohmann::json body;
};

struct MintOptions {
    std::string actor;  // who asks (user id or apikey:<id>); Idempotency-Keys are per actor
    std::optional<std::string> idempotency_key;
    std::string role_request_id;  // set by the role-approval workflow: marked minted with the mint
};

/// The Idempotency-Key rules: 1–255 printable ASCII characters.
void validate_idempotency_key(const std::string& key);

class AbciService {
public:
    /// All three must outlive the service.
    AbciService(store::Store& store, Registry& registry, content::ContentStore& content);

    /// POST /abci/contracts/mint-role-token (spec 4.1). The body is validated
    /// (every problem in Error::details), then the pre-flight checks run, then
    /// the mint waits for its receipt and the balance record is stored.
    /// With an idempotency key, a repeat gets the first answer (Error(conflict)
    /// while the first is still running; Error(unprocessable) when the key was
    /// used for another body).
    [[nodiscard]] Answer mint_role(const nlohmann::json& body, const MintOptions& options);
    /// POST /abci/contracts/mint-entity-token (spec 4.2): the metadata record
    /// (spec 2.4) is stored in content storage first and its CID is the mint's data.
    [[nodiscard]] Answer mint_entity(const nlohmann::json& body, const MintOptions& options);

    /// GET /abci/contracts/token-balance (spec 4.3), reconciled with the chain.
    [[nodiscard]] nlohmann::json token_balance(const std::optional<std::string>& user_address,
                                               const std::optional<std::string>& token_id,
                                               const std::optional<std::string>& blockchain_id);
    /// GET /abci/tokens/user-balance (spec 4.7), reconciled with the chain by
    /// one balanceOfBatch; when the chain cannot be reached the stored
    /// balances are returned and lastSynced tells how old they are.
    [[nodiscard]] nlohmann::json user_balance(const std::optional<std::string>& user_address,
                                              const std::optional<std::string>& blockchain_id);
    /// GET /abci/blockchains/list (spec 4.4): networks not disabled, rpc URLs masked.
    [[nodiscard]] nlohmann::json blockchains();
    /// GET /abci/blockchains/{id}/status (spec 4.5). Unreachable parts are null
    /// and reported in health; status is healthy or degraded.
    [[nodiscard]] nlohmann::json blockchain_status(const std::string& id);
    /// GET /abci/tokens/metadata/{tokenId} (spec 4.6, DESIGN.md §4): a role
    /// id's role record (for `user_address` when given), or the latest entity
    /// minted with that id (or the one of `entity_id`).
    [[nodiscard]] nlohmann::json token_metadata(const std::string& token_id,
                                                const std::optional<std::string>& blockchain_id,
                                                const std::optional<std::string>& entity_id,
                                                const std::optional<std::string>& user_address);
    /// GET /abci/health (spec 4.8): every check runs at once with a short deadline.
    [[nodiscard]] Answer health();

    /// Settles what the journal holds pending (a crash or stop with mints in
    /// flight): mined transactions are recorded and their idempotent answers
    /// stored; unmined ones are sent again and recorded when mined; requests
    /// that never reached the chain release their Idempotency-Key. Call once at
    /// start, before serving. Never throws for an unreachable network (its
    /// entries stay pending until the next start).
    void reconcile();

private:
    struct Mint;
    [[nodiscard]] Answer mint(Mint mint, const MintOptions& options, const nlohmann::json& body);
    [[nodiscard]] Answer submit_and_wait(Network& network, const Mint& mint, const MintOptions& options);
    // The bookkeeping of a mined mint, from its journaled purpose: records,
    // idempotent answer, role request. Returns the answer.
    Answer finish(Network& network, const nlohmann::json& purpose, const chain::Receipt& receipt);
    void reconcile(Network& network);

    store::Store& store_;
    Registry& registry_;
    content::ContentStore& content_;
    BalanceSync balances_;
};

}  // namespace abci::service
