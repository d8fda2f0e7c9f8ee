#include "chaos/burst.hpp"

#include <catch2/catch.hpp>
#include <thread>

namespace abci::test::chaos {
namespace {

using Clock = std::chrono::steady_clock;

struct Kind {
    const char* name;
    std::uint64_t token_id;
};
constexpr Kind kEntities[] = {{"report", 1000}, {"verification", 1100}, {"valuation", 1200}, {"certificate", 1300}};
constexpr Kind kRoles[] = {{"producer", 10000}, {"verifier", 10100}, {"valuator", 10200}, {"certifier", 10300}};

// Worth another attempt with the same key: nothing heard, the first attempt
// still running, or the server (or the node behind it) failing for now.
bool unsettled(const HttpResponse& r) { return r.status == 0 || r.status == 409 || r.status >= 500; }

Settled send_until_settled(const Http& http, const std::string& token, const Mint& mint,
                           Clock::time_point deadline) {
    Settled out;
    const auto start = Clock::now();
    for (;;) {
        out.answer = http.post(mint.route, mint.body, token, mint.key);
        ++out.attempts;
        if (!unsettled(out.answer) || Clock::now() >= deadline) break;
        ++out.refusals[out.answer.status];
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    out.at = Clock::now();
    out.took = out.at - start;
    return out;
}

// A keyless mint, sent again only when that cannot mint twice.
Settled follow_keyless(const Http& http, const std::string& token, const Mint& mint, Clock::time_point deadline) {
    Settled out;
    const auto start = Clock::now();
    std::string mint_id;  // the mint being followed by its status
    for (;;) {
        if (mint_id.empty()) {
            out.answer = http.post(mint.route, mint.body, token);
            ++out.attempts;
            if (out.answer.status == 200) break;
            if (out.answer.status == 0 && !out.answer.unsent) {
                out.unknown = true;  // it may have been signed; nothing names it
                break;
            }
            if (out.answer.json.is_object() && out.answer.json.contains("mintId"))
                mint_id = out.answer.json["mintId"].get<std::string>();
            else if (out.answer.status != 0 && out.answer.status != 429 && out.answer.status < 500)
                break;  // refused outright: the oracle reports it
            ++out.refusals[out.answer.status];
        } else {
            const auto status = http.get("/abci/contracts/mints/" + mint_id, token);
            if (status.status == 200 && status.json.is_object()) {
                const auto& data = status.json["data"];
                if (data["state"] == "mined") {
                    out.answer.status = 200;
                    out.answer.json = data["result"];
                    out.answer.body = data["result"].dump();
                    out.mint_id = mint_id;
                    break;
                }
                if (data["state"] == "failed") mint_id.clear();  // nothing of it can be mined: a new mint
            }
        }
        if (Clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    out.at = Clock::now();
    out.took = out.at - start;
    return out;
}

}  // namespace

std::vector<Mint> make_mints(ChainServer& chain, Random& random, const std::string& tag, std::size_t n,
                             bool keyed, const Env& store_env) {
    std::vector<Mint> mints;
    std::string holders;  // `admin user import` lines for the role mints' wallets
    for (std::size_t i = 0; i < n; ++i) {
        Mint mint;
        mint.recipient = random.address().checksummed();
        mint.name = (keyed ? "chaos-" : "keyless-") + tag + "-" + std::to_string(i);
        if (keyed) mint.key = {{"Idempotency-Key", mint.name}};
        if (i % 10 == 9) {
            const auto& role = kRoles[random.below(std::size(kRoles))];
            mint.route = "/abci/contracts/mint-role-token";
            mint.body = role_mint_body(mint.recipient, role.name);
            mint.token_id = role.token_id;
            mint.amount = 1;
            holders += nlohmann::json{{"email", "holder-" + tag + "-" + std::to_string(i) + "@example.org"},
                                      {"role", "farmer"},
                                      {"wallet", mint.recipient}}
                           .dump() +
                       "\n";
        } else {
            const auto& entity = kEntities[random.below(std::size(kEntities))];
            mint.route = "/abci/contracts/mint-entity-token";
            mint.amount = 1 + random.below(5);
            mint.body = entity_mint_body(mint.recipient, entity.name, tag + "-" + std::to_string(i), mint.amount);
            mint.token_id = entity.token_id;
        }
        mints.push_back(std::move(mint));
    }
    if (!holders.empty()) {
        const auto r =
            run_abcictl({"admin", "user", "import", "-", "--data-dir", chain.server().data_dir()}, holders, store_env);
        INFO("admin user import: " << r.out << r.err);
        REQUIRE(r.exit_code == 0);
    }
    return mints;
}

Burst::Burst(const Http& http, const std::string& token, std::vector<Mint> mints, std::chrono::seconds deadline,
             std::chrono::milliseconds spacing)
    : mints_(std::move(mints)) {
    const auto start = Clock::now();
    const auto until = start + spacing * static_cast<std::int64_t>(mints_.size()) + deadline;
    for (std::size_t i = 0; i < mints_.size(); ++i) {
        const auto at = start + spacing * static_cast<std::int64_t>(i);
        running_.push_back(std::async(std::launch::async, [http, token, &mint = mints_[i], until, at] {
            std::this_thread::sleep_until(at);
            return mint.key.empty() ? follow_keyless(http, token, mint, until)
                                    : send_until_settled(http, token, mint, until);
        }));
    }
}

std::vector<Settled> Burst::wait() {
    std::vector<Settled> out;
    for (auto& f : running_) out.push_back(f.get());
    return out;
}

}  // namespace abci::test::chaos
