// Mint jobs (mint_jobs.hpp): queued with the mint's claim, gone once the
// mint's transaction is journaled or the mint ends; and the wake-ups other
// servers get for both (notifications.hpp; none for SQLite: one server).

#include <catch2/catch.hpp>

#include "support/store_helpers.hpp"

using namespace abci;
using namespace abci::store;
using namespace abci::store::testing;
using namespace std::chrono_literals;

namespace {

MintRequest job_mint(const std::string& key, const std::string& chain = "chain") {
    auto mint = mint_request("user-1", MintKind::entity, key, "fp");
    mint.blockchain_id = chain;
    return mint;
}

MintJob job_of(const MintRequest& mint) {
    return MintJob{.mint_id = mint.id,
                   .blockchain_id = mint.blockchain_id,
                   .record = R"({"op":"mint","mintId":")" + mint.id + "\"}",
                   .content = R"({"name":"é \u0000 ' \"; DROP TABLE mint_jobs; --"})",
                   .created_at = {}};
}

std::vector<std::string> queued_ids(Store& store, const std::string& chain = "chain", std::size_t limit = 100) {
    return store.mint_jobs().queued(chain, limit);
}

}  // namespace

TEST_CASE("a mint job is queued with its claim, oldest first per chain, and a replayed claim queues nothing",
          "[store][mint_jobs]") {
    FreshStore f;
    const auto first = job_mint("k1");
    const auto second = job_mint("k2");
    const auto elsewhere = job_mint("k3", "other-chain");
    const auto before = millis_from_now(0ms);
    REQUIRE_FALSE(f.store->mints().begin(first, job_of(first)));
    REQUIRE_FALSE(f.store->mints().begin(second, job_of(second)));
    REQUIRE_FALSE(f.store->mints().begin(elsewhere, job_of(elsewhere)));
    REQUIRE_FALSE(f.store->mints().begin(job_mint("")));  // no job: sent by this server

    CHECK(queued_ids(*f.store) == std::vector{first.id, second.id});
    const auto jobs = f.store->mint_jobs().find_all({"no such mint", second.id, first.id});
    REQUIRE(jobs.size() == 2);
    const auto& job = jobs[0];  // oldest first
    CHECK(job.mint_id == first.id);
    CHECK(job.blockchain_id == "chain");
    CHECK(job.record == job_of(first).record);
    CHECK(job.content == job_of(first).content);  // byte for byte
    CHECK(job.created_at >= before);
    CHECK(jobs[1].mint_id == second.id);
    CHECK(f.store->mint_jobs().find_all({"no such mint"}).empty());
    CHECK(f.store->mint_jobs().find_all({}).empty());
    CHECK(queued_ids(*f.store, "chain", 1) == std::vector{first.id});
    CHECK(queued_ids(*f.store, "other-chain") == std::vector{elsewhere.id});
    CHECK(f.store->mint_jobs().is_queued(second.id));

    // The same key again, with a job of its own: the first mint is answered, nothing queued twice.
    auto again = job_mint("k1");
    const auto existing = f.store->mints().begin(again, job_of(again));
    REQUIRE(existing);
    CHECK(existing->id == first.id);
    CHECK(queued_ids(*f.store) == std::vector{first.id, second.id});
    CHECK_FALSE(f.store->mint_jobs().is_queued(again.id));
}

TEST_CASE("a mint job ends with the journal write of its transaction, or with its mint", "[store][mint_jobs]") {
    FreshStore f;
    const auto journaled = job_mint("k1");
    const auto finished = job_mint("k2");
    const auto released = job_mint("k3");
    const auto refused = job_mint("k4");
    for (const auto& mint : {journaled, finished, released, refused})
        REQUIRE_FALSE(f.store->mints().begin(mint, job_of(mint)));

    JournalEntry entry{"0x" + std::string(64, 'a'), "chain", "0xabc", 0, "0x02f8", "{}", chain::TxStatus::pending, 0, {}, {}, {journaled.id}};
    f.store->journal().add({entry});
    f.store->mints().finish(finished.id, MintState::done, "{}");
    f.store->mints().release(released.id, "{}");
    CHECK(queued_ids(*f.store) == std::vector{refused.id});
    const std::vector<std::string> asked{journaled.id, finished.id, released.id, refused.id, "no such mint"};
    auto final_ids = f.store->mints().final_among(asked);
    std::sort(final_ids.begin(), final_ids.end());
    auto expected = std::vector{finished.id, released.id};
    std::sort(expected.begin(), expected.end());
    CHECK(final_ids == expected);
    CHECK(f.store->mints().final_among({}).empty());

    // A fenced-out write journals nothing, and the job stays for the lane's owner.
    const auto election = f.store->open_lane_election("server-a");
    const auto fence = election->hold("chain/0xabc");
    REQUIRE(fence);
    JournalEntry stale{"0x" + std::string(64, 'b'), "chain", "0xabc", 1, "0x02f8", "{}", chain::TxStatus::pending, 0, {}, {}, {refused.id}};
    CHECK_THROWS(f.store->journal().add({stale}, LaneFence{fence->lane, fence->epoch + 1}));
    CHECK(f.store->mint_jobs().is_queued(refused.id));
}

TEST_CASE("other servers hear of a queued mint, of one its sender gave up waiting for and of a settled one, where there are other servers",
          "[store][mint_jobs]") {
    FreshStore f;
    auto listener = f.store->listen({kMintQueuedChannel, kMintSettledChannel, kMintUnsettledChannel});
    if (!listener) {
        SUCCEED("SQLite: one server per database, no listener");
        return;
    }
    (void)listener->wait(0ms);  // listening from here on
    const auto mint = job_mint("k1");
    REQUIRE_FALSE(f.store->mints().begin(mint, job_of(mint)));
    f.store->mints().announce_unsettled(mint.id);
    CHECK(f.store->mints().find(mint.id)->state == MintState::pending);  // a word, not a write
    CHECK(f.store->mints().finish(mint.id, MintState::done, "{}"));
    CHECK_FALSE(f.store->mints().finish(mint.id, MintState::failed, "{}"));  // final already: nobody woken again

    std::vector<std::pair<std::string, std::string>> heard;
    for (int round = 0; round < 20 && heard.size() < 3; ++round)
        for (const auto& n : listener->wait(250ms)) heard.emplace_back(n.channel, n.payload);
    for (const auto& n : listener->wait(200ms)) heard.emplace_back(n.channel, n.payload);
    CHECK(heard == std::vector<std::pair<std::string, std::string>>{{kMintQueuedChannel, mint.id},
                                                                    {kMintUnsettledChannel, mint.id},
                                                                    {kMintSettledChannel, mint.id}});
}
