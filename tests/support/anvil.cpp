#define CATCH_CONFIG_EXTERNAL_INTERFACES  // for the listener below
#include "support/anvil.hpp"

#include <httplib.h>
#include <stdlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "support/tools.hpp"

namespace abci::test {
namespace {

using Clock = std::chrono::steady_clock;

// Whether the running test case has a failed assertion, so that a fixture
// torn down after a CHECK failure (no exception in flight) still shows its log.
std::atomic<bool> g_test_failed{false};

struct FailureTracker : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testCaseStarting(Catch::TestCaseInfo const& info) override {
        TestEventListenerBase::testCaseStarting(info);
        g_test_failed = false;
    }
    bool assertionEnded(Catch::AssertionStats const& stats) override {
        if (!stats.assertionResult.isOk()) g_test_failed = true;
        return true;
    }
};

std::string make_temp_dir() {
    auto pattern = (std::filesystem::temp_directory_path() / "abci-anvil-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw Error(ErrorKind::internal, "cannot create a temp directory " + pattern);
    return pattern;
}

// The node's chain id when it answers eth_chainId on `port`, nullopt while it does not.
std::optional<std::uint64_t> probe_chain_id(std::uint16_t port) {
    httplib::Client client("127.0.0.1", port);
    client.set_connection_timeout(std::chrono::milliseconds(200));
    client.set_read_timeout(std::chrono::milliseconds(500));
    auto res = client.Post("/", R"({"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]})", "application/json");
    if (!res || res->status != 200) return std::nullopt;
    auto answer = nlohmann::json::parse(res->body, nullptr, false);
    if (answer.is_discarded() || !answer.contains("result") || !answer["result"].is_string()) return std::nullopt;
    return std::stoull(answer["result"].get<std::string>(), nullptr, 16);
}

}  // namespace

CATCH_REGISTER_LISTENER(FailureTracker)

nlohmann::json json_rpc(const std::string& url, const std::string& method, const nlohmann::json& params) {
    httplib::Client client(url);
    client.set_connection_timeout(std::chrono::seconds(5));
    client.set_read_timeout(std::chrono::seconds(30));
    const nlohmann::json request{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}};
    const auto res = client.Post("/", request.dump(), "application/json");
    if (!res) throw std::runtime_error(fmt::format("{} to {}: {}", method, url, httplib::to_string(res.error())));
    const auto answer = nlohmann::json::parse(res->body, nullptr, false);
    if (res->status != 200 || !answer.is_object() || answer.contains("error") || !answer.contains("result"))
        throw std::runtime_error(fmt::format("{} to {}: HTTP {} {}", method, url, res->status, res->body));
    return answer["result"];
}

nlohmann::json Anvil::rpc(const std::string& method, const nlohmann::json& params) const {
    return json_rpc(url(), method, params);
}

namespace {
std::uint64_t quantity(const nlohmann::json& hex) { return std::stoull(hex.get<std::string>(), nullptr, 16); }
}  // namespace

std::uint64_t Anvil::block_number() const { return quantity(rpc("eth_blockNumber")); }

std::uint64_t Anvil::nonce(const std::string& who, bool pending) const {
    return quantity(rpc("eth_getTransactionCount", {who, pending ? "pending" : "latest"}));
}

const std::array<DevAccount, 10>& Anvil::dev_accounts() {
    static const std::array<DevAccount, 10> accounts{{
        {"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"},
        {"0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
        {"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"},
        {"0x90F79bf6EB2c4f870365E785982E1f101E93b906", "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"},
        {"0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"},
        {"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"},
        {"0x976EA74026E726554dB657fA54763abd0C3a0aa9", "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"},
        {"0x14dC79964da2C08b23698B3D3cc7Ca32193d9955", "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"},
        {"0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f", "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"},
        {"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720", "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"},
    }};
    return accounts;
}

Anvil::Anvil(Options options) : options_(std::move(options)), dir_(make_temp_dir()), log_path_(dir_ + "/anvil.log") {
    // The port is free when picked but may be taken before anvil binds it;
    // a node that died of anything else is not launched again (that would
    // hide an intermittent crash).
    for (int tries = 0; tries < 3; ++tries) {
        port_ = os::free_loopback_port();
        if (launch()) return;
        if (log_tail().find("in use") == std::string::npos) break;
    }
    throw Error(ErrorKind::unavailable, "anvil did not start; log " + log_path_ + ":\n" + log_tail());
}

Anvil::~Anvil() {
    stop();
    std::error_code ec;
    if (g_test_failed || std::uncaught_exceptions() > 0) {
        std::cerr << "---- anvil on port " << port_ << ", last lines of " << log_path_ << " (directory kept) ----\n"
                  << log_tail() << "---- end of anvil log ----\n";
    } else {
        std::filesystem::remove_all(dir_, ec);
    }
}

bool Anvil::launch() {
    std::vector<std::string> argv{tool("anvil"),
                                  "--host", "127.0.0.1",
                                  "--port", std::to_string(port_),
                                  "--chain-id", std::to_string(options_.chain_id),
                                  "--accounts", std::to_string(options_.accounts)};
    if (options_.block_time)
        argv.insert(argv.end(), {"--block-time", fmt::format("{:.3f}", options_.block_time->count() / 1000.0)});
    if (options_.persist_state) argv.insert(argv.end(), {"--state", dir_ + "/state.json"});
    argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
    process_.emplace(argv, log_path_);

    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
        if (!process_->running()) return false;
        if (auto id = probe_chain_id(port_)) {
            if (*id != options_.chain_id)
                throw Error(ErrorKind::internal,
                            fmt::format("port {} answers with chain id {}, not {}", port_, *id, options_.chain_id));
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    process_->stop();
    return false;
}

std::string Anvil::url() const { return "http://127.0.0.1:" + std::to_string(port_); }

void Anvil::stop() noexcept {
    if (process_) process_->stop(std::chrono::seconds(10));
}

void Anvil::start() {
    if (running()) return;
    if (!launch())
        throw Error(ErrorKind::unavailable,
                    fmt::format("anvil did not restart on port {}; log {}:\n{}", port_, log_path_, log_tail()));
}

std::vector<DevAccount> Anvil::accounts() const {
    const auto& all = dev_accounts();
    return {all.begin(), all.begin() + std::min<std::size_t>(options_.accounts, all.size())};
}

std::string Anvil::log_tail(std::size_t lines) const {
    return file_tail(log_path_, lines);
}

}  // namespace abci::test
