#include "support/fault_proxy.hpp"

#include <httplib.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>

#include <cerrno>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace abci::test {

struct FaultProxy::Request {
    std::string path;
    std::string body;
    bool close = false;  // the client asked for "Connection: close"
};

namespace {

constexpr std::size_t kMaxHeader = 64 * 1024;

bool send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const auto n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Appends what arrives on `fd` to `buffer`; false at the end of the stream or on an error.
bool receive_more(int fd, std::string& buffer) {
    char chunk[16 * 1024];
    for (;;) {
        const auto n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    }
}

std::string_view reason(int status) {
    switch (status) {
        case 200: return "OK";
        case 429: return "Too Many Requests";
        case 502: return "Bad Gateway";
        default: return "Status";
    }
}

bool write_answer(int fd, int status, std::string_view content_type, std::string_view body,
                  std::string_view extra_headers = {}) {
    return send_all(fd, fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}\r\n{}", status,
                                    reason(status), content_type, body.size(), extra_headers, body));
}

}  // namespace

std::string_view fault_name(Fault fault) noexcept {
    switch (fault) {
        case Fault::too_many_requests: return "429";
        case Fault::bad_gateway: return "502";
        case Fault::hang: return "hang";
        case Fault::drop_before: return "drop-before";
        case Fault::drop_after: return "drop-after";
        case Fault::slow: return "slow";
    }
    return "?";
}

FaultProxy::FaultProxy(std::uint16_t node_port, Options options)
    : options_(options), node_port_(node_port), rng_(options.seed) {
    listener_ = os::UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (!listener_.valid() || ::bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_.get(), SOMAXCONN) != 0 ||
        ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
        throw std::runtime_error(fmt::format("fault proxy: cannot listen on loopback (errno {})", errno));
    port_ = ntohs(address.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
}

FaultProxy::~FaultProxy() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        for (const int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    }
    changed_.notify_all();
    // Wakes the blocked accept() (Linux answers it with EINVAL).
    ::shutdown(listener_.get(), SHUT_RDWR);
    acceptor_.join();
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return connections_ == 0; });
}

void FaultProxy::set_rate(Fault fault, double rate) {
    std::lock_guard lock(mutex_);
    auto rates = rates_;
    rates[static_cast<std::size_t>(fault)] = rate;
    double sum = 0;
    for (const double r : rates) sum += r;
    if (rate < 0 || rate > 1 || sum > 1)
        throw std::invalid_argument(fmt::format("fault proxy: rate {} of {} makes the rates add up to {} (at most 1)",
                                                rate, fault_name(fault), sum));
    rates_ = rates;
}

void FaultProxy::set_all_rates(double rate) {
    for (const auto fault : kAllFaults) set_rate(fault, 0);
    for (const auto fault : kAllFaults) set_rate(fault, rate);
}

void FaultProxy::set_pass_through(bool on) {
    std::lock_guard lock(mutex_);
    pass_through_ = on;
}

void FaultProxy::set_node_port(std::uint16_t node_port) { node_port_ = node_port; }

void FaultProxy::answer_rpc_error(const std::string& method, std::int64_t code, const std::string& message) {
    std::lock_guard lock(mutex_);
    rpc_answers_[method] = {{"error", {{"code", code}, {"message", message}}}};
}

void FaultProxy::answer_rpc_result(const std::string& method, nlohmann::json result) {
    std::lock_guard lock(mutex_);
    rpc_answers_[method] = {{"result", std::move(result)}};
}

void FaultProxy::forward_method(const std::string& method) {
    std::lock_guard lock(mutex_);
    rpc_answers_.erase(method);
}

std::uint64_t FaultProxy::injected(Fault fault) const noexcept { return injected_[static_cast<std::size_t>(fault)]; }

std::uint64_t FaultProxy::injected_total() const noexcept {
    std::uint64_t total = 0;
    for (const auto fault : kAllFaults) total += injected(fault);
    return total;
}

void FaultProxy::accept_loop() {
    for (;;) {
        const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return;  // the listener was shut down
        }
        std::lock_guard lock(mutex_);
        if (stopping_) {
            ::close(fd);
            return;
        }
        open_fds_.insert(fd);
        ++connections_;
        // Detached: the destructor waits for connections_ to drop to 0 instead
        // of joining, so that finished connections free their threads at once.
        std::thread([this, fd] { serve_connection(os::UniqueFd(fd)); }).detach();
    }
}

