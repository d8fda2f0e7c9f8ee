#include "support/webhook_receiver.hpp"

#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "support/serve.hpp"
#include "support/tools.hpp"

namespace abci::test {

using namespace std::chrono_literals;

namespace {

nlohmann::json control(const std::string& base, const std::string& path, const nlohmann::json* body) {
    const Http http(base);
    const auto answer = body ? http.post(path, *body) : http.get(path);
    REQUIRE(answer.status == 200);
    return nlohmann::json::parse(answer.body);
}

}  // namespace

WebhookReceiver::WebhookReceiver() {
    const std::string log = dir_ / "webhook-receiver.log";
    // The port is free when picked but may be taken before node binds it.
    for (int tries = 0; tries < 3; ++tries) {
        port_ = os::free_loopback_port();
        process_.emplace(std::vector<std::string>{"node", source_path("tests/support/js/webhook_receiver.mjs"),
                                                  nlohmann::json{{"port", port_}}.dump()},
                         log);
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (std::chrono::steady_clock::now() < deadline && process_->running())
            if (os::wait_for_port(port_, 100ms)) return;
        process_->stop();
    }
    throw Error(ErrorKind::unavailable, "the webhook receiver did not start; see " + log);
}

WebhookReceiver::~WebhookReceiver() {
    if (process_) process_->stop();
}

std::string WebhookReceiver::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }

void WebhookReceiver::verify_with(const std::vector<std::string>& secrets) const {
    const nlohmann::json body{{"secrets", secrets}};
    (void)control("http://127.0.0.1:" + std::to_string(port_), "/_control/secrets", &body);
}

void WebhookReceiver::answer(const nlohmann::json& answers) const {
    const nlohmann::json body{{"answers", answers}};
    (void)control("http://127.0.0.1:" + std::to_string(port_), "/_control/answers", &body);
}

void WebhookReceiver::policy(const nlohmann::json& policy) const {
    (void)control("http://127.0.0.1:" + std::to_string(port_), "/_control/policy", &policy);
}

nlohmann::json WebhookReceiver::received() const {
    return control("http://127.0.0.1:" + std::to_string(port_), "/_control/received", nullptr);
}

}  // namespace abci::test
