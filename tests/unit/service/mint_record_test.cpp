// The mint record (core/service/mint_record.hpp): journal rows written by
// earlier releases stay readable, and what cannot be read is refused.
//
// tests/fixtures/mint_records/journal_v1.db holds the tx_journal rows of
// main at 5947cb2 (the last release that wrote version 1 without a
// "version" member), made with
//   tests/fixtures/mint_records/make-fixture.sh <that release's abcictl> journal_v1.db
// which drives a real `serve --devnet`: a role mint without and one with an
// Idempotency-Key, an entity mint without and one with, a role request's
// approval, then with [mint_batching] on three concurrent entity mints (one
// mintMany). Each new version of the record keeps the files before it and
// adds the journal its predecessor writes, made the same way:
// journal_v1_versioned.db by main at fd8672e, the last release writing
// version 1 with a "version" member (version 2 names the kind).

#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "core/service/mint_record.hpp"
#include "core/error.hpp"

namespace {

// Qualified: the unity build shares this file's scope with store tests,
// whose store::MintRecord is the token ledger's row.
namespace journal = abci::service;
using nlohmann::json;

constexpr const char* kRoleRoute = "POST /abci/contracts/mint-role-token";
constexpr const char* kEntityRoute = "POST /abci/contracts/mint-entity-token";
constexpr auto kRole = abci::store::MintKind::role;
constexpr auto kEntity = abci::store::MintKind::entity;
constexpr auto kWorkflowRole = abci::store::MintKind::workflow_role;
constexpr const char* kAdmin = "80f430cb-569a-4f28-9ad1-d64c241a1ea8";
constexpr const char* kRoleRequest = "ba22612a-fca7-4e0c-b862-103f338ee852";

journal::MintRecord v1_record(std::string mint_id, abci::store::MintKind kind, const char* to, std::uint64_t token_id, std::uint64_t amount,
                  std::string cid, std::string entity_type, std::string entity_id, std::string actor, std::string key,
                  std::string role_request_id) {
    journal::MintRecord r;
    r.mint_id = std::move(mint_id);
    r.kind = kind;
    r.to = abci::eth::Address::parse(to);
    r.token_id = token_id;
    r.amount = amount;
    r.cid = std::move(cid);
    r.entity_type = std::move(entity_type);
    r.entity_id = std::move(entity_id);
    r.actor = std::move(actor);
    r.key = std::move(key);
    r.role_request_id = std::move(role_request_id);
    return r;
}

// The purposes of a fixture journal by nonce, as the fixture's run wrote them.
std::vector<std::string> fixture_purposes(const std::string& file = "journal_v1.db") {
    SQLite::Database db(std::string(ABCI_SOURCE_DIR) + "/tests/fixtures/mint_records/" + file, SQLite::OPEN_READONLY);
    SQLite::Statement rows(db, "SELECT nonce, purpose FROM tx_journal ORDER BY nonce");
    std::vector<std::string> purposes;
    while (rows.executeStep()) {
        CHECK(rows.getColumn("nonce").getInt64() == static_cast<std::int64_t>(purposes.size() + 1));
        purposes.push_back(rows.getColumn("purpose").getString());
    }
    return purposes;
}

// What parsing `purpose` refuses with: its message (the kind is checked).
std::string v1_refusal(const std::string& purpose) {
    try {
        (void)journal::parse_mint_purpose(purpose);
    } catch (const abci::Error& e) {
        CHECK(e.kind() == abci::ErrorKind::internal);
        return e.what();
    }
    FAIL("read: " << purpose);
    return {};
}

json entity_v1() {
    return {{"op", "mint"},           {"mintId", "m-1"},   {"route", kEntityRoute},
            {"to", "0x90f79bf6eb2c4f870365e785982e1f101e93b906"},     {"tokenId", 1300},
            {"amount", 2},            {"cid", "bafkrei"},  {"entityType", "certificate"},
            {"entityId", "c-1"},      {"actor", kAdmin},   {"key", "k-1"},
            {"roleRequestId", ""}};
}

}  // namespace

