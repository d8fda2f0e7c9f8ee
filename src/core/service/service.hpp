#pragma once
// The ABCI service: the operations of spec §4.1–4.8 with their rules and
// pre-flight checks (DESIGN.md §4). Front ends hand it typed requests and
// queries (requests.hpp, reads.hpp) and render the typed results it returns;
// every refusal is an abci::Error whose kind the front end maps
// (invalid_input 400 with details, not_found 404, conflict 409,
// unprocessable 422, unavailable 503; failures after a transaction was
// broadcast are chain_rejected or timeout and name its hash).
//
// Mints are durable: the transaction's purpose is journaled with its signed
// bytes before broadcast (TxSender + TxJournal), and reconcile() finishes at
// start what a crash interrupted, so a mint is recorded exactly once.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>


#include "core/service/balance_sync.hpp"
#include "core/service/health.hpp"
#include "core/service/mint_record.hpp"
#include "core/service/mint_result.hpp"
#include "core/service/requests.hpp"
#include "core/service/reads.hpp"
#include "core/service/registry.hpp"
#include "core/service/tokens.hpp"
#include "core/chain/receipt.hpp"
#include "core/chain/tx_sender.hpp"
#include "core/store/store.hpp"

namespace abci::content {
class ContentStore;
}

namespace abci::service {

/// A mint whose outcome is not known yet: its request ended (a receipt
/// timeout, the chain reset, a repeat of its Idempotency-Key while it runs)
/// while what was signed for it may still be mined. Front ends name the mint
/// and its transactions, so that the caller can ask for its outcome later.
class MintUnsettled : public Error {
public:
    MintUnsettled(ErrorKind kind, std::string message, std::string mint_id, std::vector<std::string> hashes)
        : Error(kind, std::move(message)), mint_id_(std::move(mint_id)), hashes_(std::move(hashes)) {}
    [[nodiscard]] const std::string& mint_id() const noexcept { return mint_id_; }
    /// Every transaction signed for it so far, oldest first.
    [[nodiscard]] const std::vector<std::string>& transaction_hashes() const noexcept { return hashes_; }

private:
    std::string mint_id_;
    std::vector<std::string> hashes_;
};

/// Whether a mint request waits for the mint's outcome.
enum class MintWait {
    yes,  // the answer is the outcome, as the receipt arrives (or a timeout naming the mint)
    // The answer comes once the mint is checked, claimed and queued as a job
    // (store/mint_jobs.hpp) in one transaction, before anything is signed:
    // MintResult::pending, the outcome left to the status route. The job is
    // sent as a forwarded mint is, by whichever server sends for the chain
    // (this one included), and outlives a crash of any of them.
    no,
};

/// Who asks for a mint: a caller of the mint routes, or a workflow (a role
/// request's approval mints a role, a certificate's issue an entity). With
/// what it makes, it is the mint's kind in the store (store::MintKind).
enum class MintOrigin { route, workflow };

struct MintOptions {
    std::string actor;  // who asks (user id or apikey:<id>); Idempotency-Keys are per actor and kind
    std::optional<std::string> idempotency_key;
    std::string role_request_id;  // set by the role-approval workflow: marked minted with the mint
    MintWait wait = MintWait::yes;
    MintOrigin origin = MintOrigin::route;
};

/// The Idempotency-Key rules: 1–255 printable ASCII characters.
void validate_idempotency_key(const std::string& key);

class AbciService {
public:
    /// All three must outlive the service. `admin_store`: the arguments by
    /// which an admin command reaches `store` (`--data-dir DIR`, or
    /// `--database-url URL …`), named in the hints to an admin that name one;
    /// empty names none.
    AbciService(store::Store& store, Registry& registry, content::ContentStore& content, std::string admin_store);

    /// POST /abci/contracts/mint-role-token (spec 4.1), its body read by
    /// wire::parse_mint_role() (or the request built by a workflow): the
    /// pre-flight checks run, then the mint waits for its receipt and the
    /// balance record is stored. With an idempotency key, a repeat gets the
    /// first result (Error(conflict) while the first is still running;
    /// Error(unprocessable) when the key was used for another request: the
    /// request's fingerprint differs). With MintWait::no, a mint
    /// not final yet (a new one, or a repeat of a pending one) returns
    /// MintResult::pending; a repeat of a final one its answer or error.
    [[nodiscard]] MintResult mint_role(const MintRoleRequest& request, const MintOptions& options);
    /// POST /abci/contracts/mint-entity-token (spec 4.2): the metadata record
    /// (spec 2.4) is stored in content storage first and its CID is the mint's data.
    [[nodiscard]] MintResult mint_entity(const MintEntityRequest& request, const MintOptions& options);

