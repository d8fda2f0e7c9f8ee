#include "core/webhooks/delivery.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "core/error.hpp"
#include "core/rpc/http_transport.hpp"
#include "core/rpc/retry_after.hpp"
#include "core/util/log.hpp"
#include "core/webhooks/signature.hpp"
#include "core/webhooks/subscriptions.hpp"

namespace abci::webhooks {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using namespace std::chrono_literals;

// Fanning an event out is a render and one transaction, far less than an
// attempt's lease: an event left leased because it could not be rendered
// is tried again after this, not after a delivery's 55 s.
constexpr milliseconds kOutboxLease = 5s;

bool slow_down(int status) { return status == 429 || status == 502 || status == 503 || status == 504; }

std::string host_of(const rpc::Url& url) {
    const auto& host = url.host;
    return host.size() >= 2 && host.front() == '[' ? host.substr(1, host.size() - 2) : host;
}

// Long enough for one attempt (connect, send, answer), which it covers alone.
milliseconds lease_for(const DeliverySettings& settings) { return 3 * settings.timeout + 10s; }

std::int64_t unix_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

std::vector<milliseconds> DeliverySettings::default_schedule() {
    using namespace std::chrono;
    return {0ms, 5s, 5min, 30min, 2h, 5h, 10h, 14h, 20h, 24h};
}

milliseconds parse_wait(const std::string& text) {
    std::int64_t value = -1;
    const auto [rest, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    const std::string_view unit(rest, static_cast<std::size_t>(text.data() + text.size() - rest));
    const std::int64_t scale = unit == "ms" ? 1 : unit == "s" ? 1000 : unit == "m" ? 60'000 : unit == "h" ? 3'600'000 : 0;
    if (ec != std::errc() || value < 0 || scale == 0 || value > 7 * 86'400'000 / scale)
        throw Error(ErrorKind::invalid_input,
                    fmt::format("'{}' is not a wait such as 0s, 500ms, 5m or 2h (at most 7 days)", text));
    return milliseconds(value * scale);
}

std::vector<milliseconds> parse_schedule(const std::string& text) {
    std::vector<milliseconds> schedule;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(',', start), text.size());
        std::string entry = text.substr(start, end - start);
        entry.erase(0, entry.find_first_not_of(' '));
        entry.erase(entry.find_last_not_of(' ') + 1);
        try {
            schedule.push_back(parse_wait(entry));
        } catch (const Error& e) {
            throw Error(ErrorKind::invalid_input, fmt::format("retry schedule entry {}", e.what()));
        }
        start = end + 1;
    }
    return schedule;
}

