#pragma once
// A real HTTP server on loopback in front of a node (anvil) that passes every
// JSON-RPC request on and counts the calls, by method and per request (single
// or batched); it can also hold the first request back, or answer the calls
// of chosen methods itself with a JSON-RPC error (a node without
// eth_getBlockReceipts, or one failing a call at the moment a test needs),
// passing the other calls of the same batch on.

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <mutex>
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
    /// From now on, answers every call of `method` with error `code` and `message`; the node never sees it.
    void refuse(const std::string& method, int code, const std::string& message);
    /// Passes the calls of `method` on again.
    void pass(const std::string& method);

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    mutable std::mutex mutex_;
    std::map<std::string, int> counts_;
    std::vector<std::size_t> calls_per_request_;
    std::map<std::string, nlohmann::json> refusals_;  // method -> its error object
};

}  // namespace abci::test