    /// GET /abci/contracts/token-balance (spec 4.3), reconciled with the chain.
    /// Error(not_found) for an unknown network.
    [[nodiscard]] TokenBalance token_balance(const TokenBalanceQuery& query);
    /// GET /abci/tokens/user-balance (spec 4.7), reconciled with the chain by
    /// one balanceOfBatch; when the chain cannot be reached the stored
    /// balances are returned and last_synced tells how old they are.
    [[nodiscard]] UserBalance user_balance(const UserBalanceQuery& query);
    /// Whether `wallet` holds token `kind` on `blockchain_id`, reconciled with
    /// the chain as token_balance() is (the stored balance when the chain does
    /// not answer). Error(not_found) for an unknown network.
    [[nodiscard]] bool holds(const eth::Address& wallet, const TokenKind& kind, const std::string& blockchain_id);
    /// GET /abci/blockchains/list (spec 4.4): networks not disabled, rpc URLs masked.
    [[nodiscard]] std::vector<NetworkListing> blockchains();
    /// GET /abci/blockchains/{id}/status (spec 4.5). Unreachable parts are
    /// none, and the reason is logged.
    [[nodiscard]] BlockchainStatus blockchain_status(const std::string& id);
    /// GET /abci/tokens/metadata/{tokenId} (spec 4.6, DESIGN.md §4): a role
    /// id's role record (for the query's user when named), or the latest entity
    /// minted with that id (or the one of its entity id). Error(not_found) for
    /// no such token, network or entity.
    [[nodiscard]] TokenMetadata token_metadata(const TokenMetadataQuery& query);
    /// GET /abci/contracts/mints/{id} (docs/api.md): the mint and its
    /// transactions. Error(not_found) for an unknown id or, unless
    /// `any_actor`, another actor's mint.
    [[nodiscard]] MintStatus mint_status(const std::string& mint_id, const std::string& actor, bool any_actor);
    /// The same for the mint `actor` requested with Idempotency-Key `key`.
    [[nodiscard]] MintStatus mint_status_by_key(const std::string& key, const std::string& actor);

    /// GET /abci/health (spec 4.8): every check runs at once with a short
    /// deadline. Per network: network:<id> (the node answers with the
    /// configured chain id), contract:<id> (code at the address, its
    /// version()), minter:<id> (the signer holds MINTER_ROLE) and signer:<id>
    /// (funded, nothing stuck); then contentStorage and database.
    [[nodiscard]] HealthReport health();
    /// GET /readyz and the start-up checks: the database and the network
    /// checks of every chain that is not disabled, each failing check with a
    /// message that says what to fix.
    [[nodiscard]] HealthReport readiness();

