#include "serve/server.hpp"

#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "core/service/backlog_metrics.hpp"
#include "core/service/registry.hpp"
#include "core/service/service.hpp"
#include "core/service/shared_counters.hpp"
#include "core/auth/accounts.hpp"
#include "core/eth/bytes.hpp"
#include "core/metrics/process.hpp"
#include "core/metrics/registry.hpp"
#include "core/util/log.hpp"
#include "core/util/text.hpp"
#include "core/webhooks/cleanup.hpp"
#include "core/webhooks/delivery.hpp"
#include "core/webhooks/subscriptions.hpp"
#include "serve/limited_server.hpp"
#include "serve/http_metrics.hpp"
#include "serve/log.hpp"
#include "serve/metrics_listener.hpp"
#include "serve/readiness_notify.hpp"
#include "serve/router.hpp"
#include "serve/worker_pool.hpp"
#include "serve/routes/abci_views.hpp"
#include "serve/routes/views.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve {

namespace {

Error cannot_listen(const Settings& settings) {
    const auto& host = settings.listen_host;
    return Error(ErrorKind::unavailable, "cannot listen on " + host + ":" + std::to_string(settings.listen_port) +
                                             " (in use, or not an address of this host); choose another port with --listen " +
                                             host + ":PORT or ABCI_LISTEN=" + host + ":PORT");
}

/// The secret is needed only to build the codec, which keeps its own copy.
class WipedBytes {
public:
    explicit WipedBytes(eth::Bytes bytes) : bytes_(std::move(bytes)) {}
    ~WipedBytes() { eth::secure_wipe(bytes_.data(), bytes_.size()); }
    WipedBytes(const WipedBytes&) = delete;
    WipedBytes& operator=(const WipedBytes&) = delete;
    [[nodiscard]] eth::ByteView view() const noexcept { return bytes_; }

private:
    eth::Bytes bytes_;
};

std::unique_ptr<httplib::Server> make_http_server(const Settings& settings, std::shared_ptr<int> listen_socket,
                                                  HttpMetrics& metrics) {
    auto server = make_limited_server(settings, metrics);
    // DESIGN.md §8: Nagle and a low keep-alive cap cost two orders of magnitude.
    server->set_tcp_nodelay(true);
    server->set_keep_alive_max_count(100000);
    // cpp-httplib also sets SO_REUSEPORT, which lets a second server bind the
    // same port and silently share its connections: only SO_REUSEADDR here,
    // so a port in use is an error at start.
    server->set_socket_options([listen_socket](socket_t sock) {
        const int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
        // A connection holds a thread from accept on. Accepting one only once
        // its request has arrived keeps a burst of new connections from
        // holding a thread each while their requests are on their way (with
        // cpp-httplib's own loop, which polled every 10 ms, that waiting took
        // 90% of the server's CPU under 1000 concurrent mints).
        const int defer_seconds = 5;
        ::setsockopt(sock, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer_seconds, sizeof(defer_seconds));
        *listen_socket = sock;
    });
    // An idle keep-alive connection holds its thread until it times out: 2 s
    // rather than 5 s, so a burst's connections give theirs back sooner
    // (mint answers close theirs at once: routes/abci_routes.cpp). Not less: a
    // client that sends its next request just as the server gives up on the
    // connection gets a reset, which at 10 ms happened under wrk's load.
    server->set_keep_alive_timeout(2);
    server->set_payload_max_length(settings.max_body_bytes);
    const auto threads = settings.threads;
    server->new_task_queue = [threads] { return new WorkerPool(std::min<std::size_t>(16, threads), threads); };
    return server;
}

/// Settings::bench_reference_route's path.
constexpr std::string_view kReferencePath = "/_bench/reference";

void warn_if_exposed(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && (info.st_mode & 077) != 0)
        log_line("warn", "secret file is readable by group or others; chmod 600 it", {{"path", path}});
}

