#pragma once
// A real HTTP server on loopback in front of a node (anvil) that forwards
// JSON-RPC requests (single or batched, bodies untouched) and injects the
// faults a client meets between it and a node: 429 with Retry-After, 502, a
// request held and then closed unanswered, a connection closed before the
// node saw the request or after it acted on it, and slow answers. Each kind
// has its own rate (the probability that an HTTP request gets it), drawn from
// a seeded generator so that a run can be replayed; rates, pass-through and
// the node's port can be changed while clients use it. Besides these drawn
// faults, a rule can answer every call of one JSON-RPC method with a given
// error, as a node that refuses it would (eth_estimateGas -> -32003
// "insufficient funds for gas * price + value" from some nodes).
//
// It speaks HTTP/1.1 over its own sockets rather than through httplib::Server,
// because closing a connection without a single byte of answer is exactly
// what an HTTP server library does not let a handler do.

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "core/os/fd.hpp"

namespace abci::test {

enum class Fault : std::size_t {
    too_many_requests,  // 429 with Retry-After, not forwarded
    bad_gateway,        // 502 with a non-JSON body, not forwarded
    hang,               // held for Options::hang_for, then closed unanswered, not forwarded
    drop_before,        // closed unanswered at once, not forwarded: the node never sees it
    drop_after,         // forwarded, the node answers, the client gets the connection closed
    slow,               // forwarded, answered after Options::slow_by
};
inline constexpr std::size_t kFaultKinds = 6;
inline constexpr std::array<Fault, kFaultKinds> kAllFaults{Fault::too_many_requests, Fault::bad_gateway, Fault::hang,
                                                           Fault::drop_before,       Fault::drop_after,  Fault::slow};
/// A short name for tables and messages: "429", "502", "hang", "drop-before", "drop-after", "slow".
[[nodiscard]] std::string_view fault_name(Fault fault) noexcept;

class FaultProxy {
public:
    struct Options {
        /// Seeds the draw of faults: the same seed, rates and request order give the same faults.
        std::uint64_t seed = 1;
        std::chrono::milliseconds hang_for{2'000};
        std::chrono::milliseconds slow_by{300};
        /// The Retry-After of a 429, in seconds.
        unsigned retry_after_seconds = 1;
    };

    /// Listens on a free loopback port, forwarding to 127.0.0.1:node_port;
    /// every rate starts at 0.
    FaultProxy(std::uint16_t node_port, Options options);
    explicit FaultProxy(std::uint16_t node_port) : FaultProxy(node_port, Options{}) {}
    /// Closes every connection (a hang ends at once) and waits for their threads.
    ~FaultProxy();
    FaultProxy(const FaultProxy&) = delete;
    FaultProxy& operator=(const FaultProxy&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

    /// The probability, in [0, 1], that a request gets `fault`; the rates of
    /// all kinds together must not exceed 1 (one fault at most per request).
    void set_rate(Fault fault, double rate);
    /// Every kind at `rate`.
    void set_all_rates(double rate);
    /// While on, every request is forwarded and answered untouched, whatever the rates.
    void set_pass_through(bool on);
    /// Forwards from now on to 127.0.0.1:node_port (a node restarted elsewhere).
    void set_node_port(std::uint16_t node_port);
    /// From now on every call of `method`, alone or in a batch, is answered
    /// {"error": {code, message}} with its id and not forwarded (the batch's
    /// other calls are). Drawn faults still apply first; pass-through ends it.
    void answer_rpc_error(const std::string& method, std::int64_t code, const std::string& message);
    /// The same with {"result": result}: a node that answers what the test chooses.
    void answer_rpc_result(const std::string& method, nlohmann::json result);
    /// Calls of `method` are forwarded again.
    void forward_method(const std::string& method);

    /// How many requests got `fault` so far.
    [[nodiscard]] std::uint64_t injected(Fault fault) const noexcept;
    [[nodiscard]] std::uint64_t injected_total() const noexcept;
    /// HTTP requests received, and those of them the node answered.
    [[nodiscard]] std::uint64_t requests() const noexcept { return requests_; }
    [[nodiscard]] std::uint64_t forwarded() const noexcept { return forwarded_; }
    /// JSON-RPC calls answered by an answer_rpc_error() or answer_rpc_result() rule so far.
    [[nodiscard]] std::uint64_t rpc_errors_answered() const noexcept { return rpc_errors_answered_; }

private:
    struct Request;
    enum class Outcome { answered, closed };

    void accept_loop();
    void serve_connection(os::UniqueFd fd);
    // Answers (or does not answer) one request on `fd`.
    Outcome handle(int fd, const Request& request);
    // The node's status and body, or nullopt when it cannot be reached.
    [[nodiscard]] std::optional<std::pair<int, std::string>> forward(const Request& request);
    // The answer to `request` when a rule answers some of its calls: those
    // answered by the rule, the others forwarded (nullopt: the node is down).
    // Nothing when no rule applies.
    [[nodiscard]] std::optional<std::optional<std::pair<int, std::string>>> apply_rules(const Request& request);
    [[nodiscard]] std::optional<Fault> draw();
    // Sleeps `duration` unless the proxy is being destroyed; false when it is.
    bool pause(std::chrono::milliseconds duration);

    Options options_;
    std::uint16_t port_ = 0;
    std::atomic<std::uint16_t> node_port_;
    os::UniqueFd listener_;
    std::thread acceptor_;

    mutable std::mutex mutex_;  // guards everything below up to the counters
    std::condition_variable changed_;
    bool stopping_ = false;
    bool pass_through_ = false;
    std::array<double, kFaultKinds> rates_{};
    std::mt19937_64 rng_;
    std::map<std::string, nlohmann::json> rpc_answers_;  // by method: {"error": ...} or {"result": ...}
    std::set<int> open_fds_;  // shut down by the destructor to end blocking reads
    std::size_t connections_ = 0;

    std::array<std::atomic<std::uint64_t>, kFaultKinds> injected_{};
    std::atomic<std::uint64_t> requests_{0};
    std::atomic<std::uint64_t> forwarded_{0};
    std::atomic<std::uint64_t> rpc_errors_answered_{0};
};

}  // namespace abci::test
