#include "support/method_counting_proxy.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace abci::test {

using nlohmann::json;

MethodCountingProxy::MethodCountingProxy(std::uint16_t node_port, Options options) {
    if (options.refuse_block_receipts) refuse("eth_getBlockReceipts", -32601, "Method not found");
    server_.Post(".*", [=, this](const httplib::Request& req, httplib::Response& res) {
        const auto body = json::parse(req.body);
        const auto calls = body.is_array() ? body : json::array({body});
        std::map<json, json> refused;  // id -> the error answered for that call
        json forwarded = json::array();
        bool first = false;
        {
            std::lock_guard lock(mutex_);
            first = calls_per_request_.empty();
            calls_per_request_.push_back(calls.size());
            for (const auto& call : calls) {
                const auto method = call.at("method").get<std::string>();
                ++counts_[method];
                if (const auto it = refusals_.find(method); it != refusals_.end())
                    refused[call.at("id")] = {{"jsonrpc", "2.0"}, {"id", call.at("id")}, {"error", it->second}};
                else
                    forwarded.push_back(call);
            }
        }
        if (first) std::this_thread::sleep_for(options.stall_first);
        std::map<json, json> answered = refused;
        if (!forwarded.empty()) {
            httplib::Client upstream("127.0.0.1", node_port);
            // Untouched when nothing is refused: the node sees exactly what the client sent.
            const auto sent = refused.empty() ? req.body : forwarded.dump();
            const auto answer = upstream.Post("/", sent, "application/json");
            if (!answer) {
                res.status = 502;
                return;
            }
            if (refused.empty()) {
                res.status = answer->status;
                res.set_content(answer->body, "application/json");
                return;
            }
            for (const auto& a : json::parse(answer->body)) answered[a.at("id")] = a;
        }
        json answers = json::array();
        for (const auto& call : calls) answers.push_back(answered.at(call.at("id")));
        res.set_content((body.is_array() ? answers : answers[0]).dump(), "application/json");
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

void MethodCountingProxy::refuse(const std::string& method, int code, const std::string& message) {
    std::lock_guard lock(mutex_);
    refusals_[method] = {{"code", code}, {"message", message}};
}

void MethodCountingProxy::pass(const std::string& method) {
    std::lock_guard lock(mutex_);
    refusals_.erase(method);
}

std::vector<std::size_t> MethodCountingProxy::calls_per_request() const {
    std::lock_guard lock(mutex_);
    return calls_per_request_;
}

}  // namespace abci::test