TEST_CASE("mint record: reads every field of the journal rows version 1 wrote (fixture journal_v1.db)", "[mint_record]") {
    const auto purposes = fixture_purposes();
    REQUIRE(purposes.size() == 6);
    const std::vector<std::pair<std::string, std::vector<journal::MintRecord>>> expected = {
        {"mint",
         {v1_record("fc0d7079-6114-4ce3-bba0-85266263ea2f", kRole, "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", 10000, 1,
                 "bafkreiccm243652juuwiys753t3pocnakdtiifisyi2abh2lysh4g62i24", "", "", kAdmin, "", "")}},
        {"mint",
         {v1_record("f7287e8c-0aa1-47d5-b428-fa0cf35d3096", kRole, "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc", 10100, 1,
                 "bafkreifsiy5r4akhrgarb6sr75s4gv5mtjzjkv2tbvtavpap5zyhk7y6oq", "", "", kAdmin, "role-key-1", "")}},
        {"mint",
         {v1_record("89032510-e57d-4e9b-b2ac-3c846f540b93", kEntity, "0x90f79bf6eb2c4f870365e785982e1f101e93b906", 1300, 1,
                 "bafkreifmrftacomoo5yisdsebg4hfhpny5inckokovlo25d5srmetyasqa", "certificate", "cert-1", kAdmin, "", "")}},
        {"mint",
         {v1_record("fadae5e4-51ed-49b6-9401-08b2218d7636", kEntity, "0x90f79bf6eb2c4f870365e785982e1f101e93b906", 1300, 3,
                 "bafkreiepk2rm7hlczh5n5qclv2c6hd222h4mzpvby7tfp75xkw7wdo44ie", "certificate", "cert-2", kAdmin,
                 "entity-key-1", "")}},
        {"mint",
         {v1_record("297c01bf-d850-4e61-a9ab-c850a06d45e5", kWorkflowRole, "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65", 10300, 1,
                 "bafkreidfc6ufhaq3p5lux3ql4nowlen7ues2sshdmlmqwk57tjbitxoabi", "", "", "workflow:role-request",
                 kRoleRequest, kRoleRequest)}},
        {"mintMany",
         {v1_record("46ca3e9f-3000-40d6-8e2a-58ce40750550", kEntity, "0x90f79bf6eb2c4f870365e785982e1f101e93b906", 1300, 2,
                 "bafkreihfa24elckirjiook2s6wifrgodejdy65uaqcq4x4hefkuyatailq", "certificate", "batch-2", kAdmin,
                 "batch-key-2", ""),
          v1_record("97d4677f-310c-4506-b5c4-f115b6b0213d", kEntity, "0x90f79bf6eb2c4f870365e785982e1f101e93b906", 1300, 1,
                 "bafkreiej7qyhmnzs3ccgynfvznnwtys43pxg5j2prek7wekwl26umeuc24", "certificate", "batch-1", kAdmin,
                 "batch-key-1", ""),
          v1_record("dca3477e-b782-4d04-a54a-bcff58e45726", kEntity, "0x90f79bf6eb2c4f870365e785982e1f101e93b906", 1300, 3,
                 "bafkreih2xsdr3iiehqf7mzixakk5sd7dcpk4mxvzysqpxrpf5my45psbji", "certificate", "batch-3", kAdmin,
                 "batch-key-3", "")}},
    };
    for (std::size_t i = 0; i < purposes.size(); ++i) {
        INFO("nonce " << i + 1 << ": " << purposes[i]);
        const auto read = journal::parse_mint_purpose(purposes[i]);
        CHECK(read.op == expected[i].first);
        CHECK(read.mints == expected[i].second);
    }
}

TEST_CASE("mint record: reads the journal rows the last release of version 1 wrote (fixture journal_v1_versioned.db)",
          "[mint_record]") {
    const auto purposes = fixture_purposes("journal_v1_versioned.db");
    REQUIRE(purposes.size() == 6);
    // The kind each row's mints are read as: the route, and for the approval's mint its workflow actor.
    const std::vector<std::vector<abci::store::MintKind>> kinds = {
        {kRole}, {kRole}, {kEntity}, {kEntity}, {kWorkflowRole}, {kEntity, kEntity, kEntity}};
    for (std::size_t i = 0; i < purposes.size(); ++i) {
        INFO("nonce " << i + 1 << ": " << purposes[i]);
        const auto written = json::parse(purposes[i]);
        const auto read = journal::parse_mint_purpose(purposes[i]);
        CHECK(read.op == written["op"]);
        const auto items = written.contains("items") ? written["items"] : json::array({written});
        REQUIRE(read.mints.size() == kinds[i].size());
        for (std::size_t j = 0; j < items.size(); ++j) {
            const auto& w = items[j];
            CHECK(w["version"] == 1);
            CHECK(read.mints[j] == v1_record(w["mintId"], kinds[i][j], w["to"].get<std::string>().c_str(), w["tokenId"],
                                             w["amount"], w["cid"], w["entityType"], w["entityId"], w["actor"], w["key"],
                                             w["roleRequestId"]));
        }
    }
}

TEST_CASE("mint record: what it writes reads back the same, alone and in a batch", "[mint_record]") {
    std::vector<journal::MintRecord> records;
    std::vector<std::string> texts;
    for (const auto& purpose : fixture_purposes())
        for (const auto& r : journal::parse_mint_purpose(purpose).mints) {
            records.push_back(r);
            texts.push_back(r.to_json().dump());
        }
    REQUIRE(records.size() == 8);
    for (std::size_t i = 0; i < records.size(); ++i) {
        INFO(texts[i]);
        CHECK(json::parse(texts[i])["version"] == journal::MintRecord::kVersion);
        const auto alone = journal::parse_mint_purpose(texts[i]);
        CHECK(alone.op == "mint");
        CHECK(alone.mints == std::vector<journal::MintRecord>{records[i]});
    }
    const auto batch = journal::parse_mint_purpose(journal::combine_mint_records(texts));
    CHECK(batch.op == "mintMany");
    CHECK(batch.mints == records);
}

