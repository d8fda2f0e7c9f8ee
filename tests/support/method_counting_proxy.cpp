#include "support/method_counting_proxy.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace abci::test {

using nlohmann::json;

MethodCountingProxy::MethodCountingProxy(std::uint16_t node_port, Options options) {
    server_.Post(".*", [=, this](const httplib::Request& req, httplib::Response& res) {
        const auto body = json::parse(req.body);
        const auto calls = body.is_array() ? body : json::array({body});
        bool refused = false, first = false;
        {
            std::lock_guard lock(mutex_);
            first = calls_per_request_.empty();
            calls_per_request_.push_back(calls.size());
            for (const auto& call : calls) {
                ++counts_[call.at("method").get<std::string>()];
                refused = refused || (options.refuse_block_receipts && call.at("method") == "eth_getBlockReceipts");
            }
        }
        if (first) std::this_thread::sleep_for(options.stall_first);
        if (refused) {
            json answers = json::array();
            for (const auto& call : calls)
                answers.push_back({{"jsonrpc", "2.0"},
                                   {"id", call.at("id")},
                                   {"error", {{"code", -32601}, {"message", "Method not found"}}}});
            res.set_content((body.is_array() ? answers : answers[0]).dump(), "application/json");
            return;
        }
        httplib::Client upstream("127.0.0.1", node_port);
        if (auto answer = upstream.Post("/", req.body, "application/json")) {
            res.status = answer->status;
            res.set_content(answer->body, "application/json");
        } else {
            res.status = 502;
        }
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
}

MethodCountingProxy::~MethodCountingProxy() {
    server_.stop();
    thread_.join();
}

int MethodCountingProxy::count(const std::string& method) const {
    std::lock_guard lock(mutex_);
    const auto it = counts_.find(method);
    return it == counts_.end() ? 0 : it->second;
}

std::vector<std::size_t> MethodCountingProxy::calls_per_request() const {
    std::lock_guard lock(mutex_);
    return calls_per_request_;
}

}  // namespace abci::test
