// The delivery worker's outbox (delivery.hpp): an event it could not render
// is tried again within seconds, under the outbox's own short lease rather
// than a delivery's (issue 34).

#include <catch2/catch.hpp>

#include <atomic>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/webhooks/delivery.hpp"
#include "support/cli_runner.hpp"
#include "support/eventually.hpp"

using namespace abci;
using namespace std::chrono_literals;

TEST_CASE("webhooks: an outbox event whose body could not be rendered is fanned out again within seconds",
          "[webhooks]") {
    const test::TempDir dir;
    const auto store = store::open_sqlite_store(dir / "abci.db");
    // A reserved address: each attempt is refused at once, without a connection.
    (void)store->webhooks().create_subscription(store::NewWebhookSubscription{
        .id = "wh_a", .url = "https://192.0.2.1/in", .events = {"mint.confirmed"}, .sealed_secret = "v1.x"});
    store::MintRequest mint;
    mint.id = crypto::random_uuid();
    mint.actor = "user-1";
    mint.blockchain_id = "chain";
    mint.fingerprint = "fp";
    REQUIRE_FALSE(store->mints().begin(mint));
    REQUIRE(store->mints().finish(mint.id, store::MintState::done, R"({"version":2})"));

    std::atomic<int> renders{0};
    const webhooks::EventViews views{
        .mint_result = [&](const std::string&) -> nlohmann::json {
            if (renders++ == 0) throw Error(ErrorKind::unavailable, "the view failed once");
            return {{"success", true}};
        },
        .certificate = [](const store::Certificate&) { return nlohmann::json::object(); }};
    const std::vector<std::uint8_t> server_secret(32, 7);
    const webhooks::SecretBox box(server_secret, webhooks::SecretBox::KeyPlace::apart_from_database);
    webhooks::DeliverySettings settings;
    settings.idle_check = 500ms;
    const auto started = std::chrono::steady_clock::now();
    const webhooks::DeliveryWorker worker(*store, box, settings, "server-a", views);
    REQUIRE(test::eventually([&] { return !store->webhooks().deliveries("wh_a", 10).empty(); }, 20s));
    CHECK(std::chrono::steady_clock::now() - started < 15s);
    CHECK(renders == 2);
}
