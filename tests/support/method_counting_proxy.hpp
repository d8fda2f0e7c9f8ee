#pragma once
// A real HTTP server on loopback in front of a node (anvil) that passes every
// JSON-RPC request on and counts the calls, by method and per request (single
// or batched); it can also hold the first request back, or answer the calls
// of chosen methods itself, with a JSON-RPC error (a node without
// eth_getBlockReceipts, or one failing a call at the moment a test needs) or
// with a result of the test's choosing (a node answering nonsense), passing
// the other calls of the same batch on.

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace abci::test {

class MethodCountingProxy {
public:
    struct Options {
        /// Answer eth_getBlockReceipts itself with "method not found" (-32601).
        bool refuse_block_receipts = false;
        /// Hold the first request back this long, so that calls made
        /// meanwhile queue up behind it.
        std::chrono::milliseconds stall_first{0};
    };
    /// Listens on a free loopback port.
    MethodCountingProxy(std::uint16_t node_port, Options options);
    ~MethodCountingProxy();
    MethodCountingProxy(const MethodCountingProxy&) = delete;
    MethodCountingProxy& operator=(const MethodCountingProxy&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    /// How many calls of `method` passed so far.
    [[nodiscard]] int count(const std::string& method) const;
    /// How many calls each HTTP request carried, in arrival order.
    [[nodiscard]] std::vector<std::size_t> calls_per_request() const;
    /// From now on, answers every call of `method` (only those with exactly
    /// `params`, when given) with error `code` and `message`; the node never sees it.
    void refuse(const std::string& method, int code, const std::string& message,
                std::optional<nlohmann::json> params = std::nullopt);
    /// From now on, answers every call of `method` (only those with exactly
    /// `params`, when given) with `result`; the node never sees it.
    void answer(const std::string& method, nlohmann::json result, std::optional<nlohmann::json> params = std::nullopt);
    /// From now on, answers every HTTP request that carries a call of
    /// `method` with 502 and no body (a gateway whose node is gone); the node never sees it.
    void fail_requests(const std::string& method);
    /// Passes the calls of `method` on again.
    void pass(const std::string& method);

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    mutable std::mutex mutex_;
    std::map<std::string, int> counts_;
    std::vector<std::size_t> calls_per_request_;
    struct Override {
        std::optional<nlohmann::json> params;  // none: every call of the method
        nlohmann::json reply;                  // {"error": ...} or {"result": ...}; null: HTTP 502
    };
    void override_calls(const std::string& method, Override override);
    std::map<std::string, std::vector<Override>> overrides_;  // by method, the latest first
};

}  // namespace abci::test
