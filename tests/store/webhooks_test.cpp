// Webhook subscriptions and deliveries (webhooks.hpp): what the admin routes
// change, the lease under which one server at a time delivers, and the
// outbox a mint's transitions write their events to.

#include <catch2/catch.hpp>

#include "core/util/time.hpp"
#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace webhooks_store_test {

WebhookSubscription subscribe(Store& store, const std::string& id,
                              std::vector<std::string> events = {"mint.confirmed"}) {
    return store.webhooks().create_subscription(NewWebhookSubscription{
        .id = id,
        .url = "https://hooks.example.org/in",
        .events = std::move(events),
        .description = "é ' \"; DROP TABLE webhook_subscriptions; --",
        .sealed_secret = "v1.sealed-" + id});
}

AttemptOutcome outcome(DeliveryState state, int status, std::chrono::milliseconds retry_in = 0ms) {
    return AttemptOutcome{.attempt = {.attempted_at = millis_from_now(0ms),
                                      .status = status,
                                      .latency_ms = 12,
                                      .error = status >= 200 && status < 300 ? "" : "HTTP " + std::to_string(status)},
                          .state = state,
                          .retry_in = retry_in};
}

// Claims the outbox's events until none is left, oldest first, showing each to
// `visit` with the size of the batch it was claimed in, and fans each out.
template <class Visit>
void drain_outbox(Webhooks& hooks, Visit visit) {
    for (auto claimed = hooks.claim_events("server-a", 60s, 10); !claimed.empty();
         claimed = hooks.claim_events("server-a", 60s, 10))
        for (const auto& outbox : claimed) {
            visit(outbox.event, claimed.size());
            CHECK(hooks.fan_out(outbox.id, "server-a", "body") == 1u);
        }
}

}  // namespace webhooks_store_test

TEST_CASE("webhook subscriptions are created, listed, changed, rotated and removed", "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    const auto a = subscribe(*f.store, "wh_a", {"mint.confirmed", "mint.failed"});
    const auto b = subscribe(*f.store, "wh_b");
    CHECK(test::error_kind([&] { (void)subscribe(*f.store, "wh_a"); }) == ErrorKind::conflict);

    const auto found = hooks.find_subscription("wh_a");
    REQUIRE(found);
    CHECK(found->events == std::vector<std::string>{"mint.confirmed", "mint.failed"});
    CHECK(found->description == a.description);
    CHECK(found->enabled);
    CHECK(found->sealed_secret == "v1.sealed-wh_a");
    CHECK(found->sealed_previous_secret.empty());
    CHECK_FALSE(found->previous_secret_until);
    CHECK(found->created_at == a.created_at);
    CHECK_FALSE(hooks.find_subscription("wh_none"));
    const auto all = hooks.list_subscriptions();
    REQUIRE(all.size() == 2);
    CHECK(all[0].id == "wh_a");
    CHECK(all[1].id == "wh_b");

    const auto changed = hooks.update_subscription("wh_a", {.events = std::vector<std::string>{"webhook.test"},
                                                            .enabled = false});
    REQUIRE(changed);
    CHECK(changed->events == std::vector<std::string>{"webhook.test"});
    CHECK_FALSE(changed->enabled);
    CHECK(changed->url == a.url);  // not given: kept
    CHECK(changed->description == a.description);
    const auto renamed = hooks.update_subscription("wh_a", {.url = std::string("https://other.example.org/")});
    REQUIRE(renamed);
    CHECK(renamed->url == "https://other.example.org/");
    CHECK_FALSE(renamed->enabled);  // not given: kept
    CHECK_FALSE(hooks.update_subscription("wh_none", {.enabled = true}));

    const auto before = millis_from_now(0ms);
    const auto rotated = hooks.rotate_secret("wh_b", "v1.new", 24h);
    REQUIRE(rotated);
    CHECK(rotated->sealed_secret == "v1.new");
    CHECK(rotated->sealed_previous_secret == "v1.sealed-wh_b");
    REQUIRE(rotated->previous_secret_until);
    CHECK(*rotated->previous_secret_until >= before + 24h);
    CHECK_FALSE(hooks.rotate_secret("wh_none", "v1.x", 24h));

    const auto delivery = hooks.enqueue("wh_b", "webhook.test", "{}");
    REQUIRE(hooks.claim_due("server-a", 30s, 10).size() == 1);
    REQUIRE(hooks.record_attempt(delivery.id, "server-a", outcome(DeliveryState::pending, 500, 5s)));
    CHECK(hooks.remove_subscription("wh_b"));
    CHECK_FALSE(hooks.remove_subscription("wh_b"));
    CHECK_FALSE(hooks.find_subscription("wh_b"));
    CHECK_FALSE(hooks.find_delivery(delivery.id));
    CHECK(hooks.attempts(delivery.id).empty());
    CHECK(test::error_kind([&] { (void)hooks.enqueue("wh_b", "webhook.test", "{}"); }) == ErrorKind::not_found);
}

