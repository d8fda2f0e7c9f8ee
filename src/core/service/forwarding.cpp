// Mints for a network whose lane another server owns (DESIGN.md §9): the
// server that took the request checks it, stores its metadata and claims its
// key as for a mint of its own, and queues it in the same transaction
// (store/mint_jobs.hpp); the lane's owner sends it and stores its outcome,
// which the first server reads back and answers. Both learn of the other's
// step by the database's notifications, and look again every second in case
// one was lost. A mint whose caller does not wait (MintWait::no) is queued
// the same way, on any server: the job is what survives a crash between the
// answer and the signature.
#include <chrono>

#include "core/content/content_store.hpp"
#include "core/error.hpp"
#include "core/service/service.hpp"
#include "core/service/service_parts.hpp"
#include "core/store/store.hpp"
#include "core/util/log.hpp"

namespace abci::service {

namespace {

// How often the listener's thread looks at the database when nothing was
// heard: the outcome of a mint whose notification was lost, the jobs queued
// meanwhile (the listener's connection down, a new owner).
constexpr std::chrono::milliseconds kLookAgain{1000};
// How long one wait for a notification lasts, so that a stopping server's
// thread ends soon.
constexpr std::chrono::milliseconds kListenSlice{250};
// Queued jobs one owner sends at once, each waiting for its receipt on a
// thread of its own; more wait in the table.
constexpr std::size_t kMaxSending = 2048;
// How much longer than the owner's receipt timeout a request waits for a
// queued mint: the lane's owner may be changing hands when it is queued.
constexpr std::chrono::seconds kQueueAllowance{15};

}  // namespace


AbciService::Enqueued AbciService::enqueue(const Mint& m, const MintOptions& options, const Fingerprint& fingerprint) {
    // A repeat is answered before the pre-flight checks, which a first mint
    // that went through would fail (a role held).
    if (options.idempotency_key)
        if (auto existing = store_.mints().find_by_key({options.actor, m.mint_kind, *options.idempotency_key}))
            return {.mint_id = existing->id, .existing = std::move(existing)};
    Network& network = *m.network;
    refuse_if_halted(network);
    const auto request = new_request(m, options, fingerprint);
    // Nothing is claimed yet when these fail: nothing to release.
    const PreparedMint prepared = prepare(network, m, options, request.id);
    const store::MintJob job{.mint_id = request.id,
                             .blockchain_id = request.blockchain_id,
                             .record = prepared.record.to_json().dump(),
                             .content = prepared.metadata,
                             .created_at = {}};
    return {.mint_id = request.id, .existing = store_.mints().begin(request, job)};
}

MintResult AbciService::forward(const Mint& m, const MintOptions& options, const Fingerprint& fingerprint) {
    const auto queued = enqueue(m, options, fingerprint);
    if (queued.existing) return repeat(*queued.existing, fingerprint, options.wait);
    return await_forwarded(*m.network, queued.mint_id);
}

MintResult AbciService::accept(const Mint& m, const MintOptions& options, const Fingerprint& fingerprint) {
    const auto queued = enqueue(m, options, fingerprint);
    if (queued.existing) return repeat(*queued.existing, fingerprint, options.wait);
    forwarding_->queued_here(queued.mint_id);
    return MintResult::accepted(queued.mint_id);
}

MintResult AbciService::await_forwarded(Network& network, const std::string& mint_id) {
    Forwarding& f = *forwarding_;
    Forwarding::Waiter* waiter = nullptr;
    {
        std::lock_guard lock(f.mutex);
        waiter = &f.awaited[mint_id];  // a map's elements stay put
    }
    struct Unregister {
        Forwarding& f;
        const std::string& id;
        ~Unregister() {
            std::lock_guard lock(f.mutex);
            f.awaited.erase(id);
        }
    } unregister{f, mint_id};
    // Until the owner says it stopped waiting for the receipt, as it answers
    // its own callers; the deadline only when that word was lost.
    const auto deadline = std::chrono::steady_clock::now() + network.config().receipt_timeout + kQueueAllowance;
    for (bool sender_gave_up = false; !sender_gave_up;) {
        {
            std::unique_lock lock(f.mutex);
            if (!waiter->cv.wait_until(lock, deadline, [&] { return waiter->woken; })) break;
            waiter->woken = false;
            sender_gave_up = waiter->sender_gave_up;
        }
        const auto mint = store_.mints().find(mint_id);
        if (!mint) throw Error(ErrorKind::internal, "a queued mint is gone from the store");
        if (mint->state != store::MintState::pending) return replay(*mint, "");
    }
    throw unsettled(ErrorKind::timeout,
                    "the server that sends for blockchain " + network.config().id +
                        " has not settled the mint yet; ask for its outcome with the mint id",
                    mint_id);
}

void AbciService::listen_for_other_servers() {
    Forwarding& f = *forwarding_;
    auto looked = std::chrono::steady_clock::now();
    while (!f.stopping) {
        std::vector<std::string> queued;
        for (auto& heard : f.hear(kListenSlice)) {
            if (heard.channel == store::kMintSettledChannel) f.wake(heard.payload);
            if (heard.channel == store::kMintUnsettledChannel) f.wake(heard.payload, true);
            if (heard.channel == store::kMintQueuedChannel) queued.push_back(std::move(heard.payload));
        }
        const bool look = std::chrono::steady_clock::now() - looked >= kLookAgain;
        try {
            if (look) {
                looked = std::chrono::steady_clock::now();
                std::vector<std::string> awaited;
                {
                    std::lock_guard lock(f.mutex);
                    for (const auto& [id, waiter] : f.awaited)
                        if (!waiter.woken) awaited.push_back(id);
                }
                if (!awaited.empty())
                    for (const auto& id : store_.mints().final_among(awaited)) f.wake(id);
            }
            // What was heard, by id; everything queued once a second.
            if (look)
                for (const auto& n : registry_.networks())
                    if (n->current_term()) take_jobs(store_.mint_jobs().queued(n->config().id, kMaxSending));
            if (!queued.empty()) take_jobs(queued);
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "looking for mints queued or settled by other servers failed",
                      {{"error", e.what()}});
        }
        f.join_finished();
    }
}

