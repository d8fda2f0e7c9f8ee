// What the store tells a metrics scrape, on the backend under test: its
// transactions timed and their failures counted under its backend's name
// (store_metrics.hpp), and the queues waiting in it counted in one query
// (backlog.hpp).

#include <catch2/catch.hpp>

#include "core/metrics/registry.hpp"
#include "support/error_kind.hpp"
#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace store_metrics_test {

// The value of family `name`'s series whose labels are exactly `labels` (a histogram: its count).
std::optional<double> value_of(const metrics::Registry& registry, const std::string& name,
                               const metrics::Labels& labels) {
    for (const auto& family : registry.collect()) {
        if (family.name != name) continue;
        for (const auto& sample : family.samples) {
            if (sample.labels != labels) continue;
            if (family.type == metrics::MetricType::histogram) return static_cast<double>(sample.histogram.count);
            return sample.value;
        }
    }
    return std::nullopt;
}

// A mint queued for `chain`'s lane owner (Mints::begin with its job).
void queue_mint(Store& store, const std::string& chain) {
    MintRequest mint;
    mint.id = crypto::random_uuid();
    mint.actor = "user-1";
    mint.blockchain_id = chain;
    mint.fingerprint = "fp";
    REQUIRE_FALSE(store.mints().begin(
        mint, MintJob{.mint_id = mint.id, .blockchain_id = chain, .record = "{}", .content = "{}", .created_at = {}}));
}

AttemptOutcome gave_up() {
    return AttemptOutcome{.attempt = {.attempted_at = millis_from_now(0ms), .status = 503, .latency_ms = 9, .error = "HTTP 503"},
                          .state = DeliveryState::failed,
                          .retry_in = 0ms};
}

}  // namespace store_metrics_test

TEST_CASE("store metrics: transactions timed and failed ones counted under the backend's name", "[store][metrics]") {
    using namespace store_metrics_test;
    FreshStore f;
    metrics::Registry registry;
    f.store->set_metrics(registry);
    const metrics::Labels backend{{"backend", backend_under_test()}};
    const auto transactions = [&] { return value_of(registry, "abcictl_store_transaction_duration_seconds", backend); };
    const auto errors = [&] { return value_of(registry, "abcictl_store_errors_total", backend); };
    REQUIRE(transactions() == 0.0);
    REQUIRE(errors() == 0.0);

    const std::vector<NewAccount> accounts{{NewUser{"ann@example.org", "farmer", true}, {}}};
    REQUIRE(f.store->users().create_accounts(accounts).size() == 1);
    CHECK(transactions() == 1.0);
    CHECK(errors() == 0.0);
    // The same e-mail again: the transaction fails, and is timed too.
    CHECK(test::error_kind([&] { (void)f.store->users().create_accounts(accounts); }) == ErrorKind::conflict);
    CHECK(transactions() == 2.0);
    CHECK(errors() == 1.0);
}

TEST_CASE("the backlog counts mint jobs by chain and webhook deliveries pending and failed", "[store][metrics]") {
    using namespace store_metrics_test;
    FreshStore f;
    auto empty = f.store->backlog().count();
    CHECK(empty.mint_jobs.empty());
    CHECK(empty.webhooks_pending == 0);
    CHECK(empty.webhooks_failed == 0);

    for (int i = 0; i < 3; ++i) queue_mint(*f.store, "devnet");
    queue_mint(*f.store, "mainnet");
    auto& hooks = f.store->webhooks();
    (void)hooks.create_subscription(NewWebhookSubscription{.id = "wh_a",
                                                           .url = "https://hooks.example.org/in",
                                                           .events = {"mint.confirmed"},
                                                           .description = "",
                                                           .sealed_secret = "v1.sealed"});
    for (int i = 0; i < 3; ++i) (void)hooks.enqueue("wh_a", "webhook.test", "{}");
    const auto claimed = hooks.claim_due("server-a", 60s, 1);
    REQUIRE(claimed.size() == 1);
    REQUIRE(hooks.record_attempt(claimed[0].id, "server-a", gave_up()));

    const auto backlog = f.store->backlog().count();
    CHECK(backlog.mint_jobs == std::map<std::string, std::uint64_t>{{"devnet", 3}, {"mainnet", 1}});
    CHECK(backlog.webhooks_pending == 2);
    CHECK(backlog.webhooks_failed == 1);
}