TEST_CASE("a webhook delivery is claimed by one server at a time, retried under the same message id and replayed",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    (void)subscribe(*f.store, "wh_a");
    CHECK_FALSE(hooks.next_due());
    const std::string body = R"({"type":"webhook.test","data":{"é":"\u0000 '"}})";
    const auto queued = hooks.enqueue("wh_a", "webhook.test", body);
    CHECK(queued.message_id.starts_with("msg_"));
    CHECK(queued.state == DeliveryState::pending);
    REQUIRE(hooks.next_due());
    CHECK(*hooks.next_due() == 0ms);

    const auto claimed = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].id == queued.id);
    CHECK(claimed[0].body == body);
    CHECK(hooks.claim_due("server-b", 60s, 10).empty());  // leased to server-a
    REQUIRE(hooks.next_due());
    CHECK(*hooks.next_due() > 50s);  // due again when the lease runs out
    CHECK_FALSE(hooks.record_attempt(queued.id, "server-b", outcome(DeliveryState::succeeded, 200)));

    // A failure: due again later, same message id, the lease released.
    REQUIRE(hooks.record_attempt(queued.id, "server-a", outcome(DeliveryState::pending, 500, 200ms)));
    CHECK_FALSE(hooks.record_attempt(queued.id, "server-a", outcome(DeliveryState::pending, 500, 0ms)));
    CHECK(hooks.claim_due("server-b", 60s, 10).empty());  // not due yet
    std::this_thread::sleep_for(300ms);
    const auto again = hooks.claim_due("server-b", 60s, 10);
    REQUIRE(again.size() == 1);
    CHECK(again[0].message_id == queued.message_id);
    CHECK(again[0].attempts == 1);
    REQUIRE(hooks.record_attempt(queued.id, "server-b", outcome(DeliveryState::failed, 503)));
    CHECK_FALSE(hooks.next_due());

    const auto attempts = hooks.attempts(queued.id);
    REQUIRE(attempts.size() == 2);
    CHECK(attempts[0].status == 500);
    CHECK(attempts[0].latency_ms == 12);
    CHECK(attempts[0].error == "HTTP 500");
    CHECK(attempts[1].status == 503);
    const auto failed = hooks.find_delivery(queued.id);
    REQUIRE(failed);
    CHECK(failed->state == DeliveryState::failed);
    CHECK(failed->attempts == 2);

    CHECK_FALSE(hooks.replay("wh_other", queued.id));
    const auto replayed = hooks.replay("wh_a", queued.id);
    REQUIRE(replayed);
    CHECK(replayed->state == DeliveryState::pending);
    CHECK(replayed->message_id == queued.message_id);
    const auto third = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(third.size() == 1);
    REQUIRE(hooks.record_attempt(queued.id, "server-a", outcome(DeliveryState::succeeded, 204)));
    CHECK(hooks.find_delivery(queued.id)->state == DeliveryState::succeeded);
    CHECK(hooks.attempts(queued.id).size() == 3);
    const auto listed = hooks.deliveries("wh_a", 10);
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].attempts == 3);
}

TEST_CASE("a 410 disables the webhook subscription, whose deliveries then wait until it is enabled again",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    (void)subscribe(*f.store, "wh_a");
    const auto first = hooks.enqueue("wh_a", "webhook.test", "{\"n\":1}");
    const auto second = hooks.enqueue("wh_a", "webhook.test", "{\"n\":2}");
    const auto claimed = hooks.claim_due("server-a", 60s, 1);
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].id == first.id);  // oldest first
    auto gone = outcome(DeliveryState::failed, 410);
    gone.disable_reason = "the receiver answered 410 Gone";
    REQUIRE(hooks.record_attempt(first.id, "server-a", gone));
    const auto disabled = hooks.find_subscription("wh_a");
    REQUIRE(disabled);
    CHECK_FALSE(disabled->enabled);
    CHECK(disabled->disabled_reason == "the receiver answered 410 Gone");
    CHECK(hooks.claim_due("server-a", 60s, 10).empty());
    CHECK_FALSE(hooks.next_due());

    const auto enabled = hooks.update_subscription("wh_a", {.enabled = true});
    REQUIRE(enabled);
    CHECK(enabled->enabled);
    CHECK(enabled->disabled_reason.empty());
    const auto resumed = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(resumed.size() == 1);
    CHECK(resumed[0].id == second.id);
}

