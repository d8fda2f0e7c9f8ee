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

// Waits (up to 10 s: a few blocks) until the node's pool is empty, so that a
// transaction sent late, e.g. a second one for a key, is mined before the
// chain is read; false when something stays (a nonce gap, a stuck transaction).
bool pool_drained(ChainServer& chain) {
    const auto empty = [&] {
        const auto status = chain.node_rpc("txpool_status");
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

// The topics of ERC-1155's TransferSingle and TransferBatch events (their
// `to` is the third indexed argument), from cast.
const std::set<std::string>& transfer_topics() {
    static const std::set<std::string> topics{
        lower(cast({"keccak", "TransferSingle(address,address,address,uint256,uint256)"})),
        lower(cast({"keccak", "TransferBatch(address,address,address,uint256[],uint256[])"}))};
    return topics;
}

}  // namespace

ChainMark mark(ChainServer& chain) {
    return {chain.anvil().block_number(),
            chain.nonce(ChainServer::signer())};
}

void judge(ChainServer& chain, const ChainMark& start, const Http& http, const std::string& token,
           const std::vector<Mint>& mints, const std::vector<Settled>& settled, Figures& figures,
           const Circumstances& circumstances) {
    const bool drained = pool_drained(chain);
    INFO("the node's pool after the run: " << chain.node_rpc("txpool_content").dump());
    CHECK(drained);

    // The signer's transactions of the run, block by block; those to the token
    // by hash, with their status and the wallets their events minted to.
    struct TokenTx {
        std::string status;
        std::set<std::string> recipients;
        std::uint64_t block = 0;
    };
    const auto end = mark(chain);
    const auto signer = lower(ChainServer::signer());
    const auto token_address = lower(chain.contract());
    std::uint64_t signer_transactions = 0;
    std::map<std::string, TokenTx> to_token;  // by hash
    for (auto block = start.block + 1; block <= end.block; ++block)
        for (const auto& receipt : chain.node_rpc("eth_getBlockReceipts", {fmt::format("0x{:x}", block)})) {
            if (lower(receipt["from"].get<std::string>()) != signer) continue;
            ++signer_transactions;
            if (!receipt["to"].is_string() || lower(receipt["to"].get<std::string>()) != token_address) continue;
            TokenTx tx{receipt["status"].get<std::string>(), {}, block};
            for (const auto& log : receipt["logs"]) {
                const auto& topics = log["topics"];
                if (lower(log["address"].get<std::string>()) == token_address && topics.size() >= 4 &&
                    transfer_topics().contains(lower(topics[0].get<std::string>())))
                    tx.recipients.insert("0x" + lower(topics[3].get<std::string>()).substr(26));
            }
            to_token[receipt["transactionHash"].get<std::string>()] = std::move(tx);
        }
    // Each nonce the signer used in the run is one of those transactions: none reused, none skipped.
    CHECK(end.nonce - start.nonce == signer_transactions);
    std::map<std::string, std::vector<std::string>> minted_to;  // wallet → the successful transactions minting to it
    for (const auto& [hash, tx] : to_token)
        if (tx.status == "0x1")
            for (const auto& wallet : tx.recipients) minted_to[wallet].push_back(hash);

    figures.mints = mints.size();
    std::set<std::string> named;         // by an answer, or the transaction of a mint whose outcome is unknown
    std::vector<std::uint64_t> allowed;  // per mint, the balances that keep the promise: 0 or its amount
    // Per mint, whether 0 and its amount both keep it: an unknown outcome
    // whose transaction a restarted server may send after the chain was read.
    std::vector<bool> either;
    std::size_t by_status = 0, unknown_landed = 0, answered_on_gone_chain = 0;
    for (std::size_t i = 0; i < mints.size(); ++i) {
        const auto& mint = mints[i];
        const auto& answer = settled[i].answer;
        allowed.push_back(mint.amount);
        either.push_back(settled[i].unknown);
        if (settled[i].unknown) {
            ++figures.unknown;
            const auto& landed = minted_to[lower(mint.recipient)];
            unknown_landed += landed.empty() ? 0 : 1;
            named.insert(landed.begin(), landed.end());
            allowed.back() = landed.empty() ? 0 : mint.amount;
            continue;
        }
        if (answer.status != 200) {
            finding(figures, fmt::format("unanswered: {} after {} attempts, last {} {}", mint.name,
                                         settled[i].attempts, answer.status, answer.body));
            continue;
        }
        ++figures.answered;
        by_status += settled[i].mint_id.empty() ? 0 : 1;
        figures.worst_answer_s =
            std::max(figures.worst_answer_s, std::chrono::duration<double>(settled[i].took).count());
        const auto hash = answer.json.is_object()
                              ? answer.json.value(json::json_pointer("/data/transactionHash"), std::string{})
                              : std::string{};
        named.insert(hash);
        const auto it = to_token.find(hash);
        if (circumstances.chain_reset_done && settled[i].at < *circumstances.chain_reset_done && it == to_token.end()) {
            ++answered_on_gone_chain;  // mined on the chain the reset took away
            allowed.back() = 0;
            continue;
        }
        if (it == to_token.end() || it->second.status != "0x1") {
            ++figures.wrong;
            std::string when;
            if (circumstances.chain_reset_done)
                when = fmt::format(", {} ms after the reset was done",
                                   std::chrono::duration_cast<std::chrono::milliseconds>(
                                       settled[i].at - *circumstances.chain_reset_done)
                                       .count());
            finding(figures, fmt::format("wrong: {} answered with {} in block {}{}, not a successful transaction of "
                                         "the signer to the token in this run",
                                         mint.name, hash,
                                         answer.json.value(json::json_pointer("/data/blockNumber"), json()).dump(),
                                         when));
        }
    }
    for (const auto& [hash, tx] : to_token)
        if (!named.contains(hash)) {
            ++figures.stray;
            finding(figures, fmt::format("stray: {} (status {}) is named by no answer", hash, tx.status));
        }
    std::map<int, int> refusals;
    for (const auto& s : settled)
        for (const auto& [status, count] : s.refusals) refusals[status] += count;
    std::string seen;
    for (const auto& [status, count] : refusals)
        seen += fmt::format("{}{} {}", seen.empty() ? "" : ", ", count, status == 0 ? "unanswered" : std::to_string(status));
    finding(figures, "answers before the last: " + (seen.empty() ? std::string("none") : seen));
    if (by_status > 0 || figures.unknown > 0)
        finding(figures, fmt::format("{} answers learned through the mint's status; {} outcomes unknown (no "
                                     "answer, no mint id), {} of them minted once on chain, {} not at all",
                                     by_status, figures.unknown, unknown_landed, figures.unknown - unknown_landed));
    if (answered_on_gone_chain > 0)
        finding(figures, fmt::format("{} mints answered before the reset named transactions of the chain it took "
                                     "away (their wallets hold nothing on the new one)",
                                     answered_on_gone_chain));

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
            const auto expected = allowed[indices[j]];
            if (held == expected || (either[indices[j]] && (held == 0 || held == mint.amount))) continue;
            if (held > expected)
                figures.duplicates += (held - expected + mint.amount - 1) / mint.amount;
            else
                ++figures.lost;
            finding(figures, fmt::format("{}: {} holds {} of token {}, asked {}, expected {} ({})",
                                         held > expected ? "duplicate" : "lost", mint.recipient, held, token_id,
                                         mint.amount, expected, mint.name));
        }
    }

    // Every key once more, all at once: a settled key answers as it first did.
    // A keyless mint cannot be repeated; its status must still say what it gave.
    // Unless a reorg took the first answer's block away: then the mint is
    // answered anew (mint.reorged, a second mint.confirmed), the same
    // transaction in the block that holds it now; only what the block sets
    // (its number, gas used and price, the answer's time, confirmations) differs.
    std::size_t answered_anew = 0;
    const auto anew_after_reorg = [&](const json& first, const json& now) {
        if (!first.is_object() || !now.is_object()) return false;
        const auto hash = now.value(json::json_pointer("/data/transactionHash"), std::string{});
        const auto it = to_token.find(hash);
        if (it == to_token.end() || hash != first.value(json::json_pointer("/data/transactionHash"), std::string{}) ||
            now.value(json::json_pointer("/data/blockNumber"), std::uint64_t{0}) != it->second.block)
            return false;
        auto a = first;
        auto b = now;
        for (auto* answer : {&a, &b})
            for (const char* moved : {"blockNumber", "gasUsed", "gasPrice", "timestamp", "confirmations"})
                (*answer)["data"].erase(moved);
        if (a != b) return false;
        ++answered_anew;
        return true;
    };
    const bool keyed = !mints.empty() && !mints.front().key.empty();
    const auto repeats = keyed ? Burst(http, token, mints, std::chrono::seconds(0)).wait() : std::vector<Settled>{};
    for (std::size_t i = 0; i < mints.size(); ++i) {
        if (settled[i].answer.status != 200) {
            if (keyed)  // already counted: what the key says now tells more
                finding(figures, fmt::format("unanswered: {} (first {}) now answers {} {}", mints[i].name,
                                             settled[i].answer.status, repeats[i].answer.status,
                                             repeats[i].answer.body));
            continue;
        }
        if (keyed && repeats[i].answer.json != settled[i].answer.json &&
            !anew_after_reorg(settled[i].answer.json, repeats[i].answer.json)) {
            ++figures.wrong;
            finding(figures, fmt::format("wrong: a repeat of {} answered {} {}, first {}", mints[i].name,
                                         repeats[i].answer.status, repeats[i].answer.body, settled[i].answer.body));
        }
        if (!keyed && !settled[i].mint_id.empty()) {
            const auto status = http.get("/abci/contracts/mints/" + settled[i].mint_id, token);
            const auto result = status.json.is_object() ? status.json.value(json::json_pointer("/data/result"), json())
                                                        : json();
            if (result != settled[i].answer.json && !anew_after_reorg(settled[i].answer.json, result)) {
                ++figures.wrong;
                finding(figures, fmt::format("wrong: the status of {} ({}) now says {} {}, first {}", mints[i].name,
                                             settled[i].mint_id, status.status, status.body, settled[i].answer.body));
            }
        }
    }
    if (answered_anew > 0)
        finding(figures, fmt::format("{} mints answered anew after a reorg moved their transaction to another block",
                                     answered_anew));
}

void require_exactly_once(const Figures& figures) {
    record(figures);
    INFO(figures.scenario << ", seed " << figures.seed << "; ABCI_CHAOS_SEED=" << base_seed() << " replays the suite");
    CHECK(figures.duplicates == 0);
    CHECK(figures.lost == 0);
    CHECK(figures.answered + figures.unknown == figures.mints);
    CHECK(figures.stray == 0);
    CHECK(figures.wrong == 0);
}

}  // namespace abci::test::chaos