/// A wrong setup (node unreachable, wrong chain id, no contract, signer
/// without the minter role or funds) is said at start, one line per failing
/// check, rather than met by the first mint; `strict` refuses to start then.
void check_at_start(service::AbciService& abci, bool strict) {
    std::string failed;
    for (const auto& check : abci.readiness().checks) {
        if (check.healthy) continue;
        failed += (failed.empty() ? "" : ", ") + check.name;
        log_line("warn", "start-up check failed", {{"check", check.name}, {"message", check.message.value_or("")}});
    }
    if (strict && !failed.empty())
        throw Error(ErrorKind::unavailable,
                    "--strict: start-up checks failed (" + failed + "); the log lines above say what to fix");
}

}  // namespace

struct Server::State {
    Settings settings;
    // First: everything below records into it until destroyed.
    metrics::Registry metrics;
    HttpMetrics http_metrics{metrics};
    std::unique_ptr<store::Store> store;
    // In the database when replicas share one (settings.database), so that a
    // caller's limits hold across them; else in this process.
    std::unique_ptr<limits::Counters> counters;
    std::unique_ptr<auth::AuthService> auth;
    std::unique_ptr<content::ContentStore> content;
    // Destroyed in reverse: the service first, which stops keeping the lanes
    // and ends the networks' terms (their senders and receipt pollers, whose
    // callbacks reach into the service), then the registry, the content store
    // and the store they use.
    std::unique_ptr<service::Registry> registry;
    std::unique_ptr<service::AbciService> abci;
    // Counts the store's queues and reads the lanes' owners at each scrape: stopped before either goes.
    std::unique_ptr<service::BacklogMetrics> backlog_metrics;
    // Webhooks: the worker stops (its attempt in flight ends) before the box
    // and the store it uses are destroyed.
    std::unique_ptr<webhooks::SecretBox> webhook_secrets;
    std::unique_ptr<webhooks::DeliveryWorker> webhook_worker;
    std::unique_ptr<webhooks::DeliveryCleanup> webhook_cleanup;
    std::unique_ptr<webhooks::Subscriptions> webhooks;
    std::unique_ptr<Services> services;
    std::unique_ptr<httplib::Server> http;
    int port = 0;
    std::unique_ptr<MetricsListener> metrics_listener;  // null: [metrics] listen is off
};

