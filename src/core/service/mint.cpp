// A mint and its Idempotency-Key, up to its receipt: the request's body
// checked, the key claimed (or replayed), the pre-flight checks, the metadata
// stored, the transaction handed to the network's sender, and every way that
// can fail mapped to an error that says whether anything was signed.
#include <algorithm>

#include "core/service/mint_record.hpp"
#include "core/service/requests.hpp"
#include "core/service/service.hpp"
#include "core/service/service_parts.hpp"
#include "core/service/tokens.hpp"
#include "core/content/content_store.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/eth/address.hpp"
#include "core/rpc/client.hpp"
#include "core/store/store.hpp"
#include "core/util/log.hpp"
#include "core/util/next_steps.hpp"

namespace abci::service {

namespace {

std::string lower_address(const eth::Address& a) { return a.lower(); }

}  // namespace


namespace {

// The 409 of a role mint for a wallet that holds that role.
Error role_held(const eth::Address& to, const TokenKind& kind) {
    return Error(ErrorKind::conflict, to.checksummed() + " already holds the " + std::string(kind.category) + " role token");
}

}  // namespace

MintResult AbciService::mint_role(const MintRoleRequest& request, const MintOptions& options) {
    Mint m;
    m.mint_kind = options.origin == MintOrigin::workflow ? store::MintKind::workflow_role : store::MintKind::role;
    m.to = request.user_address;
    m.kind = request.kind;
    m.metadata = role_metadata(request.kind, request.attributes());
    m.network = &registry_.find(request.blockchain_id);
    return mint(std::move(m), options, request.fingerprint());
}

MintResult AbciService::mint_entity(const MintEntityRequest& request, const MintOptions& options) {
    Mint m;
    m.mint_kind = options.origin == MintOrigin::workflow ? store::MintKind::certificate : store::MintKind::entity;
    m.to = request.user_address;
    m.kind = request.kind;
    m.amount = request.amount;
    m.entity_type = std::string(request.kind.category);
    m.entity_id = request.entity_id;
    m.metadata = request.metadata;
    m.metadata.attributes.push_back({"entityId", request.entity_id, std::nullopt});
    m.network = &registry_.find(request.blockchain_id);
    return mint(std::move(m), options, request.fingerprint());
}

MintResult AbciService::mint(Mint m, const MintOptions& options, const Fingerprint& fingerprint) {
    if (options.idempotency_key) validate_idempotency_key(*options.idempotency_key);
    // Without a signer here the mint is refused below, as for a caller that waits.
    if (options.wait == MintWait::no && forwarding_ && m.network->has_signer()) return accept(m, options, fingerprint);
    // Taken before the key is claimed: a mint begun under this term is never
    // one a takeover settles as left over (take_over() makes a term current
    // only after that).
    std::shared_ptr<Network::Term> term = m.network->current_term();
    // Another server sends for this network: it gets the mint through the database.
    if (!term && forwarding_ && forwarding_->shared() && m.network->has_signer()) return forward(m, options, fingerprint);
    try {
        if (!term) term = m.network->term();
    } catch (const Error&) {
        // A repeat of a key is still answered here.
        const auto existing = options.idempotency_key ? store_.mints().find_by_key({options.actor, m.mint_kind, *options.idempotency_key})
                                                      : std::nullopt;
        if (existing) return repeat(*existing, fingerprint, options.wait);
        if (m.network->has_signer()) refuse_if_halted(*m.network);
        throw;
    }
    const auto request = new_request(m, options, fingerprint);
    if (auto existing = store_.mints().begin(request)) return repeat(*existing, fingerprint, options.wait);
    try {
        return submit_and_wait(*m.network, *term, m, options, request.id);
    } catch (const LaneLost&) {
        // Taken in the moment between another server taking the lane and
        // this one noticing: that server sends it, as any mint taken here now.
        if (!forwarding_ || !forwarding_->shared()) throw;
        return forward(m, options, fingerprint);
    }
}

void AbciService::refuse_if_halted(Network& network) {
    if (const auto lane = store_.lanes().find(network.lane()); lane && !lane->halted.empty())
        throw Error(ErrorKind::unavailable,
                    "no server sends for blockchain " + network.config().id + ": its lane is halted: " + lane->halted);
}

store::MintRequest AbciService::new_request(const Mint& m, const MintOptions& options, const Fingerprint& fingerprint) {
    store::MintRequest request;
    request.id = crypto::random_uuid();
    request.actor = options.actor;
    request.kind = m.mint_kind;
    request.blockchain_id = m.network->config().id;
    request.idempotency_key = options.idempotency_key.value_or("");
    request.fingerprint = fingerprint.current;
    return request;
}

MintResult AbciService::repeat(const store::MintRequest& mint, const Fingerprint& fingerprint, MintWait wait) {
    if (!fingerprint.matches(mint.fingerprint))
        throw Error(ErrorKind::unprocessable, "this Idempotency-Key was used for a different request");
    if (wait == MintWait::no && mint.state == store::MintState::pending) return MintResult::accepted(mint.id);
    return replay(mint, "a request with this Idempotency-Key is still in progress");
}

MintResult AbciService::replay(const store::MintRequest& mint, const std::string& pending_message) {
    if (mint.state == store::MintState::done) {
        auto result = MintResult::parse(mint.answer);
        result.mint_id = mint.id;
        return result;
    }
    if (mint.state == store::MintState::failed) {
        throw MintFailure::parse(mint.answer).error();
    }
    throw unsettled(ErrorKind::conflict, pending_message, mint.id);
}

MintUnsettled AbciService::unsettled(ErrorKind kind, const std::string& message, const std::string& mint_id) {
    std::vector<std::string> hashes;
    for (const auto& tx : store_.journal().of_mint(mint_id)) hashes.push_back(tx.hash);
    return MintUnsettled(kind, message, mint_id, std::move(hashes));
}

bool AbciService::release(const std::string& mint_id, const Error& why) {
    try {
        return store_.mints().release(mint_id, MintFailure::of(why).serialize());
    } catch (const Error& e) {
        // The claim stays pending: the next start finds nothing was signed and releases it.
        util::log(util::LogLevel::error, "releasing a mint that sent nothing failed",
                  {{"mintId", mint_id}, {"error", e.what()}});
        return false;
    }
}

namespace {

/// Whether `never_mined` came of a node that did not answer (rpc::Unreachable, nested by PendingMint::wait).
bool silent_node(const chain::NeverMined& never_mined) {
    try {
        std::rethrow_if_nested(never_mined);
    } catch (const rpc::Unreachable&) {
        return true;
    } catch (const std::exception&) {
        return false;  // another cause: the refusal's own message says it
    }
    return false;
}

/// A mint that was not sent because the node did not answer, in plain words;
/// the RPC client's own (batch label, attempts, retries) stay in details.
Error node_silent(Network& network, const Error& raw) {
    const auto& id = network.config().id;
    return Error(raw.kind(),
                 "the node of blockchain '" + id + "' (" + network.masked_rpc_url() +
                     ") did not answer, so nothing was sent: try again later; GET /abci/blockchains/" + id +
                     "/status shows its state",
                 {raw.what()});
}

}  // namespace

MintResult AbciService::submit_and_wait(Network& network, Network::Term& term, const Mint& m,
                                        const MintOptions& options, const std::string& mint_id) {
    const auto requested = std::chrono::steady_clock::now();
    MintRecord record;
    try {
        record = prepare(network, m, options, mint_id).record;
    } catch (const Error& e) {
        throw released(network, mint_id, e);
    }
    auto result = send(network, term, record, false);
    network.lane_metrics().observe(chain::MintStage::request_to_confirmed, std::chrono::steady_clock::now() - requested);
    return result;
}

Error AbciService::released(Network& network, const std::string& mint_id, const Error& e) {
    // Nothing was signed: the key is free for a retry.
    const Error plain = dynamic_cast<const rpc::Unreachable*>(&e) ? node_silent(network, e) : Error(e);
    release(mint_id, plain);
    return plain;
}

MintResult AbciService::send(Network& network, Network::Term& term, const MintRecord& record, bool queued) {
    const std::string& mint_id = record.mint_id;
    const auto kind = token_kind(record.token_id);
    if (!kind) throw released(network, mint_id, Error(ErrorKind::internal, "a mint record names an unknown token id"));
    // This server lost the lane before the mint was journaled: a queued mint
    // stays queued for the next owner; one taken here is released, and handed
    // to the next owner by mint().
    const auto lane_lost = [&](const chain::SenderClosed& e) -> LaneLost {
        if (queued) throw e;
        release(mint_id, e);
        return LaneLost(e);
    };
    std::optional<chain::PendingMint> pending;
    try {
        pending.emplace(term.submit_mint(record));
    } catch (const chain::SenderClosed& e) {
        throw lane_lost(e);
    } catch (const Error& e) {
        throw released(network, mint_id, e);
    }
    const bool role = kind->family == TokenFamily::role;
    chain::Receipt receipt;
    try {
        receipt = pending->wait();
    } catch (const chain::SenderClosed& e) {
        throw lane_lost(e);
    } catch (const chain::NeverMined& e) {
        // The contract is the final guard (DESIGN.md §4): a refused role mint
        // for a wallet that holds the role is the same conflict as the pre-flight's.
        const bool held = role && (e.kind() == ErrorKind::conflict ||
                                   (e.kind() == ErrorKind::chain_rejected &&
                                    network.contract().balance_of(record.to, kind->id) != eth::U256(0)));
        const Error refusal = held                ? role_held(record.to, *kind)
                              : silent_node(e) ? node_silent(network, e)
                                               : Error(e.kind(), e.what(), e.details());
        if (release(mint_id, refusal)) network.mint_metrics().count(record.token_id, MintOutcome::failed);
        throw refusal;
    } catch (const Error& e) {
        // Signed, and perhaps mined later: settle_unwaited() records it then.
        throw unsettled(e.kind(), std::string(e.what()) + "; ask for its outcome with the mint id", mint_id);
    }
    if (!receipt.success) {
        // Estimated on the latest block, a role mint can still meet the same
        // role minted by a transaction that was pending then: same conflict.
        const Error failure = role && network.contract().balance_of(record.to, kind->id) != eth::U256(0)
                                  ? role_held(record.to, *kind)
                                  : reverted(receipt);
        if (store_.mints().finish(mint_id, store::MintState::failed, MintFailure::of(failure).serialize()))
            network.mint_metrics().count(record.token_id, MintOutcome::failed);
        else if (const auto stored = store_.mints().find(mint_id))
            return replay(*stored, "");  // as in finish()
        throw failure;
    }
    return finish(network, mint_id, record, receipt);
}

AbciService::PreparedMint AbciService::prepare(Network& network, const Mint& m, const MintOptions& options,
                                              const std::string& mint_id) {
    const auto& config = network.config();
    // Pre-flight (spec 4.1 rule 5; statuses per DESIGN.md §4).
    if (config.status == NetworkStatus::disabled)
        throw Error(ErrorKind::conflict, "blockchain " + config.id + " is not active");
    const std::string to = lower_address(m.to);
    if (m.kind.family == TokenFamily::role) {
        if (!store_.credentials().find_user_by_wallet(to))
            throw Error(ErrorKind::unprocessable, "no user is linked to the address " + m.to.checksummed() +
                                                      ": a role token goes to a user's wallet; link it with " +
                                                      util::link_wallet_command("EMAIL", m.to.checksummed(), admin_store_));
        const auto held = store_.tokens().find_balance(config.id, to, m.kind.id);
        if (held && held->balance != "0") throw role_held(m.to, m.kind);
    }
    const auto issuer = network.signer_address();
    network.require_deployed();
    // Read (and cached) now, before anything is signed: the answer of a mined
    // role mint names it, and finish() must not depend on the node then.
    if (m.kind.family == TokenFamily::role) (void)network.contract_version();

    PreparedMint prepared;
    prepared.metadata = metadata_record(m.kind, m.metadata, issuer, m.to, now_iso()).dump();
    const auto cid = content_.put(eth::as_bytes(prepared.metadata));
    MintRecord& record = prepared.record;
    record.mint_id = mint_id;
    record.kind = m.mint_kind;
    record.to = m.to;
    record.token_id = m.kind.id;
    record.amount = m.amount;
    record.cid = cid.to_string();
    record.entity_type = m.entity_type;
    record.entity_id = m.entity_id;
    record.actor = options.actor;
    record.key = options.idempotency_key.value_or("");
    record.role_request_id = options.role_request_id;
    return prepared;
}

Error AbciService::reverted(const chain::Receipt& receipt) {
    return Error(ErrorKind::chain_rejected, "mint transaction " + eth::to_hex(receipt.transaction_hash) +
                                                " reverted in block " + std::to_string(receipt.block_number));
}
}  // namespace abci::service