void AbciService::take_jobs(const std::vector<std::string>& mint_ids) {
    Forwarding& f = *forwarding_;
    std::vector<std::string> wanted;
    {
        // Jobs being sent stay queued until journaled.
        std::lock_guard lock(f.mutex);
        for (const auto& mint_id : mint_ids)
            if (!f.sending.contains(mint_id) && f.sending.size() + wanted.size() < kMaxSending) wanted.push_back(mint_id);
    }
    // Those journaled or ended meanwhile are not found.
    for (auto& job : store_.mint_jobs().find_all(wanted)) {
        Network* network = nullptr;
        try {
            network = &registry_.find(job.blockchain_id);
        } catch (const Error&) {
            continue;  // a chain this server is not configured for: for a replica that is
        }
        auto term = network->current_term();
        if (!term) continue;  // another server sends for it
        std::lock_guard lock(f.mutex);
        const auto mint_id = job.mint_id;
        f.sending.emplace(mint_id, std::thread([this, network, term = std::move(term), job = std::move(job)] {
                              send_queued(*network, term, job);
                              std::lock_guard done(forwarding_->mutex);
                              forwarding_->finished.insert(job.mint_id);
                          }));
    }
}

void AbciService::send_queued(Network& network, const std::shared_ptr<Network::Term>& term, const store::MintJob& job) {
    try {
        MintRecord record;
        try {
            const auto parsed = nlohmann::json::parse(job.record, nullptr, false);
            if (parsed.is_discarded()) throw Error(ErrorKind::internal, "a queued mint's record is not JSON");
            record = MintRecord::from_json(parsed);
            // The metadata the requesting server stored, stored here too: the
            // entity's record and its metadata route read it from this server.
            if (content_.put(eth::as_bytes(job.content)).to_string() != record.cid)
                throw Error(ErrorKind::internal, "a queued mint's metadata does not match its content id");
            if (record.mint_id != job.mint_id) throw Error(ErrorKind::internal, "a queued mint's record names another mint");
        } catch (const Error& e) {
            throw released(network, job.mint_id, e);
        }
        (void)send(network, *term, record, true);
        // Timed from the job's row, written with the mint's claim once its
        // request was checked (no migration for an arrival time: the checks
        // before it take milliseconds), by the clock of the server that took
        // it: replicas' clocks must agree for this stage, as for their logs.
        network.lane_metrics().observe(chain::MintStage::request_to_confirmed,
                                       std::chrono::system_clock::now() - job.created_at);
    } catch (const chain::SenderClosed& e) {
        util::log(util::LogLevel::info, "a queued mint stays queued for the lane's next owner",
                  {{"mintId", job.mint_id}, {"error", e.what()}});
    } catch (const MintUnsettled& e) {
        // Signed and not settled in time: the sender settles it (settle_unwaited()),
        // and the server that took it answers 504 now, as this one would.
        util::log(util::LogLevel::info, "a queued mint is not settled yet", {{"mintId", job.mint_id}, {"error", e.what()}});
        try {
            store_.mints().announce_unsettled(job.mint_id);
        } catch (const Error& lost) {
            // The server that took it answers at the end of its allowance instead.
            util::log(util::LogLevel::warning, "could not tell the server that took a mint it is not settled yet",
                      {{"mintId", job.mint_id}, {"error", lost.what()}});
        }
    } catch (const Error& e) {
        // Its outcome is stored for the requesting server to answer.
        util::log(util::LogLevel::info, "a queued mint failed", {{"mintId", job.mint_id}, {"error", e.what()}});
    }
}

}  // namespace abci::service

namespace abci::service {

void AbciService::start_forwarding() {
    // None when no other server shares the store: the jobs are this server's own mints that do not wait.
    auto listener = store_.listen({store::kMintQueuedChannel, store::kMintSettledChannel, store::kMintUnsettledChannel});
    if (listener) (void)listener->wait(std::chrono::milliseconds(0));  // listening before the first request is taken
    forwarding_ = std::make_unique<Forwarding>();
    forwarding_->listener = std::move(listener);
    forwarding_->thread = std::thread([this] { listen_for_other_servers(); });
}

void AbciService::stop_forwarding() {
    if (!forwarding_) return;
    forwarding_->stopping = true;
    forwarding_->thread.join();
    // Each ends when its mint settles or its receipt times out; what is then
    // unsettled is the next owner's, from the journal. Joined unlocked: each
    // takes the lock to say it finished.
    std::map<std::string, std::thread> sending;
    {
        std::lock_guard lock(forwarding_->mutex);
        sending.swap(forwarding_->sending);
    }
    for (auto& [id, thread] : sending) thread.join();
}

}  // namespace abci::service
