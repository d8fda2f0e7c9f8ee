// The JSON-RPC client against real processes on loopback: a real anvil, and
// small real HTTP(S) servers in front of it that misbehave on purpose
// (throttle, fail, stall, answer out of order) to exercise retry and failover.

#include <httplib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <thread>

#include "core/os/process.hpp"
#include "core/rpc/client.hpp"
#include "core/rpc/quantity.hpp"
#include "core/rpc/url.hpp"
#include "support/anvil.hpp"
#include "support/tools.hpp"

using namespace abci;
using nlohmann::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// An httplib server on a free loopback port, serving POST / with `handler`
// on its own thread until destroyed. `stopping` turns true at teardown so a
// handler that stalls on purpose can give up early.
class LoopbackServer {
public:
    using Handler = std::function<void(const httplib::Request&, httplib::Response&, const std::atomic<bool>& stopping)>;

    explicit LoopbackServer(Handler handler, std::unique_ptr<httplib::Server> server = std::make_unique<httplib::Server>())
        : server_(std::move(server)), handler_(std::move(handler)) {
        server_->set_tcp_nodelay(true);
        server_->Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
            ++requests_;
            handler_(req, res, stopping_);
        });
        port_ = server_->bind_to_any_port("127.0.0.1");
        REQUIRE(port_ > 0);
        thread_ = std::thread([this] { server_->listen_after_bind(); });
    }
    ~LoopbackServer() {
        stopping_ = true;
        server_->stop();
        thread_.join();
    }
    LoopbackServer(const LoopbackServer&) = delete;
    LoopbackServer& operator=(const LoopbackServer&) = delete;

    [[nodiscard]] std::string url(const std::string& scheme = "http", const std::string& path = "/") const {
        return scheme + "://127.0.0.1:" + std::to_string(port_) + path;
    }
    [[nodiscard]] int requests() const { return requests_; }

private:
    std::unique_ptr<httplib::Server> server_;
    Handler handler_;
    std::atomic<bool> stopping_{false};
    std::atomic<int> requests_{0};
    int port_ = 0;
    std::thread thread_;
};

// Passes a request body on to anvil and returns anvil's answer.
std::string forward(const abci::test::Anvil& anvil, const std::string& body) {
    httplib::Client client("127.0.0.1", anvil.port());
    auto res = client.Post("/", body, "application/json");
    REQUIRE(res);
    return res->body;
}

// A handler that answers `status` (with `headers`) to the first `failures`
// requests and forwards the rest to anvil.
LoopbackServer::Handler fail_then_forward(const abci::test::Anvil& anvil, int failures, int status,
                                          httplib::Headers headers = {}) {
    auto seen = std::make_shared<std::atomic<int>>(0);
    return [&anvil, seen, failures, status, headers](const httplib::Request& req, httplib::Response& res,
                                                     const std::atomic<bool>&) {
        if ((*seen)++ < failures) {
            res.status = status;
            for (const auto& [k, v] : headers) res.set_header(k, v);
            res.set_content("try again later", "text/plain");
            return;
        }
        res.set_content(forward(anvil, req.body), "application/json");
    };
}

rpc::Options fast_options() {
    rpc::Options o;
    o.backoff_base = 5ms;
    o.backoff_max = 20ms;
    o.connect_timeout = 500ms;
    o.call_timeout = 5s;
    return o;
}

// Init code that reverts with the ABI encoding of Error("boom"): it copies
// the 100-byte payload appended after its 11 bytes of code into memory and
// reverts with it. eth_call runs it as a contract creation.
const std::string kRevertPayload =
    "0x08c379a0"
    "0000000000000000000000000000000000000000000000000000000000000020"
    "0000000000000000000000000000000000000000000000000000000000000004"
    "626f6f6d00000000000000000000000000000000000000000000000000000000";
const std::string kRevertingInitCode = "0x6064" "80" "600b" "6000" "39" "6000" "fd" + kRevertPayload.substr(2);

json reverting_call_params() {
    return json::array({{{"from", abci::test::Anvil::dev_accounts()[0].address}, {"data", kRevertingInitCode}}, "latest"});
}

// Runs `f`, which must throw an E, and returns what it threw.
template <typename E = Error, typename F>
E thrown_by(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e;
    }
    FAIL("expected an exception, none was thrown");
    throw std::logic_error("unreachable");
}

const std::string kTenThousandEth = "0x21e19e0c9bab2400000";

}  // namespace

