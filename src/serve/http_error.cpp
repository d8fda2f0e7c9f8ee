#include "serve/http_error.hpp"

#include <httplib.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/service/service.hpp"
#include "core/limits/rate_limiter.hpp"
#include "core/store/unavailable.hpp"

namespace abci::serve {

namespace {

const char* unauthorized_code(Unauthorized why) {
    switch (why) {
    case Unauthorized::missing_token: return "MISSING_TOKEN";
    case Unauthorized::invalid_token: return "INVALID_TOKEN";
    case Unauthorized::invalid_credentials: return "INVALID_CREDENTIALS";
    }
    return "INVALID_TOKEN";
}

const char* error_name(int status) {
    switch (status) {
    case 400: return "invalid_request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 408: return "request_timeout";
    case 409: return "conflict";
    case 413: return "payload_too_large";
    case 415: return "unsupported_media_type";
    case 422: return "unprocessable";
    case 429: return "too_many_requests";
    case 431: return "request_header_fields_too_large";
    case 503: return "unavailable";
    case 504: return "timeout";
    default: return status >= 500 ? "internal_error" : "invalid_request";
    }
}

void set_json(httplib::Response& res, int status, const nlohmann::json& body) {
    res.status = status;
    // Messages may quote what the client sent, which need not be valid UTF-8.
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

}  // namespace

int status_for(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::invalid_input: return 400;
    case ErrorKind::unauthenticated: return 401;
    case ErrorKind::forbidden: return 403;
    case ErrorKind::not_found: return 404;
    case ErrorKind::conflict: return 409;
    case ErrorKind::unprocessable: return 422;
    case ErrorKind::rate_limited: return 429;
    case ErrorKind::unavailable: return 503;
    case ErrorKind::timeout: return 504;
    case ErrorKind::chain_rejected:
    case ErrorKind::internal: return 500;
    }
    return 500;
}

void render_error(httplib::Response& res, const Error& error, Unauthorized why) {
    const int status = status_for(error.kind());
    nlohmann::json body{{"error", error_name(status)}};
    switch (error.kind()) {
    case ErrorKind::invalid_input:
        // Spec §7: a validation failure lists every problem in `details`.
        body["details"] = error.details().empty() ? std::vector<std::string>{error.what()} : error.details();
        break;
    case ErrorKind::unauthenticated:
        body["message"] = error.what();
        body["code"] = unauthorized_code(why);
        // RFC 7235: a 401 names the scheme that would succeed (RFC 6750 for bearer tokens).
        res.set_header("WWW-Authenticate", why == Unauthorized::invalid_token
                                               ? R"(Bearer realm="abci", error="invalid_token")"
                                               : R"(Bearer realm="abci")");
        break;
    case ErrorKind::forbidden:
        body["message"] = error.what();
        body["code"] = "INSUFFICIENT_PERMISSIONS";
        break;
    case ErrorKind::unavailable:
        // Where the database lives is the operator's (the request's log
        // line has it), not something to tell whoever asks during an outage.
        body["message"] = dynamic_cast<const store::DatabaseUnavailable*>(&error)
                              ? "the service is unavailable: try again later"
                              : error.what();
        break;
    default: body["message"] = error.what();
    }
    if (const auto* mint = dynamic_cast<const service::MintUnsettled*>(&error)) {
        body["mintId"] = mint->mint_id();
        body["transactionHashes"] = mint->transaction_hashes();
    }
    if (const auto* limited = dynamic_cast<const limits::RateLimitExceeded*>(&error)) {
        res.set_header("Retry-After", std::to_string(limited->retry_after().count()));
        const auto& source = limited->source();
        body["details"] = {{"limit", source.limit.limit},
                           {"windowSeconds", source.limit.window.count()},
                           {"setting", source.setting}};
        if (!source.environment.empty()) body["details"]["environment"] = source.environment;
    }
    set_json(res, status, body);
}

void render_status(httplib::Response& res) {
    if (!res.body.empty()) return;
    const char* message = res.status == 404   ? "no such route"
                          : res.status == 413 ? "the request body is larger than the server accepts"
                          : res.status == 400 ? "malformed HTTP request"
                                              : "request failed";
    nlohmann::json body{{"error", error_name(res.status)}};
    if (res.status == 400)
        body["details"] = {message};
    else
        body["message"] = message;
    set_json(res, res.status, body);
}

std::string connection_refusal(int status, std::string_view message, int retry_after) {
    nlohmann::json body{{"error", error_name(status)}};
    // Spec §7: a 400 lists its problems in `details`, as render_status's.
    if (status == 400)
        body["details"] = {message};
    else
        body["message"] = message;
    const char* reason = status == 400   ? "Bad Request"
                         : status == 408 ? "Request Timeout"
                         : status == 413 ? "Payload Too Large"
                         : status == 415 ? "Unsupported Media Type"
                         : status == 431 ? "Request Header Fields Too Large"
                                         : "Service Unavailable";
    const auto text = body.dump();
    return fmt::format("HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}"
                       "Connection: close\r\n\r\n{}",
                       status, reason, text.size(),
                       retry_after > 0 ? fmt::format("Retry-After: {}\r\n", retry_after) : "", text);
}

}  // namespace abci::serve