std::string wait_text(milliseconds wait) {
    const auto ms = wait.count();
    if (ms % 3'600'000 == 0 && ms > 0) return std::to_string(ms / 3'600'000) + "h";
    if (ms % 60'000 == 0 && ms > 0) return std::to_string(ms / 60'000) + "m";
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

std::string schedule_text(const std::vector<milliseconds>& schedule) {
    std::string text;
    for (const auto wait : schedule) text += (text.empty() ? "" : ", ") + wait_text(wait);
    return text;
}

DeliveryWorker::DeliveryWorker(store::Store& store, const SecretBox& box, DeliverySettings settings, std::string owner,
                               EventViews views)
    : store_(store),
      box_(box),
      settings_(std::move(settings)),
      owner_(std::move(owner)),
      views_(std::move(views)),
      random_(std::random_device{}()) {
    for (std::size_t i = 0; i < settings_.concurrency; ++i)
        senders_.emplace_back([this] { send(); });
    thread_ = std::thread([this] { run(); });
    events_written_ = store::on_events_written([this] { wake(); });
}

DeliveryWorker::~DeliveryWorker() {
    events_written_.reset();
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
    // Only now: a claim the worker made while stopping is still sent, not left leased to no one.
    {
        const std::lock_guard lock(mutex_);
        closed_ = true;
    }
    handed_.notify_all();
    for (auto& sender : senders_) sender.join();
}

void DeliveryWorker::wake() {
    {
        const std::lock_guard lock(mutex_);
        woken_ = true;
    }
    changed_.notify_all();
}

milliseconds DeliveryWorker::with_jitter(milliseconds wait) {
    // Up to a tenth more, so that deliveries failed together by one outage
    // do not all come back in the same second.
    if (wait < 10ms) return wait;
    const std::lock_guard lock(mutex_);
    return wait + milliseconds(std::uniform_int_distribution<std::int64_t>(0, wait.count() / 10)(random_));
}

void DeliveryWorker::run() {
    const milliseconds lease = lease_for(settings_);
    const std::size_t senders = senders_.size();
    milliseconds wait = 0ms;
    for (;;) {
        std::size_t free = 0;
        {
            std::unique_lock lock(mutex_);
            changed_.wait_for(lock, wait, [&] { return woken_ || stopping_; });
            if (stopping_) return;
            woken_ = false;
            free = senders - busy_;
        }
        try {
            if (!fan_out(kOutboxLease)) return;
            // Claimed only for a free sender: what is claimed is sent now, not left leased in a queue.
            if (free > 0) {
                auto claimed = store_.webhooks().claim_due(owner_, lease, free);
                {
                    const std::lock_guard lock(mutex_);
                    busy_ += claimed.size();
                    for (auto& delivery : claimed) handed_over_.push_back(std::move(delivery));
                    free -= claimed.size();
                }
                handed_.notify_all();
            }
            // Every sender busy: the first to finish wakes the worker, before anything due could be sent.
            const auto due = free > 0 ? store_.webhooks().next_due() : std::nullopt;
            wait = due ? std::min(*due, settings_.idle_check) : settings_.idle_check;
        } catch (const Error& e) {
            util::log(util::LogLevel::warning, "webhook deliveries paused: the store failed",
                      {{"error", e.what()}, {"kind", to_string(e.kind())}});
            wait = 1s;
        }
    }
}

void DeliveryWorker::send() {
    for (;;) {
        std::optional<store::WebhookDelivery> next;
        {
            std::unique_lock lock(mutex_);
            handed_.wait(lock, [&] { return !handed_over_.empty() || closed_; });
            if (handed_over_.empty()) return;
            next = std::move(handed_over_.front());
            handed_over_.pop_front();
        }
        // Then on to the next due delivery while there is one: a backlog costs a claim and a
        // record each, as with one sender, not a hand-over through the worker's fan-out too.
        while (next) {
            const auto delivery = std::move(*next);
            next.reset();
            try {
                deliver(delivery);
                const bool stopping = [&] {
                    const std::lock_guard lock(mutex_);
                    return stopping_;
                }();
                if (stopping) break;
                auto claimed = store_.webhooks().claim_due(owner_, lease_for(settings_), 1);
                if (!claimed.empty()) next = std::move(claimed.front());
            } catch (const Error& e) {
                // Left leased: sent again when its lease runs out.
                util::log(util::LogLevel::warning, "webhook deliveries paused: the store failed",
                          {{"delivery", delivery.id}, {"error", e.what()}, {"kind", to_string(e.kind())}});
            }
        }
        {
            const std::lock_guard lock(mutex_);
            --busy_;
            woken_ = true;  // the subscription's next delivery, or another's, can go now
        }
        changed_.notify_all();
    }
}

bool DeliveryWorker::fan_out(milliseconds lease) {
    // A batch at a time: a mint's later event is claimable once its earlier one left the outbox.
    constexpr std::size_t kBatch = 64;
    for (;;) {
        const auto claimed = store_.webhooks().claim_events(owner_, lease, kBatch);
        for (const auto& outbox : claimed) {
            std::string body;
            try {
                body = event_body(outbox.event, views_);
            } catch (const Error& e) {
                // Left leased: the others go on, and it is tried again when its lease runs out.
                util::log(util::LogLevel::error, "a webhook event could not be rendered",
                          {{"webhook_id", outbox.id}, event_subject(outbox.event), {"error", e.what()}});
                continue;
            }
            const auto deliveries = store_.webhooks().fan_out(outbox.id, owner_, body);
            util::log(util::LogLevel::info, "webhook event queued",
                      {{"webhook_id", outbox.id},
                       {"type", to_string(store::type_of(outbox.event))},
                       event_subject(outbox.event),
                       {"deliveries", deliveries ? json(*deliveries) : json("lease lost")}});
        }
        if (claimed.empty()) return true;
        const std::lock_guard lock(mutex_);
        if (stopping_) return false;
    }
}

void DeliveryWorker::deliver(const store::WebhookDelivery& delivery) {
    const auto subscription = store_.webhooks().find_subscription(delivery.subscription_id);
    if (!subscription) return;  // removed since the claim: its deliveries went with it
    store::AttemptOutcome outcome{.disable_after = settings_.disable_after};
    outcome.attempt.attempted_at = std::chrono::system_clock::now();
    std::optional<milliseconds> retry_after;
    const auto started = std::chrono::steady_clock::now();
    try {
        const auto url = check_target_url(subscription->url, settings_.policy);
        // Checked now, and the connection goes to the address checked.
        const auto addresses = resolve_target(url, settings_.policy);
        auto client = rpc::make_http_client(url, {settings_.timeout, settings_.timeout});
        client->set_keep_alive(false);
        client->set_follow_location(false);
        client->set_hostname_addr_map({{host_of(url), addresses.front()}});
        const auto headers =
            sign_delivery(signing_secrets(*subscription, box_), delivery.message_id, unix_seconds(), delivery.body);
        httplib::Request request;
        request.method = "POST";
        request.path = url.target;
        request.body = delivery.body;
        request.set_header("Content-Type", "application/json");
        request.set_header("webhook-id", headers.id);
        request.set_header("webhook-timestamp", headers.timestamp);
        request.set_header("webhook-signature", headers.signature);
        auto answer = rpc::exchange(*client, request, settings_.timeout);
        if (const auto* failure = std::get_if<rpc::TransportFailure>(&answer)) {
            outcome.attempt.error = failure->reason;
        } else {
            const auto& response = std::get<httplib::Response>(answer);
            outcome.attempt.status = response.status;
            if (response.status < 200 || response.status > 299)
                outcome.attempt.error = fmt::format("the receiver answered {}", response.status);
            if (slow_down(response.status) && response.has_header("Retry-After"))
                retry_after = rpc::parse_retry_after(response.get_header_value("Retry-After"));
        }
    } catch (const Error& e) {
        outcome.attempt.error = e.what();
    }
    outcome.attempt.latency_ms =
        std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - started).count();

    const int status = outcome.attempt.status;
    const auto made = static_cast<std::size_t>(delivery.attempts) + 1;
    if (status >= 200 && status <= 299) {
        outcome.state = store::DeliveryState::succeeded;
    } else if (status == 410) {
        outcome.state = store::DeliveryState::failed;
        outcome.disable_reason = "the receiver answered 410 Gone: it wants no more deliveries";
    } else if (made < settings_.schedule.size()) {
        outcome.retry_in = std::max(with_jitter(settings_.schedule[made]), retry_after.value_or(0ms));
    } else {
        outcome.state = store::DeliveryState::failed;
    }
    // No URL (its path or query may hold the receiver's token), no secret.
    nlohmann::json fields{{"subscription", delivery.subscription_id},
                          {"delivery", delivery.id},
                          {"webhook_id", delivery.message_id},
                          {"attempt", made},
                          {"status", status},
                          {"latency_ms", outcome.attempt.latency_ms},
                          {"outcome", to_string(outcome.state)}};
    if (!outcome.attempt.error.empty()) fields["error"] = outcome.attempt.error;
    if (!store_.webhooks().record_attempt(delivery.id, owner_, outcome)) fields["lease"] = "lost";
    util::log(outcome.state == store::DeliveryState::succeeded ? util::LogLevel::info : util::LogLevel::warning,
              "webhook delivery attempt", fields);
}

}  // namespace abci::webhooks