Server::Server(Settings settings, const std::string& revision) : state_(std::make_unique<State>()) {
    auto& s = *state_;
    s.settings = std::move(settings);
    metrics::add_process_metrics(s.metrics, ABCI_VERSION, revision);
    util::set_log_sink([](util::LogLevel level, std::string_view message, const nlohmann::json& fields) {
        log_line(level == util::LogLevel::warning ? "warn" : util::to_string(level), message, fields);
    });
    s.store = open_store(s.settings);
    s.store->set_metrics(s.metrics);
    s.store->audit().set_error_handler([](const std::string& error, bool retried) {
        if (retried) {
            log_line("error", "audit write failed (will retry)", {{"error", error}});
        } else {
            log_line("warn", "audit row dropped: the database refuses it", {{"error", error}});
        }
    });

    s.counters = s.settings.database.url.empty() ? std::make_unique<limits::Counters>()
                                                 : std::make_unique<service::SharedCounters>(s.store->rate_windows());
    if (!s.settings.jwt_secret_file.empty()) warn_if_exposed(s.settings.jwt_secret_file);
    {
        const WipedBytes secret(s.settings.jwt_secret_file.empty()
                                    ? auth::load_or_create_shared_secret(s.store->shared_secrets())
                                    : auth::load_or_create_secret(s.settings.jwt_secret_file));
        s.auth = std::make_unique<auth::AuthService>(*s.store, secret.view(), s.settings.auth, s.metrics, *s.counters);
        s.webhook_secrets = std::make_unique<webhooks::SecretBox>(
            secret.view(), s.settings.jwt_secret_file.empty() ? webhooks::SecretBox::KeyPlace::in_database
                                                              : webhooks::SecretBox::KeyPlace::apart_from_database);
    }
    if (!s.settings.admin_email.empty() && !s.settings.admin_password.empty()) {
        if (const auto admin = auth::bootstrap_admin(*s.store, s.settings.admin_email, s.settings.admin_password))
            log_line("info", "created the first admin", {{"email", admin->email}, {"user_id", admin->id}});
        eth::secure_wipe(s.settings.admin_password.data(), s.settings.admin_password.size());
        s.settings.admin_password.clear();
    }
    if (s.store->users().count() == 0)
        log_line("warn", "no users yet: set ABCI_ADMIN_EMAIL and ABCI_ADMIN_PASSWORD, or run `abcictl admin user add`",
                 {{"data_dir", s.settings.data_dir}});

    s.content = content::make_content_store(s.settings.content);
    {
        std::shared_ptr<const eth::TransactionSigner> signer;
        if (!s.settings.chains.empty() && s.settings.signer.any()) signer = service::load_signer(s.settings.signer);
        s.settings.signer.password.clear();
        eth::secure_wipe(s.settings.signer.pkcs11_pin.data(), s.settings.signer.pkcs11_pin.size());
        s.settings.signer.pkcs11_pin.clear();
        eth::secure_wipe(s.settings.signer.remote_token.data(), s.settings.signer.remote_token.size());
        s.settings.signer.remote_token.clear();
        if (s.settings.mint_batching)
            for (auto& chain : s.settings.chains) chain.mint_batching = s.settings.batch_options;
        s.registry = std::make_unique<service::Registry>(s.settings.chains, signer, *s.store, s.metrics);
        if (signer) log_line("info", "signer loaded", {{"address", signer->address().checksummed()}});
    }
    s.abci = std::make_unique<service::AbciService>(*s.store, *s.registry, *s.content,
                                                   admin_store_arguments(s.settings));
    check_at_start(*s.abci, s.settings.strict);
    // Named in the lanes' rows: where an operator finds the owner (and which process it is).
    s.abci->start(s.settings.listen_host + ":" + std::to_string(s.settings.listen_port) + " pid " +
                  std::to_string(::getpid()));
    s.backlog_metrics = std::make_unique<service::BacklogMetrics>(*s.store, *s.registry, s.metrics);
    // A mint.confirmed event's result is the mint's 200 body, rendered as the status route renders it;
    // a certificate.issued's data is the certificate as its route shows it.
    s.webhook_worker = std::make_unique<webhooks::DeliveryWorker>(
        *s.store, *s.webhook_secrets, s.settings.webhooks,
        s.settings.listen_host + ":" + std::to_string(s.settings.listen_port) + " pid " + std::to_string(::getpid()),
        webhooks::EventViews{
            .mint_result =
                [](const std::string& answer) { return mint_result_view(service::MintResult::parse(answer)); },
            .certificate = [](const store::Certificate& certificate) { return certificate_view(certificate); }});
    s.webhook_cleanup = std::make_unique<webhooks::DeliveryCleanup>(*s.store, s.settings.webhook_cleanup);
    s.webhooks = std::make_unique<webhooks::Subscriptions>(*s.store, *s.webhook_secrets, s.settings.webhooks.policy,
                                                           [&worker = *s.webhook_worker] { worker.wake(); });
    s.services = std::make_unique<Services>(s.settings, *s.counters, *s.store, *s.auth, *s.content, *s.registry, *s.abci,
                                            *s.webhooks);
    auto listen_socket = std::make_shared<int>(-1);
    s.http = make_http_server(s.settings, listen_socket, s.http_metrics);
    // Which run of the server answered: a client's cache of it is stale once this changes (a restart).
    const bool reference_route = s.settings.bench_reference_route;
    s.http->set_pre_routing_handler([instance = crypto::random_uuid(), reference_route](const httplib::Request& request,
                                                                                        httplib::Response& response) {
        // The benchmark's yardstick: what cpp-httplib costs with nothing of ours
        // (no request id, route, store or access log line) on the same listener and threads.
        if (reference_route && request.path == kReferencePath) {
            response.set_content(R"({"data":{"ok":true}})", "application/json");
            return httplib::Server::HandlerResponse::Handled;
        }
        response.set_header("X-Abci-Instance", instance);
        const auto given = request.get_header_value("X-Request-Id");
        const bool sane = !given.empty() && given.size() <= 64 &&
                          given.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") ==
                              std::string::npos;
        response.set_header("X-Request-Id", sane ? given : crypto::random_uuid());
        // What `abcictl version` reports of the server it talks to.
        response.set_header("Server", "abcictl/" ABCI_VERSION);
        (void)take_request_log_fields();  // whatever a request before this one on the thread left unlogged
        HttpMetrics::start();
        return httplib::Server::HandlerResponse::Unhandled;
    });
    s.http->set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& response) {
        render_status(response);
        return httplib::Server::HandlerResponse::Handled;
    }));
    s.http->set_logger([&http_metrics = s.http_metrics, reference_route](const httplib::Request& request,
                                                                          const httplib::Response& response) {
        if (reference_route && request.path == kReferencePath) return;
        http_metrics.finish(request.method, response.status);
        // Paths only: query strings can carry one-time codes and states.
        nlohmann::json fields{{"request_id", response.get_header_value("X-Request-Id")},
                              {"method", request.method},
                              {"path", util::escape_text(request.path)},
                              {"status", response.status},
                              {"client", request.remote_addr}};
        if (const auto timing = response.get_header_value("Server-Timing"); timing.rfind("app;dur=", 0) == 0)
            fields["duration_ms"] = std::stod(timing.substr(8));
        fields.update(take_request_log_fields());
        log_line("info", "request", fields);
    });

    Router router(*s.http, *s.services, s.http_metrics);
    for (auto& route : route_table()) router.add(std::move(route));

    s.port = s.settings.listen_port == 0 ? s.http->bind_to_any_port(s.settings.listen_host)
                                         : (s.http->bind_to_port(s.settings.listen_host, s.settings.listen_port)
                                                ? s.settings.listen_port
                                                : -1);
    if (s.port <= 0) throw cannot_listen(s.settings);
    // cpp-httplib listens with a backlog of 5: a burst of clients (many mints
    // at once) would find connections refused or dropped. Listening again on
    // the bound socket raises the queue to the system's maximum.
    if (*listen_socket >= 0) ::listen(*listen_socket, SOMAXCONN);
    if (s.settings.metrics.enabled()) s.metrics_listener = std::make_unique<MetricsListener>(s.settings.metrics, s.metrics);
}

