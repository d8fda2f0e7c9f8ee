// /livez and /readyz: the probes of a process supervisor or load balancer,
// unauthenticated (a probe has no credentials) and outside the /abci gate.

#include <chrono>
#include <future>
#include <memory>
#include <mutex>

#include "core/service/service.hpp"
#include "serve/router.hpp"
#include "serve/routes/abci_views.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve {

namespace {

/// Anyone may ask /readyz, and each evaluation calls every chain's node: the
/// callers of one second share one evaluation, and concurrent callers wait
/// for the one running, so the nodes see at most one round of probes per
/// second however many ask. No lock is held while the probes run.
class SharedReadiness {
public:
    service::HealthReport get(service::AbciService& abci) {
        std::shared_future<service::HealthReport> answer;
        {
            std::lock_guard lock(mutex_);
            const auto now = std::chrono::steady_clock::now();
            if (!current_.valid() || now - started_ >= kReuseFor) {
                current_ = std::async(std::launch::async, [&abci] { return abci.readiness(); }).share();
                started_ = now;
            }
            answer = current_;
        }
        return answer.get();
    }

private:
    static constexpr std::chrono::seconds kReuseFor{1};
    std::mutex mutex_;
    std::shared_future<service::HealthReport> current_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace

std::vector<Route> probe_routes() {
    auto readiness = std::make_shared<SharedReadiness>();
    return {
        {Method::get, "/livez", Access::open, {},
         [](RequestContext&) { return Reply::json(200, {{"status", "alive"}}); }},
        {Method::get, "/readyz", Access::open, {},
         [readiness](RequestContext& ctx) {
             const auto report = readiness->get(ctx.services.abci);
             return Reply::json(health_status(report), health_view(report, "ready", "not ready"));
         }},
    };
}

}  // namespace abci::serve
