#include "core/rpc/client.hpp"

#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <ctime>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/rpc/http_transport.hpp"
#include "core/rpc/retry_after.hpp"
#include "core/rpc/rpc_metrics.hpp"
#include "core/rpc/url.hpp"

namespace abci::rpc {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr const char* kSystemCaBundle = "/etc/ssl/certs/ca-certificates.crt";

bool is_hex_string(const json& j) {
    if (!j.is_string()) return false;
    const auto& s = j.get_ref<const std::string&>();
    return s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

std::optional<std::string> revert_data(const json& data) {
    if (is_hex_string(data)) return data.get<std::string>();
    if (data.is_object() && data.contains("data") && is_hex_string(data["data"])) return data["data"].get<std::string>();
    return std::nullopt;
}

std::vector<std::string> unrecognised_data(const json& data) {
    if (data.is_null() || revert_data(data)) return {};
    return {"data: " + data.dump()};
}

// Why an endpoint's attempt failed, and what that says about the request.
struct Failure {
    enum class Stage {
        not_sent,  // connect or TLS handshake failed: the server never saw the request
        refused,   // HTTP 4xx (429 included): the server declined without acting on it
        unsure,    // sent, then 5xx, reset, timeout or a malformed answer: it may have been acted on
    };
    Stage stage;
    bool timed_out;
    std::string why;
    std::optional<milliseconds> retry_after{};
    CallResult result = CallResult::dropped;  // as counted (rpc_metrics.hpp)
};

Failure from_transport(const TransportFailure& failure) {
    return {failure.stage == TransportFailure::Stage::not_sent ? Failure::Stage::not_sent : Failure::Stage::unsure,
            failure.timed_out(), failure.reason, std::nullopt,
            failure.timed_out() ? CallResult::timeout : CallResult::dropped};
}

// The requests of one exchange by method, for its metrics.
using MethodCounts = std::vector<std::pair<std::string_view, std::size_t>>;

// Checks the shape of one JSON-RPC response object; returns what is wrong, if anything.
std::optional<std::string> check_item(const json& item) {
    if (!item.is_object()) return "an answer is not a JSON object";
    const bool has_error = item.contains("error") && !item["error"].is_null();
    if (has_error) {
        const auto& e = item["error"];
        if (!e.is_object() || !e.contains("code") || !e["code"].is_number_integer() || !e.contains("message") ||
            !e["message"].is_string())
            return "malformed JSON-RPC error object: " + e.dump();
        return std::nullopt;
    }
    if (!item.contains("result")) return "an answer has neither result nor error";
    return std::nullopt;
}

bool has_error(const json& item) { return item.contains("error") && !item["error"].is_null(); }

RpcError make_rpc_error(const json& error, std::string_view method) {
    return RpcError(method, error["code"].get<std::int64_t>(), error["message"].get<std::string>(),
                    error.contains("data") ? error["data"] : json());
}

std::string serialise(const json& request) {
    try {
        return request.dump();
    } catch (const json::exception& e) {
        throw Error(ErrorKind::invalid_input, std::string("cannot serialise JSON-RPC request: ") + e.what());
    }
}

json request_object(std::uint64_t id, std::string_view method, json params) {
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"method", method},
            {"params", params.is_null() ? json::array() : std::move(params)}};
}

