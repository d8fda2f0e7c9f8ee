// Webhook subscriptions and Standard Webhooks delivery (issue 34 items 2, 4,
// 6) against a real `abcictl serve` and a receiver that verifies every
// delivery with the specification's reference library (standardwebhooks).

#include <algorithm>
#include <csignal>
#include <thread>

#include "serve/expect.hpp"
#include "support/eventually.hpp"
#include "support/webhook_receiver.hpp"

namespace abci::test {
namespace {

using nlohmann::json;

// Targets on this machine over http, and retries compressed from hours to a few hundred milliseconds.
constexpr const char* kLocalWebhooks = R"toml(
[webhooks]
allowInsecureTargets = true
allowPrivateTargets = true
retrySchedule = "0s, 300ms, 300ms"
)toml";

struct Admin {
    Http http;
    std::string token;

    explicit Admin(const Server& server)
        : http(server.http()), token(server.login(Server::admin_email, Server::admin_password).token) {}

    [[nodiscard]] HttpResponse post(const std::string& path, const json& body = json::object()) const {
        return http.post(path, body, token);
    }
    [[nodiscard]] HttpResponse get(const std::string& path) const { return http.get(path, token); }
    [[nodiscard]] HttpResponse patch(const std::string& path, const json& body) const {
        return http.send("PATCH", path, body.dump(), "application/json", token);
    }
    [[nodiscard]] HttpResponse remove(const std::string& path) const {
        return http.send("DELETE", path, "", "application/json", token);
    }
    /// A subscription to `url` for webhook.test; its data (with the secret).
    [[nodiscard]] json subscribe(const std::string& url) const {
        const auto created = post("/api/admin/webhooks", {{"url", url}, {"events", {"webhook.test"}}});
        INFO(created.body);
        REQUIRE(created.status == 201);
        return json::parse(created.body)["data"];
    }
};

// Waits until the receiver holds `count` deliveries, and returns them.
json wait_for_deliveries(const WebhookReceiver& receiver, std::size_t count) {
    json received;
    const bool arrived = eventually([&] {
        received = receiver.received();
        return received.size() >= count;
    });
    INFO(received.dump());
    REQUIRE(arrived);
    return received;
}

std::string webhook_path(const json& subscription, const std::string& rest = "") {
    return "/api/admin/webhooks/" + subscription["id"].get<std::string>() + rest;
}

}  // namespace

TEST_CASE("webhooks: a subscription's test event arrives signed as Standard Webhooks says, its secret shown once",
          "[serve][webhooks]") {
    Server server({.config = kLocalWebhooks});
    const Admin admin(server);
    WebhookReceiver receiver;
    const auto subscription = admin.subscribe(receiver.url());
    const auto secret = subscription["secret"].get<std::string>();
    CHECK(secret.starts_with("whsec_"));
    CHECK(subscription["enabled"] == true);
    receiver.verify_with({secret});

    const auto test = admin.post(webhook_path(subscription, "/test"));
    REQUIRE(test.status == 202);
    const auto received = wait_for_deliveries(receiver, 1);
    CHECK(received[0]["verifiedWith"] == json::array({0}));
    CHECK(received[0]["path"] == "/hook");
    CHECK(received[0]["id"] == json::parse(test.body)["data"]["webhookId"]);
    const auto event = json::parse(received[0]["body"].get<std::string>());
    CHECK(event["type"] == "webhook.test");
    CHECK(event["data"]["subscriptionId"] == subscription["id"]);

    // The secret is never shown again, nor written to the log.
    for (const auto& answer : {admin.get("/api/admin/webhooks"), admin.get(webhook_path(subscription))}) {
        REQUIRE(answer.status == 200);
        CHECK(answer.body.find(secret) == std::string::npos);
        CHECK(answer.body.find("secret\"") == std::string::npos);
    }
    CHECK(server.log().find(secret) == std::string::npos);
    CHECK(server.log().find(secret.substr(6)) == std::string::npos);

    bool succeeded = false;
    CHECK(eventually([&] {
        const auto log = json::parse(admin.get(webhook_path(subscription, "/deliveries")).body)["data"];
        succeeded = log.size() == 1 && log[0]["state"] == "succeeded" && log[0]["attemptLog"].size() == 1 &&
                    log[0]["attemptLog"][0]["status"] == 200;
        return succeeded;
    }));
}

