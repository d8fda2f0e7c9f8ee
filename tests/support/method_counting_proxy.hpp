#pragma once
// A real HTTP server on loopback in front of a node (anvil) that passes every
// JSON-RPC request on and counts the calls, by method and per request (single
// or batched); it can also hold the first request back, or play a node
// without eth_getBlockReceipts.

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <map>
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

private:
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
    mutable std::mutex mutex_;
    std::map<std::string, int> counts_;
    std::vector<std::size_t> calls_per_request_;
};

}  // namespace abci::test