TEST_CASE("claim_due takes the oldest due delivery of each webhook subscription, none of one with a delivery in flight",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    (void)subscribe(*f.store, "wh_a");
    (void)subscribe(*f.store, "wh_b");
    const auto a1 = hooks.enqueue("wh_a", "webhook.test", "{\"n\":1}");
    const auto a2 = hooks.enqueue("wh_a", "webhook.test", "{\"n\":2}");
    const auto b1 = hooks.enqueue("wh_b", "webhook.test", "{\"n\":3}");

    auto claimed = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(claimed.size() == 2);
    CHECK(claimed[0].id == a1.id);
    CHECK(claimed[1].id == b1.id);
    // a2 waits while a1 is in flight, whoever holds it, and is not called due.
    CHECK(hooks.claim_due("server-b", 60s, 10).empty());
    REQUIRE(hooks.next_due());
    CHECK(*hooks.next_due() > 50s);

    REQUIRE(hooks.record_attempt(a1.id, "server-a", outcome(DeliveryState::succeeded, 200)));
    CHECK(*hooks.next_due() == 0ms);
    claimed = hooks.claim_due("server-b", 200ms, 10);
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].id == a2.id);
    // Its holder died: once the lease ran out another server takes that delivery, still one at a time.
    (void)hooks.enqueue("wh_a", "webhook.test", "{\"n\":4}");
    CHECK(hooks.claim_due("server-a", 60s, 10).empty());
    std::this_thread::sleep_for(300ms);
    claimed = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(claimed.size() == 1);
    CHECK(claimed[0].id == a2.id);
}

namespace webhooks_store_test {

MintRequest new_mint(const std::string& key) {
    MintRequest mint;
    mint.id = crypto::random_uuid();
    mint.actor = "user-1";
    mint.blockchain_id = "chain";
    mint.idempotency_key = key;
    mint.fingerprint = "fp";
    return mint;
}

JournalEntry journaled(const std::string& hash, std::uint64_t nonce, const std::string& mint_id) {
    JournalEntry entry;
    entry.hash = hash;
    entry.blockchain_id = "chain";
    entry.sender = "0x1111111111111111111111111111111111111111";
    entry.nonce = nonce;
    entry.raw = "0x02f8";
    entry.purpose = R"({"op":"mint"})";
    entry.mint_ids = {mint_id};
    return entry;
}

}  // namespace webhooks_store_test