void FaultProxy::serve_connection(os::UniqueFd fd) {
    std::string buffer;
    for (bool open = true; open;) {
        // One request: the head up to the blank line, then Content-Length bytes of body.
        std::size_t head_end;
        while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos && buffer.size() < kMaxHeader)
            if (!receive_more(fd.get(), buffer)) break;
        if (head_end == std::string::npos) break;
        Request request;
        std::size_t content_length = 0;
        const std::string_view head(buffer.data(), head_end);
        const auto line_end = head.find("\r\n");
        const auto request_line = head.substr(0, line_end);
        const auto path_start = request_line.find(' ') + 1;
        request.path = std::string(request_line.substr(path_start, request_line.find(' ', path_start) - path_start));
        for (auto at = line_end; at != std::string_view::npos && at < head.size();) {
            const auto next = head.find("\r\n", at + 2);
            const auto line = head.substr(at + 2, next == std::string_view::npos ? next : next - at - 2);
            at = next;
            const auto colon = line.find(':');
            if (colon == std::string_view::npos) continue;
            const auto name = std::string(line.substr(0, colon));
            auto value = line.substr(colon + 1);
            while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
            if (::strcasecmp(name.c_str(), "Content-Length") == 0) content_length = std::stoul(std::string(value));
            if (::strcasecmp(name.c_str(), "Connection") == 0)
                request.close = ::strncasecmp(std::string(value).c_str(), "close", 5) == 0;
        }
        buffer.erase(0, head_end + 4);
        while (buffer.size() < content_length && (open = receive_more(fd.get(), buffer))) {
        }
        if (!open) break;
        request.body = buffer.substr(0, content_length);
        buffer.erase(0, content_length);
        open = handle(fd.get(), request) == Outcome::answered && !request.close;
    }
    std::lock_guard lock(mutex_);
    open_fds_.erase(fd.get());
    fd.reset();  // before the destructor may go on: it must not shut down a reused number
    --connections_;
    changed_.notify_all();
}

FaultProxy::Outcome FaultProxy::handle(int fd, const Request& request) {
    ++requests_;
    const auto fault = draw();
    if (fault) ++injected_[static_cast<std::size_t>(*fault)];
    const auto answer_with = [fd](int status, std::string_view type, std::string_view body,
                                  std::string_view headers = {}) {
        return write_answer(fd, status, type, body, headers) ? Outcome::answered : Outcome::closed;
    };
    if (fault == Fault::too_many_requests)
        return answer_with(429, "application/json",
                           R"({"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"rate limited"}})",
                           fmt::format("Retry-After: {}\r\n", options_.retry_after_seconds));
    // What a reverse proxy in front of a node says: not JSON-RPC.
    if (fault == Fault::bad_gateway)
        return answer_with(502, "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>");
    if (fault == Fault::hang) {
        (void)pause(options_.hang_for);
        return Outcome::closed;
    }
    if (fault == Fault::drop_before) return Outcome::closed;

    const auto ruled = apply_rules(request);
    const auto answer = ruled ? *ruled : forward(request);
    // A node that is down gets what a reverse proxy answers; that is no injected fault.
    if (!answer) return answer_with(502, "text/plain", "node unreachable");
    if (!ruled) ++forwarded_;  // apply_rules() counts what it forwards
    if (fault == Fault::drop_after) return Outcome::closed;
    if (fault == Fault::slow && !pause(options_.slow_by)) return Outcome::closed;
    return answer_with(answer->first, "application/json", answer->second);
}

std::optional<std::pair<int, std::string>> FaultProxy::forward(const Request& request) {
    httplib::Client node("127.0.0.1", node_port_);
    node.set_connection_timeout(std::chrono::seconds(2));
    node.set_read_timeout(std::chrono::seconds(30));
    const auto answer = node.Post(request.path, request.body, "application/json");
    if (!answer) return std::nullopt;
    return std::pair{answer->status, answer->body};
}

std::optional<std::optional<std::pair<int, std::string>>> FaultProxy::apply_rules(const Request& request) {
    decltype(rpc_answers_) rules;
    {
        std::lock_guard lock(mutex_);
        if (pass_through_ || rpc_answers_.empty()) return std::nullopt;
        rules = rpc_answers_;
    }
    const auto body = nlohmann::json::parse(request.body, nullptr, false);
    const bool batch = body.is_array();
    const auto calls = batch ? body : nlohmann::json::array({body});
    auto answers = nlohmann::json::array();
    auto rest = nlohmann::json::array();
    for (const auto& call : calls) {
        const auto rule = call.is_object() && call.contains("method") && call["method"].is_string()
                              ? rules.find(call["method"].get<std::string>())
                              : rules.end();
        if (rule == rules.end()) {
            rest.push_back(call);
            continue;
        }
        auto answer = rule->second;
        answer["jsonrpc"] = "2.0";
        answer["id"] = call.value("id", nlohmann::json(nullptr));
        answers.push_back(std::move(answer));
        ++rpc_errors_answered_;
    }
    if (answers.empty()) return std::nullopt;
    if (!rest.empty()) {
        const auto forwarded = forward({request.path, rest.dump(), request.close});
        if (!forwarded) return std::optional<std::pair<int, std::string>>{};
        ++forwarded_;
        const auto others = nlohmann::json::parse(forwarded->second, nullptr, false);
        if (!others.is_array()) return forwarded;  // the node refused the batch as a whole: its answer stands
        for (const auto& other : others) answers.push_back(other);
    }
    return std::pair{200, batch ? answers.dump() : answers.front().dump()};
}

std::optional<Fault> FaultProxy::draw() {
    std::lock_guard lock(mutex_);
    if (pass_through_) return std::nullopt;
    auto u = std::uniform_real_distribution<double>(0, 1)(rng_);
    for (const auto fault : kAllFaults) {
        u -= rates_[static_cast<std::size_t>(fault)];
        if (u < 0) return fault;
    }
    return std::nullopt;
}

bool FaultProxy::pause(std::chrono::milliseconds duration) {
    std::unique_lock lock(mutex_);
    return !changed_.wait_for(lock, duration, [this] { return stopping_; });
}

}  // namespace abci::test