    /// Starts sending, as `owner` (this server's name in the lanes' rows):
    /// reconcile(), then a thread of its own keeps the lanes, about every
    /// half second: renews them, takes over those whose owner died or froze
    /// (reconciling what it left), and stops sending for one it lost. Call
    /// once, before serving.
    void start(const std::string& owner);
    /// Takes the lanes (store/lanes.hpp) of the networks this server signs
    /// for that no other server owns, each under a new term whose sender
    /// gets back what the journal holds unsettled (sent again, settled as
    /// live ones are, recorded when the chain settles them); then, for the
    /// networks it sends for (or has no signer for), mints of which nothing
    /// was journaled release their Idempotency-Key and mints mined before the
    /// stop get their bookkeeping. Never throws for an unreachable network
    /// (what it cannot settle now stays pending).
    void reconcile();
    /// Stops the lanes' thread and gives the lanes up, so that another
    /// server takes them over at once.
    ~AbciService();
    AbciService(const AbciService&) = delete;
    AbciService& operator=(const AbciService&) = delete;

private:
    struct Mint;
    // What prepare() made of a mint: the record to journal and the metadata its CID names.
    struct PreparedMint {
        MintRecord record;
        std::string metadata;
    };
    [[nodiscard]] MintResult mint(Mint mint, const MintOptions& options, const Fingerprint& fingerprint);
    // Error(unavailable) naming the halt when the network's lane is halted (store/lanes.hpp).
    void refuse_if_halted(Network& network);
    [[nodiscard]] static store::MintRequest new_request(const Mint& mint, const MintOptions& options,
                                                        const Fingerprint& fingerprint);
    // A claim that found its key taken: the first mint's answer (replay()),
    // MintResult::accepted() for a caller that does not wait while it is
    // pending, or Error(unprocessable) when the key was used for another request.
    [[nodiscard]] MintResult repeat(const store::MintRequest& mint, const Fingerprint& fingerprint, MintWait wait);
    // A repeat of an Idempotency-Key: the first answer, or its error, or
    // MintUnsettled(conflict) while the first is still running.
    [[nodiscard]] MintResult replay(const store::MintRequest& mint, const std::string& pending_message);
    [[nodiscard]] MintUnsettled unsettled(ErrorKind kind, const std::string& message, const std::string& mint_id);
    // Fails a mint of which nothing can be mined, freeing its Idempotency-Key;
    // true when this call made it final.
    bool release(const std::string& mint_id, const Error& why);
    // release() for a mint of which nothing was signed because of `e`; the
    // error to answer (a silent node in plain words).
    [[nodiscard]] Error released(Network& network, const std::string& mint_id, const Error& e);
    [[nodiscard]] MintResult submit_and_wait(Network& network, Network::Term& term, const Mint& mint,
                                             const MintOptions& options, const std::string& mint_id);
    // Sends the mint `record` describes under `term` and waits for its
    // outcome, which it stores for the mint's id and returns or throws;
    // `queued`: another server took it (forwarding.cpp).
    MintResult send(Network& network, Network::Term& term, const MintRecord& record, bool queued);
    // The pre-flight checks and the metadata record.
    [[nodiscard]] PreparedMint prepare(Network& network, const Mint& mint, const MintOptions& options,
                                       const std::string& mint_id);
    // Forwarding (forwarding.cpp): a mint for a network whose lane another
    // server owns is checked and claimed here, queued for the owner with its
    // claim, and answered once the owner settled it.
    [[nodiscard]] MintResult forward(const Mint& mint, const MintOptions& options, const Fingerprint& fingerprint);
    // A mint whose caller does not wait (MintWait::no): queued as a forwarded
    // one is, for whichever server sends for its chain, and answered pending.
    [[nodiscard]] MintResult accept(const Mint& mint, const MintOptions& options, const Fingerprint& fingerprint);
    // What enqueue() did: queued mint `mint_id`, or found its key's mint `existing`.
    struct Enqueued {
        std::string mint_id;
        std::optional<store::MintRequest> existing;
    };
    // The pre-flight checks, then the mint claimed and queued as a job in one transaction.
    [[nodiscard]] Enqueued enqueue(const Mint& mint, const MintOptions& options, const Fingerprint& fingerprint);
    [[nodiscard]] MintResult await_forwarded(Network& network, const std::string& mint_id);
    // The jobs' thread (the listener's, when other servers share the store):
    // wakes the requests waiting for a settled mint and takes the jobs
    // queued for the lanes this server owns.
    void start_forwarding();
    void stop_forwarding();
    void listen_for_other_servers();
    // Sends each of these queued mints whose chain this server sends for now.
    void take_jobs(const std::vector<std::string>& mint_ids);
    void send_queued(Network& network, const std::shared_ptr<Network::Term>& term, const store::MintJob& job);
    [[nodiscard]] static Error reverted(const chain::Receipt& receipt);
    // A mint whose transaction reverted with nobody waiting: final when it
    // went alone; `batched`, nothing of it was minted and the revert may be
    // another mint's of the batch (a waiting caller's mint is then sent
    // alone), so its key is freed for a retry to send it anew.
    void settle_reverted(Network& network, const std::string& mint_id, const MintRecord& record,
                         const chain::Receipt& receipt, bool batched);
    // The bookkeeping of a mined mint, from its journaled record: records,
    // the mint's answer, role request; a mint answered as failed meanwhile
    // (its transaction given up) is made minted, with a warning. Returns the answer.
    MintResult finish(Network& network, const std::string& mint_id, const MintRecord& record,
                      const chain::Receipt& receipt);
    // The sender's report on a transaction nobody waited for.
    void settle_unwaited(Network& network, const chain::Unwaited& fate);
    void reconcile(const store::MintRequest& mint);
    // At a lane's take: the transactions given up on its chain (`admin journal
    // abandon`) that the chain shows landed after all are settled as such,
    // and the mints they carried are minted again (finish()).
    void settle_abandoned(Network& network);
    // One round of the lanes: each signing network's lane held, taken or let go.
    void keep_lanes();
    // A lane just taken: a term whose sender adopts the journal's unsettled
    // transactions and whose mints left pending are settled, made current
    // only then, so that no request's mint can be taken for a leftover.
    void take_over(Network& network, const store::LaneFence& fence);
    // Whether this server may send for a lane it took or sends for: not halted, and
    // the signer's chain nonce not ahead of what the journal and the lane's
    // accepted start account for (else the lane is halted now, saying why).
    [[nodiscard]] bool signer_nonce_agrees(Network& network, const store::LaneFence& fence);
    // The owner's stuck transactions written to its lane when they changed,
    // so that every server's health shows them.
    void report_stuck(Network& network, Network::Term& term);
    // Reads the signer's balance for the metrics and records it against its
    // floor, which writes signer.balance_low when it falls below.
    void watch_signer_balance(Network& network, const store::LaneFence& fence);
    void settle_pending_mints(const std::function<bool(const std::string& blockchain_id)>& ours);

    store::Store& store_;
    Registry& registry_;
    content::ContentStore& content_;
    const std::string admin_store_;
    BalanceSync balances_;
    std::string owner_;
    std::unique_ptr<store::LaneElection> election_;  // made by the first reconcile()
    std::mutex lanes_mutex_;                        // guards stopping_
    std::condition_variable lanes_wake_;
    bool stopping_ = false;
    std::set<std::string> reported_halts_;  // lanes whose halt was logged (the lanes' thread only)
    // What report_stuck() last wrote per lane this server owns (the lanes' thread only).
    std::map<std::string, std::vector<store::StuckTransaction>> reported_stuck_;
    // When signer_nonce_agrees() last ran for each lane (the lanes' thread only).
    std::map<std::string, std::chrono::steady_clock::time_point> nonce_checked_;
    std::thread lanes_thread_;  // stopped first
    struct Forwarding;
    std::unique_ptr<Forwarding> forwarding_;  // set by start()
};

}  // namespace abci::service