TEST_CASE("a mint's transitions write its events to the outbox in their own transaction, fanned out and delivered in order",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    auto& mints = f.store->mints();
    auto& journal = f.store->journal();

    // No subscription asks for mint events: nothing is written.
    const auto unheard = new_mint("k-0");
    REQUIRE_FALSE(mints.begin(unheard));
    journal.add({journaled("0x00", 0, unheard.id)});
    CHECK(hooks.claim_events("server-a", 60s, 10).empty());

    (void)subscribe(*f.store, "wh_a", {"mint.submitted", "mint.confirmed"});
    (void)subscribe(*f.store, "wh_b", {"mint.failed", "mint.confirmed"});
    (void)subscribe(*f.store, "wh_off", {"mint.submitted", "mint.confirmed", "mint.failed"});
    REQUIRE(hooks.update_subscription("wh_off", {.enabled = false}));

    const auto mint = new_mint("k-1");
    REQUIRE_FALSE(mints.begin(mint));
    journal.add({journaled("0x01", 1, mint.id)});
    journal.add({journaled("0x02", 1, mint.id)});  // a replacement is not submitted again
    journal.settle({{"0x02", chain::TxStatus::mined, 7}});  // settled before the mint is finished, as TxSender does
    REQUIRE(mints.finish(mint.id, MintState::done, R"({"version":2,"transactionHash":"0x02"})"));
    CHECK_FALSE(mints.finish(mint.id, MintState::done, "{}"));  // already final: no second event

    // The confirmed event waits in the outbox until the submitted one left it.
    auto claimed = hooks.claim_events("server-a", 60s, 10);
    REQUIRE(claimed.size() == 1);
    const auto submitted = claimed[0];
    CHECK(submitted.id.starts_with("msg_"));
    CHECK(std::get<MintEvent>(submitted.event).type == EventType::mint_submitted);
    CHECK(std::get<MintEvent>(submitted.event).mint_id == mint.id);
    CHECK(std::get<MintEvent>(submitted.event).idempotency_key == "k-1");
    CHECK(std::get<MintEvent>(submitted.event).blockchain_id == "chain");
    CHECK(std::get<MintEvent>(submitted.event).transaction_hash == "0x01");
    CHECK(std::chrono::abs(std::get<MintEvent>(submitted.event).at - std::chrono::system_clock::now()) < 5s);
    CHECK(hooks.claim_events("server-b", 60s, 10).empty());
    CHECK_FALSE(hooks.fan_out(submitted.id, "server-b", "{}"));  // not server-b's
    CHECK(hooks.fan_out(submitted.id, "server-a", "submitted body") == 1u);  // wh_a only: wh_b does not ask, wh_off is off
    CHECK_FALSE(hooks.fan_out(submitted.id, "server-a", "again"));  // gone from the outbox

    claimed = hooks.claim_events("server-b", 60s, 10);
    REQUIRE(claimed.size() == 1);
    const auto confirmed = claimed[0];
    CHECK(std::get<MintEvent>(confirmed.event).type == EventType::mint_confirmed);
    CHECK(std::get<MintEvent>(confirmed.event).answer == R"({"version":2,"transactionHash":"0x02"})");
    CHECK(std::get<MintEvent>(confirmed.event).transaction_hash.empty());
    CHECK(hooks.fan_out(confirmed.id, "server-b", "confirmed body") == 2u);
    CHECK(hooks.claim_events("server-a", 60s, 10).empty());

    // wh_a: confirmed is not sent while submitted is pending, retries included.
    auto due = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(due.size() == 2);
    const auto first = due[0].subscription_id == "wh_a" ? due[0] : due[1];
    const auto to_b = due[0].subscription_id == "wh_b" ? due[0] : due[1];
    CHECK(first.message_id == submitted.id);
    CHECK(first.type == "mint.submitted");
    CHECK(first.body == "submitted body");
    CHECK(to_b.message_id == confirmed.id);
    CHECK(to_b.body == "confirmed body");
    REQUIRE(hooks.record_attempt(first.id, "server-a", outcome(DeliveryState::pending, 500, 0ms)));
    REQUIRE(hooks.record_attempt(to_b.id, "server-a", outcome(DeliveryState::succeeded, 200)));
    REQUIRE(hooks.next_due());
    due = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(due.size() == 1);
    CHECK(due[0].id == first.id);
    CHECK(due[0].attempts == 1);
    REQUIRE(hooks.next_due());
    CHECK(*hooks.next_due() > 50s);  // confirmed waits behind the leased submitted
    REQUIRE(hooks.record_attempt(first.id, "server-a", outcome(DeliveryState::succeeded, 204)));
    due = hooks.claim_due("server-a", 60s, 10);
    REQUIRE(due.size() == 1);
    CHECK(due[0].subscription_id == "wh_a");
    CHECK(due[0].message_id == confirmed.id);

    // A mint released as failed, and a confirmed mint's transaction reorged out.
    const auto failing = new_mint("");
    REQUIRE_FALSE(mints.begin(failing));
    REQUIRE(mints.release(failing.id, R"({"kind":"unavailable","message":"not sent"})"));
    REQUIRE(hooks.update_subscription("wh_a", {.events = std::vector<std::string>{"mint.reorged"}}));
    journal.reopen("0x02");
    journal.reopen("0x02");  // pending already: nothing more
    claimed = hooks.claim_events("server-a", 60s, 10);
    REQUIRE(claimed.size() == 2);
    CHECK(std::get<MintEvent>(claimed[0].event).type == EventType::mint_failed);
    CHECK(std::get<MintEvent>(claimed[0].event).mint_id == failing.id);
    CHECK(std::get<MintEvent>(claimed[0].event).idempotency_key.empty());
    CHECK(std::get<MintEvent>(claimed[0].event).answer == R"({"kind":"unavailable","message":"not sent"})");
    CHECK(std::get<MintEvent>(claimed[1].event).type == EventType::mint_reorged);
    CHECK(std::get<MintEvent>(claimed[1].event).mint_id == mint.id);
    CHECK(std::get<MintEvent>(claimed[1].event).transaction_hash == "0x02");
}