TEST_CASE("rpc: URL parsing keeps what the HTTP client needs", "[rpc]") {
    auto u = rpc::parse_url("HTTPS://user:p%40ss@Eth.Example.org:8443/v3/KEY?x=1#frag");
    CHECK(u.scheme == "https");
    CHECK(u.host == "eth.example.org");
    CHECK(u.port == 8443);
    CHECK(u.target == "/v3/KEY?x=1");
    CHECK(u.user == "user");
    CHECK(u.password == "p@ss");
    CHECK(u.origin() == "https://eth.example.org:8443");

    CHECK(rpc::parse_url("http://127.0.0.1").port == 80);
    CHECK(rpc::parse_url("https://node.example").port == 443);
    CHECK(rpc::parse_url("http://node.example?k=v").target == "/?k=v");
    auto v6 = rpc::parse_url("http://[::1]:8545/rpc");
    CHECK(v6.host == "[::1]");
    CHECK(v6.port == 8545);

    for (const char* bad : {"ftp://x/y", "node.example:8545", "http://", "http://h:0/", "http://h:70000/",
                            "http://h:12ab/", "http://[::1/"}) {
        INFO(bad);
        CHECK(thrown_by([&] { (void)rpc::parse_url(bad); }).kind() == ErrorKind::invalid_input);
    }
    // The error message never shows the secret it could not parse around.
    CHECK_THROWS_WITH(rpc::parse_url("ftp://h/v2/abcd1234SECRET"), !Catch::Contains("abcd1234SECRET"));
}

TEST_CASE("rpc: URL masking hides provider keys and credentials", "[rpc]") {
    CHECK(rpc::mask_url("https://eth-sepolia.g.alchemy.com/v2/abcd1234efgh5678ijkl") ==
          "https://eth-sepolia.g.alchemy.com/v2/****");
    CHECK(rpc::mask_url("https://sepolia.infura.io/v3/0123456789abcdef0123456789abcdef") ==
          "https://sepolia.infura.io/v3/****");
    CHECK(rpc::mask_url("https://sepolia.example/v3/KEY") == "https://sepolia.example/v3/****");
    CHECK(rpc::mask_url("https://rpc.ankr.com/eth_sepolia/9f8e7d6c5b4a39281706f5e4d3c2b1a0") ==
          "https://rpc.ankr.com/eth_sepolia/****");
    CHECK(rpc::mask_url("https://name.quiknode.pro/Ab12Cd34/") == "https://name.quiknode.pro/****/");
    CHECK(rpc::mask_url("https://lb.drpc.org/ogrpc?network=sepolia&dkey=Secret99") ==
          "https://lb.drpc.org/ogrpc?network=sepolia&dkey=****");
    CHECK(rpc::mask_url("https://node.example/?apikey=lowercaseword") == "https://node.example/?apikey=****");
    CHECK(rpc::mask_url("https://user:hunter2@node.example:8545/rpc") == "https://****@node.example:8545/rpc");
    CHECK(rpc::mask_url("http://127.0.0.1:8545") == "http://127.0.0.1:8545");
    CHECK(rpc::mask_url("http://127.0.0.1:8545/") == "http://127.0.0.1:8545/");
    CHECK(rpc::mask_url("https://node.example/rpc#token") == "https://node.example/rpc");
    CHECK(rpc::mask_url("not a url with SECRET") == "****");
}

TEST_CASE("rpc: quantities", "[rpc]") {
    CHECK(rpc::to_quantity(std::uint64_t{0}) == "0x0");
    CHECK(rpc::to_quantity(std::uint64_t{31337}) == "0x7a69");
    CHECK(rpc::to_quantity(eth::U256::parse("1000000000000000000")) == "0xde0b6b3a7640000");
    CHECK(rpc::quantity_to_u64(json("0x7a69"), "t") == 31337);
    CHECK(rpc::quantity_to_u64(json("0x0"), "t") == 0);
    CHECK(rpc::quantity_to_u64(json("0x00ff"), "t") == 255);
    CHECK(rpc::quantity_to_u64(json("0xffffffffffffffff"), "t") == UINT64_MAX);
    CHECK(rpc::quantity_to_u256(json(kTenThousandEth), "t") == eth::U256::parse("10000000000000000000000"));
    CHECK(rpc::quantity_to_u256(json("0x0"), "t").is_zero());
    for (const json& bad : {json("0x"), json("7a69"), json("0xzz"), json(12), json(nullptr), json("0x10000000000000000")}) {
        INFO(bad.dump());
        CHECK(thrown_by([&] { (void)rpc::quantity_to_u64(bad, "t"); }).kind() == ErrorKind::unavailable);
    }
    CHECK_THROWS_AS(rpc::quantity_to_u256(json("0x1" + std::string(64, '0')), "t"), Error);
}

