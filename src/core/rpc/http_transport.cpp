#include "core/rpc/http_transport.hpp"

#include <fmt/format.h>

namespace abci::rpc {

using std::chrono::milliseconds;

namespace {

// The table's plain words, then cpp-httplib's name for the error (what a
// search for the library's documentation needs).
TransportFailure classify(httplib::Error error, milliseconds elapsed, milliseconds io_timeout) {
    using E = httplib::Error;
    using S = TransportFailure::Stage;
    // Timers fire a little early or late: within 10 ms of the timeout is the timeout.
    const bool waited_out = elapsed + milliseconds(10) >= io_timeout;
    switch (error) {
    case E::Connection: return {S::not_sent, ErrorKind::unavailable, "cannot connect"};
    case E::ConnectionTimeout: return {S::not_sent, ErrorKind::timeout, "connect timed out"};
    case E::SSLConnection: return {S::not_sent, ErrorKind::unavailable, "TLS handshake failed"};
    case E::SSLLoadingCerts: return {S::not_sent, ErrorKind::unavailable, "cannot load the CA certificates"};
    case E::SSLServerVerification: return {S::not_sent, ErrorKind::unavailable, "server certificate not trusted"};
    case E::Read:
        if (waited_out)
            return {S::unsure, ErrorKind::timeout, fmt::format("no answer within {} ms", io_timeout.count())};
        return {S::unsure, ErrorKind::unavailable, "connection lost while waiting for the answer"};
    case E::Write:
        if (waited_out)
            return {S::unsure, ErrorKind::timeout, fmt::format("could not send within {} ms", io_timeout.count())};
        return {S::unsure, ErrorKind::unavailable, "connection lost while sending"};
    default: return {S::unsure, ErrorKind::unavailable, "HTTP client error"};
    }
}

}  // namespace

TransportFailure transport_failure(httplib::Error error, milliseconds elapsed, milliseconds io_timeout) {
    auto failure = classify(error, elapsed, io_timeout);
    failure.reason += " (" + httplib::to_string(error) + ")";
    return failure;
}

std::unique_ptr<httplib::Client> make_http_client(const Url& url, HttpTimeouts timeouts, const std::string& ca_file) {
    auto client = std::make_unique<httplib::Client>(url.origin());
    client->set_connection_timeout(timeouts.connect);
    client->set_read_timeout(timeouts.io);
    client->set_write_timeout(timeouts.io);
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);
    if (!url.user.empty() || !url.password.empty()) client->set_basic_auth(url.user, url.password);
    if (url.scheme == "https") {
        client->enable_server_certificate_verification(true);
        if (!ca_file.empty()) client->set_ca_cert_path(ca_file);
    }
    return client;
}

std::variant<httplib::Response, TransportFailure> exchange(httplib::Client& client, const httplib::Request& request,
                                                           milliseconds io_timeout) {
    const auto started = std::chrono::steady_clock::now();
    auto result = client.send(request);
    if (!result)
        return transport_failure(
            result.error(),
            std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - started), io_timeout);
    return std::move(result.value());
}

httplib::Response send_or_throw(httplib::Client& client, const httplib::Request& request, milliseconds io_timeout,
                                std::string_view what) {
    auto answer = exchange(client, request, io_timeout);
    if (auto* failure = std::get_if<TransportFailure>(&answer))
        throw Error(failure->kind, std::string(what) + ": " + failure->reason);
    return std::move(std::get<httplib::Response>(answer));
}

}  // namespace abci::rpc