TEST_CASE("a confirmed mint whose transaction a reorg removed is answered and confirmed again, with its new block, "
          "when it is mined again",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    auto& mints = f.store->mints();
    auto& journal = f.store->journal();
    (void)subscribe(*f.store, "wh_a", {"mint.confirmed", "mint.reorged"});
    const std::string first = R"({"version":2,"transactionHash":"0x01","blockNumber":7})";
    const std::string again = R"({"version":2,"transactionHash":"0x01","blockNumber":9})";

    const auto mint = new_mint("k-1");
    REQUIRE_FALSE(mints.begin(mint));
    journal.add({journaled("0x01", 1, mint.id)});
    journal.settle({{"0x01", chain::TxStatus::mined, 7}});
    REQUIRE(mints.finish(mint.id, MintState::done, first));
    journal.reopen("0x01");
    CHECK(mints.find(mint.id)->answer == first);  // the last known answer while it is sent again
    journal.settle({{"0x01", chain::TxStatus::mined, 9}});
    // Mined anew: pending until its new answer is written (a crash between the two leaves it to the start's reconcile).
    CHECK(mints.find(mint.id)->state == MintState::pending);
    journal.settle({{"0x01", chain::TxStatus::mined, 9}});  // settled already: nothing more
    // Answered again: counted once already, so not "made final".
    CHECK_FALSE(mints.finish(mint.id, MintState::done, again));
    CHECK_FALSE(mints.finish(mint.id, MintState::done, first));  // final again: left as it is
    const auto stored = mints.find(mint.id);
    CHECK(stored->state == MintState::done);
    CHECK(stored->answer == again);
    const auto by_key = mints.find_by_key({.actor = "user-1", .kind = MintKind::role, .key = "k-1"});
    REQUIRE(by_key);
    CHECK(by_key->answer == again);

    // One mint's events are claimed one at a time, oldest first.
    std::vector<EventType> types;
    std::vector<std::string> answers;
    drain_outbox(hooks, [&](const StoredEvent& stored, std::size_t batch) {
        REQUIRE(batch == 1);
        const auto& event = std::get<MintEvent>(stored);
        CHECK(event.mint_id == mint.id);
        types.push_back(event.type);
        if (event.type == EventType::mint_confirmed) answers.push_back(event.answer);
    });
    CHECK(types == std::vector<EventType>{EventType::mint_confirmed, EventType::mint_reorged, EventType::mint_confirmed});
    CHECK(answers == std::vector<std::string>{first, again});
}

TEST_CASE("a role request's filing, approval and rejection write their events with the change, in order per request",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    auto& requests = f.store->role_requests();
    const User u = add_user(*f.store, "requester@example.org");
    (void)subscribe(*f.store, "wh_a", {"role_request.created", "role_request.approved", "role_request.rejected"});

    const auto approved = requests.create(NewRoleRequest{u.id, "producer", kStoreWallet, kStoreChainId, "note"});
    const auto rejected = requests.create(NewRoleRequest{u.id, "verifier", kStoreWallet, kStoreChainId, ""});
    REQUIRE(requests.transition(approved.id, RoleRequestStatus::pending, RoleRequestStatus::approved, "admin"));
    CHECK_FALSE(requests.transition(approved.id, RoleRequestStatus::pending, RoleRequestStatus::approved, "admin"));
    REQUIRE(requests.transition(rejected.id, RoleRequestStatus::pending, RoleRequestStatus::rejected, "admin"));
    REQUIRE(requests.fail(approved.id, "refused"));  // no event type for it: nothing written

    std::vector<std::pair<std::string, EventType>> seen;
    drain_outbox(hooks, [&](const StoredEvent& stored, std::size_t) {
        const auto& event = std::get<RoleRequestEvent>(stored);
        CHECK(event.wallet_address == kStoreWallet);
        CHECK(event.blockchain_id == kStoreChainId);
        CHECK(event.role_type == (event.id == approved.id ? "producer" : "verifier"));
        CHECK(event.status == (event.type == EventType::role_request_created    ? "pending"
                               : event.type == EventType::role_request_approved ? "approved"
                                                                                : "rejected"));
        CHECK(std::chrono::abs(event.at - std::chrono::system_clock::now()) < 5s);
        seen.emplace_back(event.id, event.type);
    });
    CHECK(seen == std::vector<std::pair<std::string, EventType>>{{approved.id, EventType::role_request_created},
                                                                 {rejected.id, EventType::role_request_created},
                                                                 {approved.id, EventType::role_request_approved},
                                                                 {rejected.id, EventType::role_request_rejected}});
}