TEST_CASE("rpc: calls, batches and errors against anvil", "[rpc]") {
    test::Anvil anvil({.chain_id = 1337});
    rpc::Client client({anvil.url()}, fast_options());

    CHECK(rpc::quantity_to_u64(client.call("eth_chainId"), "chain id") == 1337);
    CHECK(rpc::quantity_to_u64(client.call("eth_blockNumber", nullptr), "block number") == 0);
    CHECK(client.endpoints() == std::vector<std::string>{anvil.url()});

    SECTION("a batch answers in request order with per-item errors") {
        const auto& acct = test::Anvil::dev_accounts();
        auto out = client.batch({{"eth_chainId", {}},
                                 {"eth_getBalance", {acct[1].address, "latest"}},
                                 {"no_suchMethod", {}},
                                 {"eth_call", reverting_call_params()},
                                 {"eth_blockNumber", {}}});
        REQUIRE(out.size() == 5);
        CHECK(out[0].value() == "0x539");
        CHECK(out[1].value() == kTenThousandEth);
        REQUIRE_FALSE(out[2].ok());
        CHECK(out[2].error()->code() == -32601);
        CHECK_THROWS_AS(out[2].value(), rpc::RpcError);
        REQUIRE_FALSE(out[3].ok());
        CHECK(out[3].error()->data() == kRevertPayload);
        CHECK(out[4].value() == "0x0");
        CHECK(client.batch({}).empty());
    }

    SECTION("a JSON-RPC error carries code, message and revert data") {
        auto e = thrown_by<rpc::RpcError>([&] { (void)client.call("eth_call", reverting_call_params()); });
        CHECK(e.kind() == ErrorKind::chain_rejected);
        CHECK(e.code() == 3);
        CHECK_THAT(e.rpc_message(), Catch::Contains("execution reverted") && Catch::Contains("boom"));
        CHECK(e.data() == kRevertPayload);
        CHECK_THAT(e.what(), Catch::StartsWith("eth_call: execution reverted"));
    }

    SECTION("many threads share one client") {
        constexpr int kThreads = 16, kCalls = 50;
        std::atomic<int> correct{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                const auto& who = test::Anvil::dev_accounts()[t % 10].address;
                for (int i = 0; i < kCalls; ++i) {
                    try {
                        bool ok = i % 2 ? client.call("eth_getBalance", {who, "latest"}) == kTenThousandEth
                                        : client.call("eth_chainId") == "0x539";
                        if (ok) ++correct;
                    } catch (const std::exception&) {  // counted as wrong below
                    }
                }
            });
        for (auto& th : threads) th.join();
        CHECK(correct == kThreads * kCalls);
    }
}

TEST_CASE("rpc: batch answers are matched by id, not position", "[rpc]") {
    test::Anvil anvil;
    LoopbackServer reverser([&](const httplib::Request& req, httplib::Response& res, const std::atomic<bool>&) {
        auto answer = json::parse(forward(anvil, req.body));
        std::reverse(answer.begin(), answer.end());
        res.set_content(answer.dump(), "application/json");
    });
    rpc::Client client({reverser.url()}, fast_options());
    const auto& acct = test::Anvil::dev_accounts();
    auto out = client.batch({{"eth_chainId", {}}, {"eth_getTransactionCount", {acct[0].address, "latest"}},
                             {"eth_getBalance", {acct[2].address, "latest"}}});
    REQUIRE(out.size() == 3);
    CHECK(out[0].value() == "0x7a69");
    CHECK(out[1].value() == "0x0");
    CHECK(out[2].value() == kTenThousandEth);
}

TEST_CASE("rpc: failover from a dead URL to a live one, then preferring it", "[rpc]") {
    test::Anvil anvil;
    const auto dead = "http://127.0.0.1:" + std::to_string(os::free_loopback_port()) + "/v3/DEADKEY1";
    rpc::Client client({dead, anvil.url()}, fast_options());
    CHECK(client.preferred_endpoint() == 0);
    CHECK(client.call("eth_chainId") == "0x7a69");
    CHECK(client.preferred_endpoint() == 1);
    CHECK(client.call("eth_blockNumber") == "0x0");
    CHECK(client.preferred_endpoint() == 1);
    CHECK(client.endpoints()[0] == rpc::mask_url(dead));
    CHECK_THAT(client.endpoints()[0], Catch::EndsWith("/v3/****"));

    SECTION("with every URL dead the error names them, masked") {
        rpc::Options o = fast_options();
        o.retries = 2;
        rpc::Client nothing({dead}, o);
        auto e = thrown_by([&] { (void)nothing.call("eth_chainId"); });
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains("/v3/****") && Catch::Contains("cannot connect") &&
                                 Catch::Contains("3 attempts") && !Catch::Contains("DEADKEY1"));
        CHECK(e.details().size() == 3);
    }
}