TEST_CASE("webhooks: a receiver's 500 is retried with the same webhook-id, a 410 disables the subscription",
          "[serve][webhooks]") {
    Server server({.config = kLocalWebhooks});
    const Admin admin(server);
    WebhookReceiver receiver;
    const auto subscription = admin.subscribe(receiver.url());
    receiver.verify_with({subscription["secret"].get<std::string>()});

    receiver.answer({500, 503});
    REQUIRE(admin.post(webhook_path(subscription, "/test")).status == 202);
    auto received = wait_for_deliveries(receiver, 3);
    CHECK(received[0]["answered"] == 500);
    CHECK(received[1]["answered"] == 503);
    CHECK(received[2]["answered"] == 200);
    for (const auto& delivery : received) {
        CHECK(delivery["id"] == received[0]["id"]);
        CHECK(delivery["body"] == received[0]["body"]);
        CHECK(delivery["verifiedWith"] == json::array({0}));
    }
    json log;
    CHECK(eventually([&] {
        log = json::parse(admin.get(webhook_path(subscription, "/deliveries")).body)["data"];
        return log.size() == 1 && log[0]["state"] == "succeeded";
    }));
    INFO(log.dump());
    REQUIRE(log[0]["attemptLog"].size() == 3);
    CHECK(log[0]["attemptLog"][0]["status"] == 500);
    CHECK(log[0]["attemptLog"][0]["error"] == "the receiver answered 500");

    // Every attempt fails: the delivery fails after the schedule, and a replay sends it once more, same id.
    receiver.answer({500, 500, 500, 200});
    const auto failing = json::parse(admin.post(webhook_path(subscription, "/test")).body)["data"];
    CHECK(eventually([&] {
        const auto all = json::parse(admin.get(webhook_path(subscription, "/deliveries")).body)["data"];
        return all[0]["id"] == failing["id"] && all[0]["state"] == "failed" && all[0]["attempts"] == 3;
    }));
    const auto replayed = admin.post(webhook_path(subscription, "/deliveries/" + failing["id"].get<std::string>() + "/replay"));
    REQUIRE(replayed.status == 202);
    received = wait_for_deliveries(receiver, 7);
    CHECK(received[6]["answered"] == 200);
    CHECK(received[6]["id"] == failing["webhookId"]);

    receiver.answer({410});
    REQUIRE(admin.post(webhook_path(subscription, "/test")).status == 202);
    json shown;
    CHECK(eventually([&] {
        shown = json::parse(admin.get(webhook_path(subscription)).body)["data"];
        return shown["enabled"] == false;
    }));
    CHECK(shown["disabledReason"].get<std::string>().find("410") != std::string::npos);
    REQUIRE(admin.post(webhook_path(subscription, "/test")).status == 202);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    CHECK(receiver.received().size() == 8);  // disabled: nothing more is sent
    const auto enabled = admin.patch(webhook_path(subscription), {{"enabled", true}});
    REQUIRE(enabled.status == 200);
    CHECK(json::parse(enabled.body)["data"]["disabledReason"].is_null());
    (void)wait_for_deliveries(receiver, 9);
}

TEST_CASE("webhooks: a receiver that hangs holds up its own subscription's deliveries only, each subscription's "
          "sent one at a time",
          "[serve][webhooks]") {
    Server server({.config = std::string(kLocalWebhooks) + "timeout = \"3s\"\n"});
    const Admin admin(server);
    WebhookReceiver hanging;
    WebhookReceiver slow;
    const auto stuck = admin.subscribe(hanging.url());
    const auto other = admin.subscribe(slow.url());
    hanging.answer(json::array({"hang", "hang", "hang", "hang"}));
    slow.policy({{"delayMs", 150}});
    REQUIRE(admin.post(webhook_path(stuck, "/test")).status == 202);
    REQUIRE(admin.post(webhook_path(stuck, "/test")).status == 202);
    (void)wait_for_deliveries(hanging, 1);
    constexpr std::size_t kEvents = 5;
    for (std::size_t i = 0; i < kEvents; ++i) REQUIRE(admin.post(webhook_path(other, "/test")).status == 202);

    json delivered;
    const bool all_ended = eventually([&] {
        delivered = slow.received();
        return delivered.size() == kEvents &&
               std::all_of(delivered.begin(), delivered.end(), [](const json& d) { return !d["endedAt"].is_null(); });
    });
    const auto held = hanging.received();
    INFO(delivered.dump() << "\nhanging: " << held.dump());
    REQUIRE(all_ended);
    // All of them while the hanging receiver still held the first attempt (3 s), and its second event not beside it.
    REQUIRE(held.size() == 1);
    CHECK(held[0]["endedAt"].is_null());
    for (std::size_t i = 1; i < delivered.size(); ++i)
        CHECK(delivered[i]["arrivedAt"].get<double>() >= delivered[i - 1]["endedAt"].get<double>());
}