// Delay before retry round `round` (1, 2, …): exponential, capped, with
// "equal jitter" so that many callers backing off together spread out.
milliseconds backoff(unsigned round, const Options& o) {
    const auto base = std::max<std::int64_t>(o.backoff_base.count(), 1);
    const auto cap = std::max<std::int64_t>(o.backoff_max.count(), base);
    const auto full = std::min<std::int64_t>(cap, base << std::min(round - 1, 20u));
    thread_local std::minstd_rand rng{std::random_device{}()};
    std::uniform_int_distribution<std::int64_t> jitter(0, full / 2);
    return milliseconds(full - full / 2 + jitter(rng));
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value) {
    if (value.empty()) return std::nullopt;
    unsigned long long seconds = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc{} && ptr == value.data() + value.size())
        return milliseconds(std::min<unsigned long long>(seconds, 86'400) * 1000);
    std::tm tm{};
    if (const char* end = ::strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm); end && *end == '\0') {
        auto delta = ::timegm(&tm) - std::time(nullptr);
        return milliseconds(std::clamp<std::time_t>(delta, 0, 86'400) * 1000);
    }
    return std::nullopt;
}

RpcError::RpcError(std::string_view method, std::int64_t code, std::string message, const json& data)
    : Error(ErrorKind::chain_rejected, fmt::format("{}: {} (JSON-RPC error {})", method, message, code),
            unrecognised_data(data)),
      code_(code),
      rpc_message_(std::move(message)),
      data_(revert_data(data)) {}

const json& Outcome::value() const {
    if (const auto* e = error()) throw *e;
    return std::get<json>(value_);
}

struct Client::Impl {
    struct Endpoint {
        Url url;
        std::string display;
        std::mutex mutex;  // guards idle only
        std::vector<std::unique_ptr<httplib::Client>> idle;
    };
    using Check = std::function<std::optional<std::string>(const json&)>;

    Options options;
    std::string ca_file;
    std::vector<std::unique_ptr<Endpoint>> endpoints;
    std::atomic<std::size_t> preferred{0};
    std::atomic<std::uint64_t> next_id{1};

    std::unique_ptr<httplib::Client> checkout(Endpoint& ep) const {
        {
            std::lock_guard lock(ep.mutex);
            if (!ep.idle.empty()) {
                auto client = std::move(ep.idle.back());
                ep.idle.pop_back();
                return client;
            }
        }
        // Timeouts are set per attempt, from the call's deadline.
        return make_http_client(ep.url, {options.connect_timeout, options.attempt_timeout}, ca_file);
    }

    void give_back(Endpoint& ep, std::unique_ptr<httplib::Client> client) const {
        std::lock_guard lock(ep.mutex);
        if (ep.idle.size() < options.idle_connections) ep.idle.push_back(std::move(client));
    }

    // One HTTP exchange with `ep`: the parsed answer, or why there is none.
    std::variant<json, Failure> attempt(Endpoint& ep, const std::string& body, const Check& check,
                                        Clock::time_point deadline) const {
        const auto remaining = std::max(std::chrono::duration_cast<milliseconds>(deadline - Clock::now()),
                                        milliseconds(1));
        const auto read_timeout = std::min(options.attempt_timeout, remaining);
        auto client = checkout(ep);
        client->set_connection_timeout(std::min(options.connect_timeout, remaining));
        client->set_read_timeout(read_timeout);
        client->set_write_timeout(read_timeout);
        httplib::Request request;
        request.method = "POST";
        request.path = ep.url.target;
        request.headers = {{"Accept", "application/json"}, {"User-Agent", "abcictl/" ABCI_VERSION}};
        request.body = body;
        request.set_header("Content-Type", "application/json");
        auto exchanged = rpc::exchange(*client, request, read_timeout);
        // On a failure the client is dropped: its connection is in an unknown state.
        if (auto* failure = std::get_if<TransportFailure>(&exchanged)) return from_transport(*failure);
        const auto& res = std::get<httplib::Response>(exchanged);

        const int status = res.status;
        auto answer = json::parse(res.body, nullptr, false);
        std::optional<std::string> problem =
            answer.is_discarded() ? std::optional<std::string>("the answer is not JSON") : check(answer);
        auto retry_after = parse_retry_after(res.get_header_value("Retry-After"));
        give_back(ep, std::move(client));

        // Some nodes send JSON-RPC errors with a 4xx/5xx status: a well-formed
        // JSON-RPC answer is an answer whatever the status, except 429, which
        // providers also dress up as a JSON-RPC error while meaning "try later".
        if (status == 429)
            return Failure{Failure::Stage::refused, false, "HTTP 429 Too Many Requests", retry_after,
                           CallResult::rate_limited};
        if (!problem) return answer;
        if (status >= 500)
            return Failure{Failure::Stage::unsure, false, fmt::format("HTTP {}", status), std::nullopt, CallResult::http_5xx};
        if (status < 200 || status >= 300)
            return Failure{Failure::Stage::refused, false, fmt::format("HTTP {}", status)};
        return Failure{Failure::Stage::unsure, false, "malformed answer: " + *problem};
    }

    // Sends `body` until some endpoint answers, following the retry and failover policy.
    json exchange(std::string_view label, const std::string& body, const CallOptions& call, const Check& check,
                  const MethodCounts& methods) {
        const auto deadline = Clock::now() + call.timeout.value_or(options.call_timeout);
        const std::size_t n = endpoints.size();
        const std::size_t first = preferred.load();
        std::vector<std::optional<milliseconds>> retry_after(n);
        std::vector<std::string> failures;
        std::optional<Failure> last;
        std::string stopped_because = "retries exhausted";
        for (unsigned k = 0; k <= options.retries; ++k) {
            const std::size_t i = (first + k) % n;
            if (k > 0) {
                // Failing over to another URL is immediate; only a new round
                // over the same URLs waits, unless the server named its wait.
                const auto delay = retry_after[i] ? std::min(*retry_after[i], options.retry_after_max)
                                   : k % n == 0   ? backoff(k / static_cast<unsigned>(n), options)
                                                  : milliseconds(0);
                if (Clock::now() + delay >= deadline) {
                    stopped_because = "deadline reached";
                    break;
                }
                std::this_thread::sleep_for(delay);
            }
            auto& ep = *endpoints[i];
            const auto started = Clock::now();
            auto result = attempt(ep, body, check, deadline);
            auto* failure_now = std::get_if<Failure>(&result);
            if (options.metrics) {
                for (const auto& [method, requests] : methods) {
                    options.metrics->observe(method, Clock::now() - started);
                    // An answer's requests are counted by its reader, ok or rpc_error each.
                    if (failure_now) options.metrics->count(method, failure_now->result, requests);
                }
            }
            if (auto* answer = std::get_if<json>(&result)) {
                preferred.store(i);
                return std::move(*answer);
            }
            auto& failure = *failure_now;
            failures.push_back(ep.display + ": " + failure.why);
            std::size_t expected = i;
            if (preferred.compare_exchange_strong(expected, (i + 1) % n) && n > 1 && options.metrics)
                options.metrics->failover();
            retry_after[i] = failure.retry_after;
            const bool may_resend = call.idempotent || failure.stage != Failure::Stage::unsure;
            last = std::move(failure);
            if (!may_resend) {
                stopped_because = "not retried: the request may have been acted on";
                break;
            }
            if (Clock::now() >= deadline) {
                stopped_because = "deadline reached";
                break;
            }
        }
        if (!last)
            throw Error(ErrorKind::timeout, fmt::format("{}: no time left to send it (timeout too short)", label));
        auto message = fmt::format("{}: {} ({} attempt{}, {})", label, failures.back(), failures.size(),
                                   failures.size() == 1 ? "" : "s", stopped_because);
        throw Unreachable(last->timed_out ? ErrorKind::timeout : ErrorKind::unavailable, std::move(message),
                          std::move(failures));
    }
};

std::optional<std::string> check_call_answer(const json& answer, std::uint64_t id) {
    if (auto problem = check_item(answer)) return problem;
    // A request that could not be parsed is answered with id null.
    if (answer.value("id", json()) != json(id) && !(has_error(answer) && answer.value("id", json()).is_null()))
        return "the answer's id does not match the request's";
    return std::nullopt;
}

std::optional<std::string> check_batch_answer(const json& answer, std::uint64_t first, std::uint64_t count) {
    if (answer.is_object()) {  // the node rejected the whole batch
        if (auto problem = check_item(answer)) return problem;
        return has_error(answer) ? std::nullopt : std::optional<std::string>("a single result for a batch");
    }
    if (!answer.is_array()) return "the answer to a batch is not an array";
    std::vector<bool> seen(count, false);
    for (const auto& item : answer) {
        if (auto problem = check_item(item)) return problem;
        const auto id = item.value("id", json());
        if (!id.is_number_unsigned() || id.get<std::uint64_t>() < first || id.get<std::uint64_t>() - first >= count ||
            seen[id.get<std::uint64_t>() - first])
            return "unexpected or repeated id " + id.dump() + " in a batch answer";
        seen[id.get<std::uint64_t>() - first] = true;
    }
    if (std::find(seen.begin(), seen.end(), false) != seen.end()) return "the node left some requests unanswered";
    return std::nullopt;
}

json call_result(json answer, std::string_view method) {
    if (has_error(answer)) throw make_rpc_error(answer["error"], method);
    return std::move(answer["result"]);
}

std::vector<Outcome> batch_outcomes(json answer, std::uint64_t first, const std::vector<Request>& requests,
                                    std::string_view label) {
    if (answer.is_object()) throw make_rpc_error(answer["error"], label);
    std::vector<std::optional<Outcome>> slots(requests.size());
    for (auto& item : answer) {
        const auto k = item["id"].get<std::uint64_t>() - first;
        slots[k] = has_error(item) ? Outcome(make_rpc_error(item["error"], requests[k].method))
                                   : Outcome(std::move(item["result"]));
    }
    std::vector<Outcome> out;
    out.reserve(requests.size());
    for (auto& slot : slots) out.push_back(std::move(*slot));
    return out;
}

Client::Client(const std::vector<std::string>& urls, Options options) : impl_(std::make_unique<Impl>()) {
    if (urls.empty()) throw Error(ErrorKind::invalid_input, "no RPC URL given");
    impl_->options = std::move(options);
    for (const auto& u : urls) {
        auto ep = std::make_unique<Impl::Endpoint>();
        ep->url = parse_url(u);
        ep->display = mask_url(u);
        impl_->endpoints.push_back(std::move(ep));
    }
    auto& ca = impl_->options.ca_file;
    if (!ca.empty()) {
        if (::access(ca.c_str(), R_OK) != 0)
            throw Error(ErrorKind::invalid_input, "CA bundle " + ca + " cannot be read");
        impl_->ca_file = ca;
    } else if (::access(kSystemCaBundle, R_OK) == 0) {
        impl_->ca_file = kSystemCaBundle;
    }  // else cpp-httplib falls back to OpenSSL's default verify paths
}

Client::~Client() = default;

json Client::call(std::string_view method, json params, const CallOptions& options) {
    const auto id = impl_->next_id.fetch_add(1);
    const auto body = serialise(request_object(id, method, std::move(params)));
    auto answer = impl_->exchange(method, body, options, [id](const json& j) { return check_call_answer(j, id); },
                                  {{method, 1}});
    if (impl_->options.metrics) impl_->options.metrics->count(method, has_error(answer) ? CallResult::rpc_error : CallResult::ok);
    return call_result(std::move(answer), method);
}

std::vector<Outcome> Client::batch(const std::vector<Request>& requests, const CallOptions& options) {
    if (requests.empty()) return {};
    const std::uint64_t n = requests.size();
    const auto first = impl_->next_id.fetch_add(n);
    json body = json::array();
    for (std::uint64_t k = 0; k < n; ++k)
        body.push_back(request_object(first + k, requests[k].method, requests[k].params));
    const auto label = fmt::format("batch of {} ({}…)", n, requests.front().method);
    MethodCounts methods;
    for (const auto& request : requests) {
        auto same = std::find_if(methods.begin(), methods.end(), [&](const auto& m) { return m.first == request.method; });
        if (same == methods.end())
            methods.emplace_back(request.method, 1);
        else
            ++same->second;
    }
    auto answer = impl_->exchange(label, serialise(body), options,
                                  [&](const json& j) { return check_batch_answer(j, first, n); }, methods);
    auto* metrics = impl_->options.metrics.get();
    if (!metrics) return batch_outcomes(std::move(answer), first, requests, label);
    try {
        auto outcomes = batch_outcomes(std::move(answer), first, requests, label);
        for (std::uint64_t k = 0; k < n; ++k)
            metrics->count(requests[k].method, outcomes[k].ok() ? CallResult::ok : CallResult::rpc_error);
        return outcomes;
    } catch (const RpcError&) {
        for (const auto& [method, count] : methods) metrics->count(method, CallResult::rpc_error, count);  // the whole batch refused
        throw;
    }
}

std::vector<std::string> Client::endpoints() const {
    std::vector<std::string> out;
    for (const auto& ep : impl_->endpoints) out.push_back(ep->display);
    return out;
}

std::size_t Client::preferred_endpoint() const noexcept { return impl_->preferred.load(); }

}  // namespace abci::rpc
