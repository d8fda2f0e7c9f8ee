#include "support/metrics_scrape.hpp"

#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/eventually.hpp"

namespace abci::test {

std::string metrics_url(const Server& server) {
    std::string listen;
    // The server logs it while it starts, a moment after its API port accepts connections.
    const bool found = eventually(
        [&] {
            std::istringstream lines(server.log());
            for (std::string line; std::getline(lines, line);) {
                const auto entry = nlohmann::json::parse(line, nullptr, false);
                if (entry.is_object() && entry.value("msg", "") == "serving metrics") listen = entry.value("listen", "");
            }
            return !listen.empty();
        },
        std::chrono::seconds(20));
    INFO(server.log());
    REQUIRE(found);
    return "http://" + listen;
}

}  // namespace abci::test
