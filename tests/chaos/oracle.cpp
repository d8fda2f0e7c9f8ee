#include "chaos/oracle.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "support/tools.hpp"

namespace abci::test::chaos {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

json rpc(ChainServer& chain, const std::vector<std::string>& method_and_params) {
    std::vector<std::string> args{"rpc"};
    args.insert(args.end(), method_and_params.begin(), method_and_params.end());
    args.insert(args.end(), {"--rpc-url", chain.anvil().url()});
    return json::parse(cast(args));
}

// Waits (up to 10 s: a few blocks) until the node's pool is empty, so that a
// transaction sent late, e.g. a second one for a key, is mined before the
// chain is read; false when something stays (a nonce gap, a stuck transaction).
bool pool_drained(ChainServer& chain) {
    const auto empty = [&] {
        const auto status = rpc(chain, {"txpool_status"});
        return status["pending"] == "0x0" && status["queued"] == "0x0";
    };
    for (const auto deadline = Clock::now() + std::chrono::seconds(10); Clock::now() < deadline;) {
        if (empty()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return empty();
}

void finding(const Figures& figures, const std::string& what) {
    std::cout << "chaos " << figures.scenario << " (seed " << figures.seed << "): " << what << "\n";
}

}  // namespace

ChainMark mark(ChainServer& chain) {
    return {std::stoull(cast({"block-number", "--rpc-url", chain.anvil().url()})),
            chain.nonce(ChainServer::signer())};
}

void judge(ChainServer& chain, const ChainMark& start, const Http& http, const std::string& token,
           const Burst& burst, const std::vector<Settled>& settled, Figures& figures) {
    const auto& mints = burst.mints();
    const bool drained = pool_drained(chain);
    INFO("the node's pool after the run: " << rpc(chain, {"txpool_content"}).dump());
    CHECK(drained);

    // The signer's transactions of the run, block by block; those to the token by hash, with their status.
    const auto end = mark(chain);
    const auto signer = lower(ChainServer::signer());
    const auto token_address = lower(chain.contract());
    std::uint64_t signer_transactions = 0;
    std::map<std::string, std::string> to_token;  // hash → receipt status
    for (auto block = start.block + 1; block <= end.block; ++block)
        for (const auto& receipt : rpc(chain, {"eth_getBlockReceipts", fmt::format("0x{:x}", block)})) {
            if (lower(receipt["from"].get<std::string>()) != signer) continue;
            ++signer_transactions;
            if (receipt["to"].is_string() && lower(receipt["to"].get<std::string>()) == token_address)
                to_token[receipt["transactionHash"].get<std::string>()] = receipt["status"].get<std::string>();
        }
    // Each nonce the signer used in the run is one of those transactions: none reused, none skipped.
    CHECK(end.nonce - start.nonce == signer_transactions);

    figures.mints = mints.size();
    std::set<std::string> named;
    for (std::size_t i = 0; i < mints.size(); ++i) {
        const auto& answer = settled[i].answer;
        if (answer.status != 200) {
            finding(figures, fmt::format("unanswered: {} after {} attempts, last {} {}", mints[i].key[0].second,
                                         settled[i].attempts, answer.status, answer.body));
            continue;
        }
        ++figures.answered;
        figures.worst_answer_s =
            std::max(figures.worst_answer_s, std::chrono::duration<double>(settled[i].took).count());
        const auto hash = answer.json.is_object()
                              ? answer.json.value(json::json_pointer("/data/transactionHash"), std::string{})
                              : std::string{};
        named.insert(hash);
        if (const auto it = to_token.find(hash); it == to_token.end() || it->second != "0x1") {
            ++figures.wrong;
            finding(figures, fmt::format("wrong: {} answered with {}, not a successful transaction of the signer "
                                         "to the token in this run",
                                         mints[i].key[0].second, hash));
        }
    }
    for (const auto& [hash, status] : to_token)
        if (!named.contains(hash)) {
            ++figures.stray;
            finding(figures, fmt::format("stray: {} (status {}) is named by no answer", hash, status));
        }

    // The recipients' balances, one balanceOfBatch per token id.
    std::map<std::uint64_t, std::vector<std::size_t>> by_token;
    for (std::size_t i = 0; i < mints.size(); ++i) by_token[mints[i].token_id].push_back(i);
    for (const auto& [token_id, indices] : by_token) {
        std::vector<std::string> owners;
        for (const auto i : indices) owners.push_back(mints[i].recipient);
        const auto balances = chain.chain_balances(owners, token_id);
        for (std::size_t j = 0; j < indices.size(); ++j) {
            const auto& mint = mints[indices[j]];
            const auto held = std::stoull(balances[j]);
            if (held == mint.amount) continue;
            if (held > mint.amount)
                figures.duplicates += (held - mint.amount + mint.amount - 1) / mint.amount;
            else
                ++figures.lost;
            finding(figures, fmt::format("{}: {} holds {} of token {}, asked {} ({})",
                                         held > mint.amount ? "duplicate" : "lost", mint.recipient, held, token_id,
                                         mint.amount, mint.key[0].second));
        }
    }

    // Every key once more, all at once: a settled key answers as it first did.
    const auto repeats = Burst(http, token, mints, std::chrono::seconds(0)).wait();
    for (std::size_t i = 0; i < mints.size(); ++i)
        if (settled[i].answer.status == 200 && repeats[i].answer.json != settled[i].answer.json) {
            ++figures.wrong;
            finding(figures, fmt::format("wrong: a repeat of {} answered {} {}, first {}", mints[i].key[0].second,
                                         repeats[i].answer.status, repeats[i].answer.body,
                                         settled[i].answer.body));
        }
}

void require_exactly_once(const Figures& figures) {
    record(figures);
    INFO(figures.scenario << ", seed " << figures.seed << "; ABCI_CHAOS_SEED=" << base_seed() << " replays the suite");
    CHECK(figures.duplicates == 0);
    CHECK(figures.lost == 0);
    CHECK(figures.answered == figures.mints);
    CHECK(figures.stray == 0);
    CHECK(figures.wrong == 0);
}

}  // namespace abci::test::chaos
