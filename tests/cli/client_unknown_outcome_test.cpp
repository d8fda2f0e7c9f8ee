// Issue 14, item 14 for a mint whose outcome is unknown: -v adds to it what it
// adds to every other failure (the HTTP status and the request id, which the
// server's log names; for an answer that never came, the id the CLI sent),
// beside the mint id, the Idempotency-Key, the hashes and the status command
// that the error always carries. Black box, on a terminal as a person sees it,
// against a real server on a real anvil that mines nothing.

#include <chrono>
#include <regex>
#include <thread>

#include "cli/client_chain_fixture.hpp"

namespace abci::test::client {
namespace {

/// A terminal's transcript as lines, without the carriage returns the terminal adds.
std::vector<std::string> terminal_lines(const TerminalRun& run) {
    std::string text;
    for (const char c : run.transcript)
        if (c != '\r') text += c;
    return lines_of(text);
}

/// The first capture of `pattern` over a whole line of `lines`; "" when none matches.
std::string captured(const std::vector<std::string>& lines, const std::string& pattern) {
    const std::regex re(pattern);
    std::smatch m;
    for (const auto& line : lines)
        if (std::regex_search(line, m, re)) return m[1];
    return {};
}

/// Whether the server has logged its request line for request `id` with `status`, waiting up to 10 s for it
/// (the line is written once the answer has gone out).
bool request_logged(const Server& server, const std::string& id, int status) {
    const std::regex line("\"request_id\":\"" + id + "\".*\"status\":" + std::to_string(status) + "[,}]");
    for (int i = 0; i < 200; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(50)))
        if (std::regex_search(server.log(), line)) return true;
    return false;
}

}  // namespace

TEST_CASE("client -v on a mint of unknown outcome: the HTTP status and request id with the mint id, key, hashes and "
          "status command",
          "[client][verbose][mint-retry]") {
    ChainServer::Options options;
    // The server's 504 comes 1.5 s after signing, never before: the CLI's 1 s wait always ends first.
    options.devnet_keys = "receiptTimeoutMs = 1500\n";
    Fixture f(options);
    (void)f.chain.node_rpc("evm_setAutomine", {false});  // signed and sent, never mined

    // The CLI gives up first: no answer, yet -v names the request id the server logs it under.
    const auto gave_up = f.admin.run(with(f.mint_report("unknown-1"), "--name", "Unknown one", "-v", "--timeout", "1"));
    INFO(gave_up.err);
    CHECK(gave_up.exit_code == 1);
    const auto gave_up_lines = lines_of(gave_up.err);
    const auto sent_id = captured(gave_up_lines, R"(^  \(no HTTP answer within 1 s, request id ([0-9a-f-]{36})\)$)");
    CHECK_FALSE(sent_id.empty());
    CHECK(captured(gave_up_lines, R"(^  Idempotency-Key: (abcictl-\S+)$)").size() > 8);
    CHECK(captured(gave_up_lines, R"(^  (\S+ mint status --idempotency-key abcictl-\S+)$)").size() > 0);
    CHECK(std::count(gave_up_lines.begin(), gave_up_lines.end(), "  (error kind: timeout)") == 1);

    // The server's 504: on the terminal, every line a person needs to follow it up.
    const auto run = run_abcictl_on_terminal(with(f.mint_report("unknown-2"), "--name", "Unknown two", "-v"), {}, f.admin.env());
    const auto lines = terminal_lines(run);
    INFO(run.transcript);
    CHECK(run.exit_code == 1);
    const auto request_id = captured(lines, R"(^  \(HTTP 504, request id ([^ )]+)\)$)");
    CHECK_FALSE(request_id.empty());
    CHECK(std::count(lines.begin(), lines.end(), "  (error kind: timeout)") == 1);
    const auto mint_id = captured(lines, R"(^  mint id: +([0-9a-f-]{36})$)");
    CHECK_FALSE(mint_id.empty());
    CHECK(captured(lines, R"(^  Idempotency-Key: (abcictl-\S+)$)").size() > 8);
    CHECK(std::regex_match(captured(lines, R"(^  transactions: +(\S+)$)"), std::regex("0x[0-9a-f]{64}")));
    CHECK(captured(lines, "^  (\\S+ mint status " + mint_id + ")$").size() > 0);

    // The ids -v printed are the keys to the server's log lines of those requests.
    CHECK(request_logged(f.chain.server(), request_id, 504));
    CHECK(request_logged(f.chain.server(), sent_id, 504));
}

}  // namespace abci::test::client