TEST_CASE("a certificate's first minting writes certificate.issued with the certificate and its mint, once",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    auto& certificates = f.store->certificates();
    const User u = add_user(*f.store, "certifier@example.org");
    const auto unheard =
        certificates.create(NewCertificate{u.id, kStoreChainId, kStoreWallet, kStoreWallet, "t", "d", "c"});
    certificates.set_minted(unheard.id, 1000001, "0x01", 7, R"({"tokenId":1000001})", "mint-0");
    CHECK(hooks.claim_events("server-a", 60s, 10).empty());  // nobody asked

    (void)subscribe(*f.store, "wh_a", {"certificate.issued"});
    const auto created = certificates.create(
        NewCertificate{u.id, kStoreChainId, kStoreWallet, "0x2222222222222222222222222222222222222222", "Organic",
                       "é ' \"; --", "bafyc1"});
    certificates.set_minted(created.id, 1000002, "0xcafe", 77, R"({"tokenId":1000002})", "mint-1");
    certificates.set_minted(created.id, 1000002, "0xcafe", 77, R"({"tokenId":1000002})", "mint-1");  // idempotent
    certificates.set_minted(created.id, 1000002, "0xcafe", 78, R"({"tokenId":1000002})", "mint-1");  // not issued again

    const auto claimed = hooks.claim_events("server-a", 60s, 10);
    REQUIRE(claimed.size() == 1);
    const auto& event = std::get<CertificateEvent>(claimed[0].event);
    CHECK(event.type == EventType::certificate_issued);
    CHECK(event.mint_id == "mint-1");
    CHECK(std::chrono::abs(event.at - std::chrono::system_clock::now()) < 5s);
    const auto& c = event.certificate;
    CHECK(c.id == created.id);
    CHECK(c.user_id == u.id);
    CHECK(c.blockchain_id == kStoreChainId);
    CHECK(c.wallet_address == kStoreWallet);
    CHECK(c.recipient == created.recipient);
    CHECK(c.title == "Organic");
    CHECK(c.description == "é ' \"; --");
    CHECK(c.status == CertificateStatus::minted);
    CHECK(c.cid == "bafyc1");
    CHECK(c.token_id == 1000002);
    CHECK(c.tx_hash == "0xcafe");
    CHECK(c.block_number == 77);
    CHECK(c.token == R"({"tokenId":1000002})");
    CHECK(c.created_at == created.created_at);
    CHECK(hooks.fan_out(claimed[0].id, "server-a", "body") == 1u);
}

TEST_CASE("a lane taken by another server writes lane.owner_changed with both owners and the epoch, but renewals and "
          "retaking one's own lane do not",
          "[store][webhooks][lanes]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    const std::string lane = "chain/0xabc";
    (void)subscribe(*f.store, "wh_a", {"lane.owner_changed"});
    {
        const auto a = f.store->open_lane_election("server-a");
        REQUIRE(a->hold(lane));
        REQUIRE(a->hold(lane));  // renewed
        a->release(lane);
        REQUIRE(a->hold(lane));  // its own lane again
    }
    const auto b = f.store->open_lane_election("server-b");
    REQUIRE(b->hold(lane));

    std::vector<LaneEvent> seen;
    drain_outbox(hooks, [&](const StoredEvent& stored, std::size_t) { seen.push_back(std::get<LaneEvent>(stored)); });
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].type == EventType::lane_owner_changed);
    CHECK(seen[0].lane == lane);
    CHECK(seen[0].previous_owner.empty());
    CHECK(seen[0].owner == "server-a");
    CHECK(seen[0].epoch == 1);
    CHECK(seen[1].previous_owner == "server-a");
    CHECK(seen[1].owner == "server-b");
    CHECK(seen[1].epoch == 3);
    CHECK(std::chrono::abs(seen[1].at - std::chrono::system_clock::now()) < 5s);
}