TEST_CASE("rpc: retries on 429 and 5xx, then succeeds", "[rpc]") {
    test::Anvil anvil;
    SECTION("429 with Retry-After: 0") {
        LoopbackServer server(fail_then_forward(anvil, 2, 429, {{"Retry-After", "0"}}));
        rpc::Client client({server.url()}, fast_options());
        CHECK(client.call("eth_chainId") == "0x7a69");
        CHECK(server.requests() == 3);
    }
    SECTION("503") {
        LoopbackServer server(fail_then_forward(anvil, 3, 503));
        rpc::Client client({server.url()}, fast_options());
        CHECK(client.call("eth_blockNumber") == "0x0");
        CHECK(server.requests() == 4);
    }
    SECTION("a long Retry-After is honoured up to its cap") {
        LoopbackServer server(fail_then_forward(anvil, 1, 429, {{"Retry-After", "30"}}));
        rpc::Options o = fast_options();
        o.retry_after_max = 300ms;
        rpc::Client client({server.url()}, o);
        const auto started = Clock::now();
        CHECK(client.call("eth_chainId") == "0x7a69");
        const auto took = Clock::now() - started;
        CHECK(took >= 300ms);
        CHECK(took < 2s);
    }
    SECTION("a batch is retried as a whole") {
        LoopbackServer server(fail_then_forward(anvil, 1, 502));
        rpc::Client client({server.url()}, fast_options());
        auto out = client.batch({{"eth_chainId", {}}, {"eth_blockNumber", {}}});
        CHECK(out.at(0).value() == "0x7a69");
        CHECK(out.at(1).value() == "0x0");
        CHECK(server.requests() == 2);
    }
}

TEST_CASE("rpc: retries exhausted is unavailable, naming the masked endpoint", "[rpc]") {
    test::Anvil anvil;
    LoopbackServer server(fail_then_forward(anvil, 1000, 503));
    rpc::Options o = fast_options();
    o.retries = 4;
    rpc::Client client({server.url("http", "/v2/abcd1234SECRET")}, o);
    auto e = thrown_by([&] { (void)client.call("eth_chainId"); });
    CHECK(e.kind() == ErrorKind::unavailable);
    CHECK_THAT(e.what(), Catch::Contains("HTTP 503") && Catch::Contains("/v2/****") &&
                             !Catch::Contains("abcd1234SECRET"));
    CHECK(server.requests() == 5);
}

TEST_CASE("rpc: a JSON-RPC error is an answer and never retried", "[rpc]") {
    test::Anvil anvil;
    LoopbackServer server(fail_then_forward(anvil, 0, 200));
    rpc::Client client({server.url()}, fast_options());
    CHECK_THROWS_AS(client.call("eth_call", reverting_call_params()), rpc::RpcError);
    CHECK(server.requests() == 1);
    CHECK_THROWS_AS(client.call("no_suchMethod"), rpc::RpcError);
    CHECK(server.requests() == 2);
}

TEST_CASE("rpc: a JSON-RPC error sent with an HTTP error status is still an answer", "[rpc]") {
    LoopbackServer server([](const httplib::Request& req, httplib::Response& res, const std::atomic<bool>&) {
        auto request = json::parse(req.body);
        res.status = 500;
        res.set_content(json{{"jsonrpc", "2.0"},
                             {"id", request["id"]},
                             {"error", {{"code", -32000}, {"message", "nonce too low"}, {"data", {{"x", 1}}}}}}
                            .dump(),
                        "application/json");
    });
    rpc::Client client({server.url()}, fast_options());
    auto e = thrown_by<rpc::RpcError>([&] { (void)client.call("eth_sendRawTransaction", {"0x00"}); });
    CHECK(e.code() == -32000);
    CHECK(e.rpc_message() == "nonce too low");
    CHECK_FALSE(e.data());
    CHECK(e.details() == std::vector<std::string>{R"(data: {"x":1})"});
    CHECK(server.requests() == 1);
}

