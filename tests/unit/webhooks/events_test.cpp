#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "core/webhooks/events.hpp"
#include "support/error_kind.hpp"

using namespace abci;

namespace events_test {

using nlohmann::json;

store::MintEvent mint_event(store::EventType type, std::string answer = {}) {
    return store::MintEvent{.type = type,
                            .mint_id = "6f1c0e1e-0000-4000-8000-000000000001",
                            .blockchain_id = "devnet",
                            .idempotency_key = "order-1842",
                            .transaction_hash = type == store::EventType::mint_confirmed ? "" : "0x9a4e",
                            .answer = std::move(answer),
                            .at = store::TimePoint(std::chrono::milliseconds(1'795'000'000'123))};
}

// The view the server gives: here the stored answer parsed, with its size.
json as_is(const std::string& answer) { return json::parse(answer); }

}  // namespace events_test

TEST_CASE("webhooks: a mint event's body names the mint and its key, and what the event tells", "[webhooks]") {
    using namespace events_test;
    const auto submitted = json::parse(webhooks::event_body(mint_event(store::EventType::mint_submitted), as_is));
    CHECK(submitted == json::parse(R"({"type":"mint.submitted","timestamp":"2026-11-18T11:06:40.123Z",
        "data":{"mintId":"6f1c0e1e-0000-4000-8000-000000000001","idempotencyKey":"order-1842","blockchainId":"devnet",
                "statusUrl":"/abci/contracts/mints/6f1c0e1e-0000-4000-8000-000000000001","transactionHash":"0x9a4e"}})"));

    auto keyless = mint_event(store::EventType::mint_confirmed, R"({"success":true})");
    keyless.idempotency_key.clear();
    const auto confirmed = json::parse(webhooks::event_body(keyless, as_is));
    CHECK(confirmed["data"]["idempotencyKey"].is_null());
    CHECK(confirmed["data"]["result"] == json{{"success", true}});
    CHECK_FALSE(confirmed["data"].contains("transactionHash"));

    // Only {kind, message} of the stored error, whatever else its stored form holds.
    const auto failed = json::parse(webhooks::event_body(
        mint_event(store::EventType::mint_failed, R"({"version":1,"kind":"chain_rejected","message":"reverted"})"),
        as_is));
    CHECK(failed["type"] == "mint.failed");
    CHECK(failed["data"]["error"] == json{{"kind", "chain_rejected"}, {"message", "reverted"}});
    CHECK(test::error_kind([&] {
              (void)webhooks::event_body(mint_event(store::EventType::mint_failed, "{}"), as_is);
          }) == ErrorKind::internal);
}

TEST_CASE("webhooks: a result that would make the body 20 kB or more is left out, for the status route to give",
          "[webhooks]") {
    using namespace events_test;
    const json big{{"success", true}, {"data", {{"note", std::string(webhooks::kMaxEventBody, 'x')}}}};
    const auto body = webhooks::event_body(mint_event(store::EventType::mint_confirmed, big.dump()), as_is);
    CHECK(body.size() < webhooks::kMaxEventBody);
    const auto event = json::parse(body);
    CHECK_FALSE(event["data"].contains("result"));
    CHECK(event["data"]["resultOmitted"] == true);
    CHECK(event["data"]["statusUrl"] == "/abci/contracts/mints/6f1c0e1e-0000-4000-8000-000000000001");

    const json small{{"success", true}, {"data", {{"note", std::string(1000, 'x')}}}};
    CHECK(json::parse(webhooks::event_body(mint_event(store::EventType::mint_confirmed, small.dump()), as_is))["data"]
              ["result"] == small);
}

TEST_CASE("webhooks: certificate.issued is the certificate's view with its mint, its description left out when too "
          "long, and lane.owner_changed names the chain, signer, both owners and the epoch",
          "[webhooks]") {
    store::CertificateEvent issued{.certificate = {.id = "c-1", .description = std::string(200, '\x01')},
                                   .mint_id = "m-1",
                                   .at = store::TimePoint(std::chrono::milliseconds(1'795'000'000'123))};
    const webhooks::CertificateView view = [](const store::Certificate& c) {
        return json{{"id", c.id}, {"description", c.description}};
    };
    auto event = json::parse(webhooks::event_body(issued, view));
    CHECK(event == json{{"type", "certificate.issued"},
                        {"timestamp", "2026-11-18T11:06:40.123Z"},
                        {"data", {{"id", "c-1"}, {"description", issued.certificate.description}, {"mintId", "m-1"}}}});
    // Control characters are escaped six bytes each: 4,096 of them would not fit.
    issued.certificate.description = std::string(4096, '\x01');
    issued.mint_id.clear();
    const auto body = webhooks::event_body(issued, view);
    CHECK(body.size() < webhooks::kMaxEventBody);
    event = json::parse(body);
    CHECK(event["data"] == json{{"id", "c-1"}, {"mintId", nullptr}, {"descriptionOmitted", true}});

    const store::LaneEvent taken{.lane = "dev/net/0xabc", .owner = "10.0.0.6:8080 pid 977", .epoch = 1};
    event = json::parse(webhooks::event_body(taken));
    CHECK(event["type"] == "lane.owner_changed");
    CHECK(event["data"] == json{{"lane", "dev/net/0xabc"}, {"blockchainId", "dev/net"}, {"signerAddress", "0xabc"},
                                {"previousOwner", nullptr}, {"owner", "10.0.0.6:8080 pid 977"}, {"epoch", 1}});
    auto moved = taken;
    moved.previous_owner = "10.0.0.5:8080 pid 4121";
    CHECK(json::parse(webhooks::event_body(moved))["data"]["previousOwner"] == "10.0.0.5:8080 pid 4121");
    // Round trip through the outbox's stored form.
    const auto stored = store::parse_stored_event(moved.serialize());
    CHECK(std::get<store::LaneEvent>(stored).previous_owner == moved.previous_owner);
    CHECK(std::get<store::LaneEvent>(stored).epoch == 1);
}
