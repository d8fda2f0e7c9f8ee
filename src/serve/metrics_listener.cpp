#include "serve/metrics_listener.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "core/crypto/encoding.hpp"
#include "core/eth/bytes.hpp"
#include "core/metrics/exposition.hpp"
#include "core/error.hpp"
#include "core/os/private_file.hpp"
#include "serve/limited_server.hpp"
#include "serve/log.hpp"
#include "serve/worker_pool.hpp"

namespace abci::serve {

namespace {

// A handful of Prometheus servers scrape, each over one kept-alive
// connection: 4 per address leave room for a restart's overlap, and the
// reserve keeps 16 places for addresses holding none, so a flood from a few
// addresses leaves a scraper from another its place. A connection holds a
// thread from accept: the threads beyond the cap answer refusals.
ListenerLimits listener_limits() {
    ListenerLimits limits;
    limits.connections.head_timeout = std::chrono::seconds(5);
    limits.connections.body_timeout = std::chrono::seconds(5);
    limits.connections.max_connections = 64;
    limits.connections.max_per_client = 4;
    limits.connections.reserve = 16;
    return limits;
}
constexpr std::size_t kMaxThreads = 80;

/// Whether `request` carries `token` as its bearer token, compared in time that does not depend on where they differ.
bool authorized(const httplib::Request& request, const std::string& token) {
    if (token.empty()) return true;
    const auto header = request.get_header_value("Authorization");
    constexpr std::string_view scheme = "Bearer ";
    if (header.size() <= scheme.size() || header.compare(0, scheme.size(), scheme) != 0) return false;
    const std::string_view given = std::string_view(header).substr(scheme.size());
    return crypto::constant_time_equal(eth::as_bytes(given), eth::as_bytes(token));
}

}  // namespace

struct MetricsListener::State {
    // First: a server whose metrics cannot be written refuses to start, before it binds anything.
    metrics::Exposer exposer;
    std::unique_ptr<httplib::Server> http = make_limited_server(listener_limits());
    std::string token;
    int listen_socket = -1;
    int port = 0;
    std::thread thread;
};

MetricsListener::MetricsListener(const MetricsSettings& settings, const metrics::Registry& registry)
    : state_(std::make_unique<State>()) {
    auto& s = *state_;
    auto& http = *s.http;
    if (!settings.token_file.empty()) s.token = os::read_password_file(settings.token_file, "metrics.tokenFile");
    http.new_task_queue = [] { return new WorkerPool(2, kMaxThreads); };
    http.set_payload_max_length(0);
    http.set_write_timeout(5, 0);
    http.set_keep_alive_timeout(5);
    // Only SO_REUSEADDR: cpp-httplib's SO_REUSEPORT would let this bind a port another server listens on.
    http.set_socket_options([&listen_socket = s.listen_socket](socket_t sock) {
        const int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
        listen_socket = sock;
    });
    http.Get("/metrics", [&registry, &exposer = s.exposer, &token = s.token](const httplib::Request& request,
                                                                             httplib::Response& response) {
        if (!authorized(request, token)) {
            response.status = 401;
            response.set_header("WWW-Authenticate", "Bearer realm=\"metrics\"");
            response.set_content("a bearer token is required (metrics.tokenFile)\n", "text/plain; charset=utf-8");
            return;
        }
        auto exposition = exposer.expose(registry.collect(), request.get_header_value("Accept"));
        response.set_content(std::move(exposition.body), exposition.content_type);
    });
    s.port = settings.listen_port == 0 ? http.bind_to_any_port(settings.listen_host)
                                       : (http.bind_to_port(settings.listen_host, settings.listen_port)
                                              ? settings.listen_port
                                              : -1);
    if (s.port <= 0)
        throw Error(ErrorKind::unavailable, "cannot listen for metrics on " + settings.listen_host + ":" +
                                                std::to_string(settings.listen_port) +
                                                " (in use, or not an address of this host); choose another with "
                                                "metrics.listen or ABCI_METRICS_LISTEN");
    // cpp-httplib listens with a backlog of 5: while a flood of connections
    // fills it, a scraper's connection is dropped and retried a second (then
    // three) later. The system's maximum, as the API's listener has.
    if (s.listen_socket >= 0) ::listen(s.listen_socket, SOMAXCONN);
    s.thread = std::thread([&http] { http.listen_after_bind(); });
    // stop() does nothing to a server whose loop has not started yet: the destructor's would then wait forever.
    while (!http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    log_line("info", "serving metrics", {{"listen", settings.listen_host + ":" + std::to_string(s.port)},
                                         {"token", !s.token.empty()}});
}

MetricsListener::~MetricsListener() {
    stop_limited_server(*state_->http);
    state_->thread.join();
}

std::uint16_t MetricsListener::port() const noexcept { return static_cast<std::uint16_t>(state_->port); }

}  // namespace abci::serve