TEST_CASE("rpc: a call that must not be resent is retried only where nothing was acted on", "[rpc]") {
    test::Anvil anvil;
    const rpc::CallOptions once{.idempotent = false};
    SECTION("503 may have been acted on: not retried") {
        LoopbackServer server(fail_then_forward(anvil, 1, 503));
        rpc::Client client({server.url()}, fast_options());
        auto e = thrown_by([&] { (void)client.call("eth_chainId", {}, once); });
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains("not retried"));
        CHECK(server.requests() == 1);
    }
    SECTION("429 was refused unprocessed: retried") {
        LoopbackServer server(fail_then_forward(anvil, 1, 429));
        rpc::Client client({server.url()}, fast_options());
        CHECK(client.call("eth_chainId", {}, once) == "0x7a69");
        CHECK(server.requests() == 2);
    }
    SECTION("a refused connection: retried on the next URL") {
        const auto dead = "http://127.0.0.1:" + std::to_string(os::free_loopback_port());
        rpc::Client client({dead, anvil.url()}, fast_options());
        CHECK(client.call("eth_chainId", {}, once) == "0x7a69");
    }
}

TEST_CASE("rpc: malformed answers are failures, retried, then unavailable", "[rpc]") {
    std::string reply;
    LoopbackServer server([&](const httplib::Request&, httplib::Response& res, const std::atomic<bool>&) {
        res.set_content(reply, "application/json");
    });
    rpc::Options o = fast_options();
    o.retries = 1;
    rpc::Client client({server.url()}, o);
    auto expect_malformed = [&](const std::string& body, const std::string& why) {
        reply = body;
        const int before = server.requests();
        INFO(body);
        auto e = thrown_by([&] { (void)client.call("eth_chainId"); });
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains(why));
        CHECK(server.requests() - before == 2);
    };
    expect_malformed("<html>bad gateway</html>", "not JSON");
    expect_malformed(R"({"jsonrpc":"2.0","id":999999,"result":"0x1"})", "id does not match");
    expect_malformed(R"({"jsonrpc":"2.0","id":1})", "neither result nor error");
    expect_malformed(R"({"jsonrpc":"2.0","id":1,"error":{"message":"no code"}})", "malformed JSON-RPC error");
    expect_malformed(R"([{"jsonrpc":"2.0","id":1,"result":"0x1"}])", "not a JSON object");

    reply = R"([{"jsonrpc":"2.0","id":1,"result":"0x1"}])";
    CHECK_THROWS_WITH(client.batch({{"eth_chainId", {}}, {"eth_blockNumber", {}}}),
                      Catch::Contains("unexpected or repeated id"));
}

TEST_CASE("rpc: a stalled server times out promptly", "[rpc]") {
    LoopbackServer server([](const httplib::Request&, httplib::Response& res, const std::atomic<bool>& stopping) {
        const auto until = Clock::now() + 3s;
        while (!stopping && Clock::now() < until) std::this_thread::sleep_for(10ms);
        res.set_content("{}", "application/json");
    });
    rpc::Client client({server.url()}, fast_options());
    const auto started = Clock::now();
    CHECK(thrown_by([&] { (void)client.call("eth_chainId", {}, {.timeout = 300ms}); }).kind() == ErrorKind::timeout);
    const auto took = Clock::now() - started;
    CHECK(took >= 250ms);
    CHECK(took < 1s);
    CHECK(server.requests() == 1);
}

TEST_CASE("rpc: HTTPS verifies the server certificate", "[rpc]") {
    test::Anvil anvil;
    const auto dir = std::filesystem::temp_directory_path() / ("abci-rpc-tls-" + std::to_string(anvil.port()));
    std::filesystem::create_directories(dir);
    const auto cert = (dir / "cert.pem").string(), key = (dir / "key.pem").string();
    auto made = os::run_command({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                 "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                                 "-addext", "subjectAltName=IP:127.0.0.1"});
    INFO(made.err);
    REQUIRE(made.exit_code == 0);
    {
        LoopbackServer server(fail_then_forward(anvil, 0, 200),
                              std::make_unique<httplib::SSLServer>(cert.c_str(), key.c_str()));
        rpc::Options trusting = fast_options();
        trusting.ca_file = cert;
        rpc::Client trusted({server.url("https")}, trusting);
        CHECK(trusted.call("eth_chainId") == "0x7a69");

        rpc::Options system_store = fast_options();
        system_store.retries = 0;
        rpc::Client untrusted({server.url("https")}, system_store);
        auto e = thrown_by([&] { (void)untrusted.call("eth_chainId"); });
        CHECK(e.kind() == ErrorKind::unavailable);
        CHECK_THAT(e.what(), Catch::Contains("not trusted"));
    }
    std::filesystem::remove_all(dir);
}