TEST_CASE("mint record: a purpose that is no mint carries none", "[mint_record]") {
    const auto filler = journal::parse_mint_purpose("filler");  // the sender's own, for a nonce filler
    CHECK(filler.op.empty());
    CHECK(filler.mints.empty());
    const auto other = journal::parse_mint_purpose(R"({"op":"test","what":"a transfer"})");
    CHECK(other.op == "test");
    CHECK(other.mints.empty());
}

TEST_CASE("mint record: a record it cannot read whole is refused, naming why", "[mint_record]") {
    auto newer = entity_v1();
    newer["version"] = journal::MintRecord::kVersion + 1;
    CHECK_THAT(v1_refusal(newer.dump()), Catch::Contains("is version 3, this release reads versions up to 2"));

    for (const char* member : {"route", "to", "tokenId", "amount", "cid", "entityType", "entityId", "actor", "key",
                               "roleRequestId"}) {
        auto missing = entity_v1();
        missing.erase(member);
        CHECK_THAT(v1_refusal(missing.dump()), Catch::Contains(std::string("it has no \"") + member + "\""));
    }
    auto mistyped = entity_v1();
    mistyped["amount"] = "2";
    CHECK_THAT(v1_refusal(mistyped.dump()), Catch::Contains("\"amount\" is no non-negative integer"));
    mistyped = entity_v1();
    mistyped["to"] = "0x90f7";
    CHECK_THAT(v1_refusal(mistyped.dump()), Catch::Contains("\"to\" is no address"));

    // A batch is read whole or not at all.
    auto unreadable = entity_v1();
    unreadable.erase("cid");
    const std::string batch = journal::combine_mint_records({entity_v1().dump(), unreadable.dump()});
    CHECK_THAT(v1_refusal(batch), Catch::Contains("it has no \"cid\""));
    CHECK_THAT(v1_refusal(R"({"op":"mintMany","items":{}})"), Catch::Contains("no array"));

    auto unknown_kind = entity_v1();
    unknown_kind["route"] = "POST /abci/contracts/mint-batch";
    CHECK_THAT(v1_refusal(unknown_kind.dump()),
               Catch::Contains("\"route\" names no kind of mint this release knows: 'POST /abci/contracts/mint-batch'"));
    auto mistyped_kind = entity_v1();
    mistyped_kind["route"] = 1;
    CHECK_THAT(v1_refusal(mistyped_kind.dump()), Catch::Contains("\"route\" is no string"));

    // Rows written before mints had ids: actor, kind and key name the mint.
    auto without_id = entity_v1();
    without_id.erase("mintId");
    const auto read = journal::parse_mint_purpose(without_id.dump());
    REQUIRE(read.mints.size() == 1);
    CHECK(read.mints[0].mint_id.empty());
    CHECK(read.mints[0].key == "k-1");
}

TEST_CASE("mint record: version 2 names the kind, version 1's route is read as the kind the schema migration made of it",
          "[mint_record]") {
    using abci::store::MintKind;
    // Version 1, with and without its version member: the route and who
    // asked name the kind, as the migration of mint_requests reads them.
    const auto kind_read = [](const json& record) { return journal::MintRecord::from_json(record).kind; };
    for (const bool versioned : {false, true}) {
        auto v1 = entity_v1();
        if (versioned) v1["version"] = 1;
        CHECK(kind_read(v1) == kEntity);
        v1["key"] = "certificate:c-1";
        CHECK(kind_read(v1) == MintKind::certificate);
        v1["key"] = "Certificate:c-1";
        CHECK(kind_read(v1) == kEntity);
        v1["route"] = kRoleRoute;
        CHECK(kind_read(v1) == kRole);
        v1["actor"] = "workflow:role-request";
        CHECK(kind_read(v1) == kWorkflowRole);
    }
    // Version 2 writes the kind's name, and no route.
    for (const auto kind : abci::store::all_mint_kinds()) {
        auto record = journal::MintRecord::from_json(entity_v1());
        record.kind = kind;
        const auto written = record.to_json();
        CHECK(written["version"] == 2);
        CHECK(written["kind"] == abci::store::to_string(kind));
        CHECK_FALSE(written.contains("route"));
        CHECK(journal::MintRecord::from_json(written) == record);
    }
    auto v2 = journal::MintRecord::from_json(entity_v1()).to_json();
    v2["kind"] = kEntityRoute;
    CHECK_THAT(v1_refusal(v2.dump()),
               Catch::Contains("\"kind\" names no kind of mint this release knows: 'POST /abci/contracts/mint-entity-token'"));
    v2.erase("kind");
    v2["route"] = kEntityRoute;
    CHECK_THAT(v1_refusal(v2.dump()), Catch::Contains("it has no \"kind\""));
}
