// docs/metrics.md is the one list of the families `abcictl serve` exports:
// a scrape of a real server with a chain, after a mint, holds exactly the
// families listed there, and promtool (Debian's, from scripts/setup) finds
// nothing to lint in it (issue 32 items 2 and 5).

#include <fstream>
#include <set>
#include <sstream>

#include "serve/expect.hpp"
#include "support/anvil.hpp"
#include "support/chain_server.hpp"
#include "support/metrics_scrape.hpp"
#include "support/prometheus.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

/// The families a text-format scrape declares (its # TYPE lines).
std::set<std::string> exported_families(const std::string& scrape) {
    std::set<std::string> names;
    std::istringstream lines(scrape);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("# TYPE ")) names.insert(line.substr(7, line.find(' ', 7) - 7));
    return names;
}

/// The families docs/metrics.md lists: the first `name` of each table row.
std::set<std::string> documented_families() {
    std::ifstream in(source_path("docs/metrics.md"));
    std::set<std::string> names;
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("| `")) names.insert(line.substr(3, line.find('`', 3) - 3));
    return names;
}

std::string difference(const std::set<std::string>& a, const std::set<std::string>& b) {
    std::string out;
    for (const auto& name : a)
        if (!b.contains(name)) out += name + " ";
    return out;
}

}  // namespace

TEST_CASE("metrics: docs/metrics.md lists exactly the families a server with a chain exports, promtool check metrics is clean",
          "[serve][metrics][anvil]") {
    ChainServer chain({.env = metrics_env()});
    const Http metrics(metrics_url(chain.server()));
    const auto admin = chain.server().login_admin();
    const auto body = entity_mint_body(Anvil::dev_accounts()[3].address, "report", "R-metrics", 1);
    (void)require_entity_minted(chain.http().post("/abci/contracts/mint-entity-token", body, admin.token), body);

    const auto scrape = metrics.get("/metrics");
    REQUIRE(scrape.status == 200);
    const auto exported = exported_families(scrape.body);
    const auto documented = documented_families();
    INFO("exported, not in docs/metrics.md: " << difference(exported, documented));
    INFO("in docs/metrics.md, not exported: " << difference(documented, exported));
    CHECK(exported == documented);

    const auto lint = promtool({"check", "metrics"}, scrape.body);
    INFO(lint.out << lint.err);
    CHECK(lint.exit_code == 0);
}

}  // namespace abci::test