TEST_CASE("webhooks: serve refuses a bad [webhooks] timeout or concurrency with one line naming it",
          "[serve][webhooks]") {
    require_refused_configs({
        {"[webhooks]\ntimeout = \"0s\"\n", "config key webhooks.timeout: must be a wait from 1ms to 60s"},
        {"[webhooks]\ntimeout = \"61s\"\n", "config key webhooks.timeout: must be a wait from 1ms to 60s"},
        {"[webhooks]\ntimeout = \"fast\"\n", "config key webhooks.timeout: must be a wait from 1ms to 60s"},
        {"[webhooks]\nconcurrency = 0\n", "config key webhooks.concurrency: must be an integer from 1 to 64"},
    });
}

TEST_CASE("webhooks: after a secret's rotation both the old and the new secret verify each delivery for 24 hours",
          "[serve][webhooks]") {
    Server server({.config = kLocalWebhooks});
    const Admin admin(server);
    WebhookReceiver receiver;
    const auto subscription = admin.subscribe(receiver.url());
    const auto old_secret = subscription["secret"].get<std::string>();
    const auto rotated = admin.post(webhook_path(subscription, "/rotate-secret"));
    REQUIRE(rotated.status == 200);
    const auto data = json::parse(rotated.body)["data"];
    const auto new_secret = data["secret"].get<std::string>();
    CHECK(new_secret != old_secret);
    CHECK_FALSE(data["previousSecretUntil"].is_null());
    receiver.verify_with({new_secret, old_secret, "whsec_" + std::string(43, 'A') + "="});

    REQUIRE(admin.post(webhook_path(subscription, "/test")).status == 202);
    const auto received = wait_for_deliveries(receiver, 1);
    CHECK(received[0]["verifiedWith"] == json::array({0, 1}));
    CHECK(received[0]["signature"].get<std::string>().find(' ') != std::string::npos);
}

TEST_CASE("webhooks: bad subscriptions are refused with 400: unknown events, http, and internal targets",
          "[serve][webhooks]") {
    Server server;  // the defaults: https only, public addresses only
    const Admin admin(server);
    const auto refused = [&](const json& body) {
        const auto answer = admin.post("/api/admin/webhooks", body);
        INFO(body.dump() << " -> " << answer.body);
        CHECK(answer.status == 400);
        return answer.body;
    };
    CHECK(refused({{"url", "https://hooks.example.org/"}, {"events", {"mint.confirmd"}}}).find("mint.confirmed") !=
          std::string::npos);
    (void)refused({{"url", "https://hooks.example.org/"}, {"events", json::array()}});
    (void)refused({{"url", "http://hooks.example.org/"}, {"events", {"webhook.test"}}});
    (void)refused({{"url", "https://hooks.example.org/"}, {"events", {"webhook.test"}}, {"secret", "whsec_x"}});
    for (const char* url : {"https://127.0.0.1/", "https://10.0.0.1/", "https://169.254.169.254/latest/meta-data/",
                            "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://localhost:8443/"}) {
        const auto body = refused({{"url", url}, {"events", {"webhook.test"}}});
        CHECK(body.find("allowPrivateTargets") != std::string::npos);
    }
    CHECK(json::parse(admin.get("/api/admin/webhooks").body)["data"].empty());
    CHECK(admin.get("/api/admin/webhooks/wh_none").status == 404);
    CHECK(admin.post("/api/admin/webhooks/wh_none/test").status == 404);
    CHECK(admin.remove("/api/admin/webhooks/wh_none").status == 404);
    // Admins only.
    server.add_user("farmer@example.org", "farmer", "a farmer's pass phrase 42");
    const auto farmer = server.login("farmer@example.org", "a farmer's pass phrase 42");
    CHECK(admin.http.post("/api/admin/webhooks", {{"url", "https://hooks.example.org/"}, {"events", {"webhook.test"}}},
                          farmer.token)
              .status == 403);
}