TEST_CASE("a lane's signer falling below its floor writes signer.balance_low once, again only after it recovered, "
          "and not anew for the lane's next owner",
          "[store][webhooks][lanes]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& lanes = f.store->lanes();
    const std::string lane = "chain/0xabc";
    (void)subscribe(*f.store, "wh_a", {"signer.balance_low"});
    const auto reading = [](const std::string& balance, bool low) {
        return SignerBalance{.blockchain_id = "chain",
                             .address = "0xAbC",
                             .balance = balance,
                             .minimum_balance = "1000",
                             .estimated_mints = 7,
                             .low = low};
    };
    const auto a = f.store->open_lane_election("server-a");
    const auto fence = a->hold(lane);
    REQUIRE(fence);
    CHECK_FALSE(lanes.record_signer_balance(*fence, reading("5000", false)));
    CHECK(lanes.record_signer_balance(*fence, reading("900", true)));
    CHECK_FALSE(lanes.record_signer_balance(*fence, reading("800", true)));  // still low
    CHECK_FALSE(lanes.record_signer_balance(*fence, reading("1000", false)));  // recovered
    CHECK(lanes.record_signer_balance(*fence, reading("700", true)));
    a->release(lane);

    // The lane's next owner (a restart, another replica) reads the latch, not its own memory.
    const auto b = f.store->open_lane_election("server-b");
    const auto taken = b->hold(lane);
    REQUIRE(taken);
    CHECK_FALSE(lanes.record_signer_balance(*taken, reading("600", true)));
    // A fence the lane moved on from flips nothing.
    CHECK_FALSE(lanes.record_signer_balance(*fence, reading("2000", false)));
    CHECK_FALSE(lanes.record_signer_balance(*taken, reading("500", true)));

    std::vector<SignerBalanceEvent> seen;
    drain_outbox(f.store->webhooks(),
                 [&](const StoredEvent& stored, std::size_t) { seen.push_back(std::get<SignerBalanceEvent>(stored)); });
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].type == EventType::signer_balance_low);
    CHECK(seen[0].lane == lane);
    CHECK(seen[0].reading.blockchain_id == "chain");
    CHECK(seen[0].reading.address == "0xAbC");
    CHECK(seen[0].reading.balance == "900");
    CHECK(seen[0].reading.minimum_balance == "1000");
    CHECK(seen[0].reading.estimated_mints == 7);
    CHECK(seen[1].reading.balance == "700");
    CHECK(std::chrono::abs(seen[1].at - std::chrono::system_clock::now()) < 5s);
}

namespace webhooks_store_test {

// A failed attempt (500) made at `at`, retried at once, under `disable_after`.
AttemptOutcome failed_at(TimePoint at, std::chrono::milliseconds disable_after) {
    auto failed = outcome(DeliveryState::pending, 500);
    failed.attempt.attempted_at = at;
    failed.disable_after = disable_after;
    return failed;
}

// Claims the subscription's one due delivery and records `attempt` for it.
void attempt(Webhooks& hooks, const AttemptOutcome& attempt) {
    const auto claimed = hooks.claim_due("server-a", 60s, 1);
    REQUIRE(claimed.size() == 1);
    REQUIRE(hooks.record_attempt(claimed[0].id, "server-a", attempt));
}

}  // namespace webhooks_store_test

