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
        std::map<json, json> own;  // id -> what the proxy answered for that call itself
        json forwarded = json::array();
        bool first = false;
        bool failed = false;
        {
            std::lock_guard lock(mutex_);
            first = calls_per_request_.empty();
            calls_per_request_.push_back(calls.size());
            for (const auto& call : calls) {
                const auto method = call.at("method").get<std::string>();
                ++counts_[method];
                const Override* chosen = nullptr;
                if (const auto it = overrides_.find(method); it != overrides_.end())
                    for (const auto& o : it->second)
                        if (!o.params || *o.params == call.value("params", json::array())) {
                            chosen = &o;
                            break;
                        }
                if (chosen && chosen->reply.is_null()) {
                    failed = true;
                } else if (chosen) {
                    json reply = chosen->reply;
                    reply["jsonrpc"] = "2.0";
                    reply["id"] = call.at("id");
                    own[call.at("id")] = std::move(reply);
                } else {
                    forwarded.push_back(call);
                }
            }
        }
        if (failed) {
            res.status = 502;
            return;
        }
        if (first) std::this_thread::sleep_for(options.stall_first);
        std::map<json, json> answered = own;
        if (!forwarded.empty()) {
            httplib::Client upstream("127.0.0.1", node_port);
            // Untouched when the proxy answers nothing itself: the node sees exactly what the client sent.
            const auto sent = own.empty() ? req.body : forwarded.dump();
            const auto answer = upstream.Post("/", sent, "application/json");
            if (!answer) {
                res.status = 502;
                return;
            }
            if (own.empty()) {
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

void MethodCountingProxy::override_calls(const std::string& method, Override override) {
    std::lock_guard lock(mutex_);
    auto& overrides = overrides_[method];
    overrides.insert(overrides.begin(), std::move(override));
}

void MethodCountingProxy::refuse(const std::string& method, int code, const std::string& message,
                                 std::optional<json> params) {
    override_calls(method, {std::move(params), {{"error", {{"code", code}, {"message", message}}}}});
}

void MethodCountingProxy::answer(const std::string& method, json result, std::optional<json> params) {
    override_calls(method, {std::move(params), {{"result", std::move(result)}}});
}

void MethodCountingProxy::fail_requests(const std::string& method) { override_calls(method, {std::nullopt, nullptr}); }

void MethodCountingProxy::pass(const std::string& method) {
    std::lock_guard lock(mutex_);
    overrides_.erase(method);
}

std::vector<std::size_t> MethodCountingProxy::calls_per_request() const {
    std::lock_guard lock(mutex_);
    return calls_per_request_;
}

}  // namespace abci::test