TEST_CASE("webhooks: a delivery pending when the server is killed is sent after the restart with its webhook-id",
          "[serve][webhooks]") {
    // The first attempt fails; the retry is due 5 s later, after the kill.
    Server server({.config = std::string(kLocalWebhooks).replace(std::string(kLocalWebhooks).find("0s, 300ms, 300ms"),
                                                                  16, "0s, 5s")});
    const Admin admin(server);
    WebhookReceiver receiver;
    const auto subscription = admin.subscribe(receiver.url());
    receiver.verify_with({subscription["secret"].get<std::string>()});
    receiver.answer({500});
    REQUIRE(admin.post(webhook_path(subscription, "/test")).status == 202);
    const auto first = wait_for_deliveries(receiver, 1);
    // Killed once the failed attempt is recorded: killed before, the delivery would stay leased to the dead
    // process for its whole lease (the chaos suite's webhook runs kill mid-attempt).
    json log;
    const bool recorded = eventually([&] {
        log = json::parse(admin.get(webhook_path(subscription, "/deliveries")).body)["data"];
        return log.size() == 1 && log[0]["attemptLog"].size() == 1;
    });
    INFO(log.dump());
    REQUIRE(recorded);
    REQUIRE(::kill(server.pid(), SIGKILL) == 0);
    CHECK(server.stop() == 128 + SIGKILL);
    server.restart();
    const auto received = wait_for_deliveries(receiver, 2);
    CHECK(received.size() == 2);
    CHECK(received[1]["id"] == first[0]["id"]);
    CHECK(received[1]["answered"] == 200);
    CHECK(received[1]["verifiedWith"] == json::array({0}));
}

}  // namespace abci::test

namespace abci::test {

TEST_CASE("webhooks: a subscription failing for disableAfter is disabled, says when and why, health counts it, "
          "and enabling it resumes its deliveries",
          "[serve][webhooks]") {
    Server server({.config = R"toml(
[webhooks]
allowInsecureTargets = true
allowPrivateTargets = true
retrySchedule = "0s, 1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s, 1s"
disableAfter = 3
)toml"});
    const Admin admin(server);
    WebhookReceiver receiver;
    const auto subscription = admin.subscribe(receiver.url());
    receiver.verify_with({subscription["secret"].get<std::string>()});
    receiver.answer(json(std::vector<int>(10, 500)));
    REQUIRE(admin.post(webhook_path(subscription, "/test")).status == 202);

    json shown;
    CHECK(eventually([&] {
        shown = json::parse(admin.get(webhook_path(subscription)).body)["data"];
        return shown["enabled"] == false;
    }, std::chrono::seconds(20), std::chrono::milliseconds(250)));  // slower than the admin's rate limit
    INFO(shown.dump());
    CHECK_FALSE(shown["disabledAt"].is_null());
    CHECK(shown["disabledReason"].get<std::string>().starts_with("failing since " +
                                                                 shown["failingSince"].get<std::string>()));
    // At least disableAfter between the first failed attempt and the one that disabled it, and nothing sent since.
    const auto sent = receiver.received().size();
    CHECK(sent >= 4);
    CHECK(sent < 10);
    const auto listed = json::parse(admin.get("/api/admin/webhooks").body)["data"];
    CHECK(listed[0]["disabledAt"] == shown["disabledAt"]);
    auto health = json::parse(admin.get("/abci/health").body)["checks"]["webhooks"];
    CHECK(health["healthy"] == true);
    CHECK(health["disabledSubscriptions"] == 1);
    CHECK(health["message"].get<std::string>().starts_with("1 webhook subscription(s) disabled"));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    CHECK(receiver.received().size() == sent);

    receiver.answer(json::array());
    const auto enabled = admin.patch(webhook_path(subscription), {{"enabled", true}});
    REQUIRE(enabled.status == 200);
    const auto data = json::parse(enabled.body)["data"];
    CHECK(data["enabled"] == true);
    CHECK(data["disabledAt"].is_null());
    CHECK(data["disabledReason"].is_null());
    CHECK(data["failingSince"].is_null());
    const auto received = wait_for_deliveries(receiver, sent + 1);
    CHECK(received[sent]["answered"] == 200);
    CHECK(received[sent]["id"] == received[0]["id"]);
    health = json::parse(admin.get("/abci/health").body)["checks"]["webhooks"];
    CHECK(health["disabledSubscriptions"] == 0);
    CHECK_FALSE(health.contains("message"));
}

}  // namespace abci::test