Server::~Server() = default;

void check_can_listen(const Settings& settings) {
    if (settings.listen_port == 0) return;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    if (::getaddrinfo(settings.listen_host.c_str(), std::to_string(settings.listen_port).c_str(), &hints, &found) != 0)
        throw cannot_listen(settings);
    const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, ::freeaddrinfo);
    // As the server will bind: SO_REUSEADDR only, so a port another socket listens on is refused.
    for (const auto* address = found; address != nullptr; address = address->ai_next) {
        const int sock = ::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, address->ai_protocol);
        if (sock < 0) continue;
        const int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        const bool bound = ::bind(sock, address->ai_addr, address->ai_addrlen) == 0 && ::listen(sock, 1) == 0;
        ::close(sock);
        if (bound) return;
    }
    throw cannot_listen(settings);
}

std::uint16_t Server::port() const noexcept { return static_cast<std::uint16_t>(state_->port); }

std::uint16_t Server::metrics_port() const noexcept {
    return state_->metrics_listener ? state_->metrics_listener->port() : 0;
}

void Server::run() {
    log_line("info", "serving", {{"listen", state_->settings.listen_host + ":" + std::to_string(state_->port)},
                                 {"tls", state_->settings.tls()},
                                 {"store", state_->settings.database.url.empty() ? "sqlite" : "postgresql"},
                                 {"data_dir", state_->settings.data_dir}});
    // The socket listens and the store is open (the constructor): a
    // connection from now on is queued until the accept loop takes it.
    notify_service_manager("READY=1");
    state_->http->listen_after_bind();
    log_line("info", "stopped", nlohmann::json::object());
}

void Server::stop() {
    notify_service_manager("STOPPING=1");
    stop_limited_server(*state_->http);
}

}  // namespace abci::serve