TEST_CASE("a webhook subscription failing for disableAfter is disabled by the attempt that finds it, and enabling "
          "it clears that",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    (void)subscribe(*f.store, "wh_a");
    const auto t0 = millis_from_now(-1h);
    (void)hooks.enqueue("wh_a", "webhook.test", "{}");
    attempt(hooks, failed_at(t0, 3s));
    auto shown = hooks.find_subscription("wh_a");
    REQUIRE(shown);
    CHECK(shown->failing_since == t0);
    CHECK(shown->enabled);

    // A success ends the failing spell: the next failure starts another.
    auto success = outcome(DeliveryState::succeeded, 204);
    success.disable_after = 3s;
    attempt(hooks, success);
    CHECK_FALSE(hooks.find_subscription("wh_a")->failing_since);
    (void)hooks.enqueue("wh_a", "webhook.test", "{}");
    const auto t1 = t0 + 10s;
    attempt(hooks, failed_at(t1, 3s));
    attempt(hooks, failed_at(t1 + 2999ms, 3s));
    shown = hooks.find_subscription("wh_a");
    CHECK(shown->failing_since == t1);
    CHECK(shown->enabled);
    CHECK_FALSE(shown->disabled_at);

    const auto before = millis_from_now(0ms);
    attempt(hooks, failed_at(t1 + 3s, 3s));
    shown = hooks.find_subscription("wh_a");
    CHECK_FALSE(shown->enabled);
    REQUIRE(shown->disabled_at);
    CHECK(*shown->disabled_at >= before);
    INFO(shown->disabled_reason);
    CHECK(shown->disabled_reason.starts_with("failing since " + util::format_iso8601_utc(t1)));
    CHECK(shown->disabled_reason.find("HTTP 500") != std::string::npos);
    CHECK(hooks.claim_due("server-a", 60s, 10).empty());

    const auto enabled = hooks.update_subscription("wh_a", {.enabled = true});
    REQUIRE(enabled);
    CHECK(enabled->enabled);
    CHECK(enabled->disabled_reason.empty());
    CHECK_FALSE(enabled->disabled_at);
    CHECK_FALSE(enabled->failing_since);
    // Failing again starts a new spell rather than disabling it at once.
    attempt(hooks, failed_at(t1 + 1h, 3s));
    CHECK(hooks.find_subscription("wh_a")->enabled);

    // A 410 disables at once, with when and why.
    (void)subscribe(*f.store, "wh_b");
    (void)hooks.enqueue("wh_b", "webhook.test", "{}");
    (void)hooks.claim_due("server-a", 60s, 10);  // wh_a's retry and wh_b's delivery
    const auto to_b = hooks.deliveries("wh_b", 1).at(0);
    auto gone = outcome(DeliveryState::failed, 410);
    gone.disable_reason = "the receiver answered 410 Gone";
    REQUIRE(hooks.record_attempt(to_b.id, "server-a", gone));
    const auto b = hooks.find_subscription("wh_b");
    CHECK_FALSE(b->enabled);
    CHECK(b->disabled_at);
    CHECK(b->disabled_reason == "the receiver answered 410 Gone");
}

TEST_CASE("finished webhook deliveries are removed with their attempts in bounded batches, pending ones kept",
          "[store][webhooks]") {
    using namespace webhooks_store_test;
    FreshStore f;
    auto& hooks = f.store->webhooks();
    (void)subscribe(*f.store, "wh_a");
    std::vector<std::string> finished;
    for (int i = 0; i < 5; ++i) {
        const auto queued = hooks.enqueue("wh_a", "webhook.test", "{}");
        REQUIRE(hooks.claim_due("server-a", 60s, 1).size() == 1);
        REQUIRE(hooks.record_attempt(queued.id, "server-a",
                                     outcome(i == 0 ? DeliveryState::failed : DeliveryState::succeeded,
                                             i == 0 ? 500 : 200)));
        finished.push_back(queued.id);
    }
    const auto retrying = hooks.enqueue("wh_a", "webhook.test", "{}");
    REQUIRE(hooks.claim_due("server-a", 60s, 1).size() == 1);
    REQUIRE(hooks.record_attempt(retrying.id, "server-a", outcome(DeliveryState::pending, 500, 1h)));
    const auto leased = hooks.enqueue("wh_a", "webhook.test", "{}");
    REQUIRE(hooks.claim_due("server-a", 60s, 1).size() == 1);
    const auto waiting = hooks.enqueue("wh_a", "webhook.test", "{}");
    // Replayed: pending again, however old its last change.
    REQUIRE(hooks.replay("wh_a", finished[4]));

    CHECK(hooks.remove_finished_deliveries(millis_from_now(-1h), 100) == 0);  // all recent
    const auto cutoff = millis_from_now(1s);
    CHECK(hooks.remove_finished_deliveries(cutoff, 3) == 3);
    CHECK(hooks.remove_finished_deliveries(cutoff, 3) == 1);
    CHECK(hooks.remove_finished_deliveries(cutoff, 3) == 0);
    for (int i = 0; i < 4; ++i) {
        CHECK_FALSE(hooks.find_delivery(finished[static_cast<std::size_t>(i)]));
        CHECK(hooks.attempts(finished[static_cast<std::size_t>(i)]).empty());
    }
    for (const auto& kept : {finished[4], retrying.id, leased.id, waiting.id}) CHECK(hooks.find_delivery(kept));
    CHECK(hooks.attempts(finished[4]).size() == 1);
    CHECK(hooks.attempts(retrying.id).size() == 1);
    CHECK(hooks.deliveries("wh_a", 100).size() == 4);
}
