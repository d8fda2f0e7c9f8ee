#include "cli/api_client.hpp"

#include <httplib.h>

#include <cctype>

#include "core/eth/bytes.hpp"
#include "core/rpc/http_transport.hpp"
#include "core/rpc/url.hpp"

namespace abci::cli {

namespace {

ErrorKind kind_for_status(int status) {
    switch (status) {
    case 400:
    case 413: return ErrorKind::invalid_input;
    case 401: return ErrorKind::unauthenticated;
    case 403: return ErrorKind::forbidden;
    case 404: return ErrorKind::not_found;
    case 409: return ErrorKind::conflict;
    case 422: return ErrorKind::unprocessable;
    case 429: return ErrorKind::rate_limited;
    case 503: return ErrorKind::unavailable;
    case 504: return ErrorKind::timeout;
    case 500: return ErrorKind::chain_rejected;  // the spec's 500 is a failure while minting
    default: return status >= 500 ? ErrorKind::internal : ErrorKind::invalid_input;
    }
}

/// The URL as typed but for its credentials: a server's URL is the user's
/// own harmless input, unlike an RPC provider's (rpc::mask_url hides most of
/// those), and seeing it is how they spot what is wrong with it.
std::string without_credentials(const std::string& url) {
    const auto start = url.find("://") == std::string::npos ? 0 : url.find("://") + 3;
    const auto at = url.find('@', start);
    if (at == std::string::npos || url.find_first_of("/?#", start) < at) return url;
    return url.substr(0, start) + "****" + url.substr(at);
}

rpc::Url parse_server_url(const std::string& text) {
    const std::string refusal = "--server must be a URL such as " + std::string(kExampleServer) + ", not '" +
                                without_credentials(text) + "'";
    std::string scheme = text.substr(0, text.find("://") == std::string::npos ? 0 : text.find("://"));
    for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "http" && scheme != "https") throw Error(ErrorKind::invalid_input, refusal);
    try {
        return rpc::parse_url(text);
    } catch (const Error& e) {
        // The parser's own words name an RPC URL and hide all but the host: the refusal says it better.
        if (e.kind() == ErrorKind::invalid_input) throw Error(ErrorKind::invalid_input, refusal);
        throw;
    }
}

}  // namespace

ApiClient::ApiClient(const std::string& base_url, std::chrono::milliseconds timeout) {
    const auto url = parse_server_url(base_url);
    prefix_ = url.target == "/" ? "" : url.target;
    while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
    base_url_ = url.origin() + prefix_;
    // The server's URL may carry credentials only to be masked in messages: they are not sent.
    auto origin = url;
    origin.user.clear();
    origin.password.clear();
    client_ = rpc::make_http_client(origin, {timeout, timeout});
    timeout_ = timeout;
}

ApiClient::~ApiClient() { eth::secure_wipe(bearer_.data(), bearer_.size()); }

void ApiClient::set_bearer(std::string credential) {
    eth::secure_wipe(bearer_.data(), bearer_.size());
    bearer_ = std::move(credential);
}

ApiResponse ApiClient::send(const std::string& method, const std::string& path, const QueryParams& query,
                            const std::optional<nlohmann::json>& body,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
    auto response = send_once(method, path, query, body, headers);
    // The renewal's own requests (a refresh) are answered as they are: a 401 there is the renewal's failure.
    if (reauthenticating_) return response;
    for (bool retried = false; response.status == 401 && reauthenticate_; retried = true) {
        std::optional<std::string> credential;
        {
            reauthenticating_ = true;
            struct Done {
                bool& flag;
                ~Done() { flag = false; }
            } done{reauthenticating_};
            credential = reauthenticate_(error_from_response(response), retried);
        }
        if (!credential || retried) break;
        set_bearer(std::move(*credential));
        response = send_once(method, path, query, body, headers);
    }
    return response;
}

ApiResponse ApiClient::send_once(const std::string& method, const std::string& path, const QueryParams& query,
                                 const std::optional<nlohmann::json>& body,
                                 const std::vector<std::pair<std::string, std::string>>& headers) {
    httplib::Request request;
    request.method = method;
    request.path = prefix_ + path;
    if (!query.empty()) {
        httplib::Params params(query.begin(), query.end());
        request.path += "?" + httplib::detail::params_to_query_str(params);
    }
    request.set_header("Accept", "application/json");
    if (!bearer_.empty()) request.set_header("Authorization", "Bearer " + bearer_);
    for (const auto& [name, value] : headers) request.set_header(name.c_str(), value);
    // Always a body for methods that carry one: servers may refuse a PUT without Content-Length.
    if (body || method == "POST" || method == "PUT") {
        request.body = body ? body->dump() : "";
        request.set_header("Content-Type", "application/json");
    }
    auto result = rpc::exchange(*client_, request, timeout_);
    if (const auto* failure = std::get_if<rpc::TransportFailure>(&result)) {
        if (failure->stage == rpc::TransportFailure::Stage::not_sent)
            throw Error(failure->kind, "cannot reach the server at " + base_url_ + ": " + failure->reason +
                                           "; is it running? Set --server or ABCICTL_SERVER");
        throw Error(failure->kind, "the server at " + base_url_ + " did not answer" +
                                       (failure->timed_out() ? " in time" : ": " + failure->reason));
    }
    const auto& answer = std::get<httplib::Response>(result);
    ApiResponse response;
    response.status = answer.status;
    response.instance = answer.get_header_value("X-Abci-Instance");
    response.request_id = answer.get_header_value("X-Request-Id");
    response.software = answer.get_header_value("Server");
    response.retry_after = answer.get_header_value("Retry-After");
    response.content_location = answer.get_header_value("Content-Location");
    response.body = nlohmann::json::parse(answer.body, nullptr, false);
    if (response.body.is_discarded()) response.body = nullptr;
    return response;
}

nlohmann::json ApiClient::call(const std::string& method, const std::string& path, const QueryParams& query,
                               const std::optional<nlohmann::json>& body,
                               const std::vector<std::pair<std::string, std::string>>& headers) {
    auto response = send(method, path, query, body, headers);
    if (response.status < 200 || response.status >= 300) throw error_from_response(response);
    return std::move(response.body);
}

namespace {

// docs/api.md: a 429 says when to come back (Retry-After) and which setting
// holds the limit (details), which an operator needs to change it.
std::string held_back(const ApiResponse& response) {
    std::string text;
    if (!response.retry_after.empty()) text = "wait " + response.retry_after + " s";
    const auto& limit = response.body.is_object() ? response.body.value("details", nlohmann::json()) : nlohmann::json();
    if (limit.is_object() && limit.value("setting", nlohmann::json()).is_string()) {
        const auto environment = limit.value("environment", std::string());
        text += std::string(text.empty() ? "" : "; ") + "the server allows " + limit.value("limit", nlohmann::json()).dump() +
                " per " + limit.value("windowSeconds", nlohmann::json()).dump() + " s, set by its " +
                limit["setting"].get<std::string>() + (environment.empty() ? "" : " (" + environment + ")");
    }
    return text.empty() ? "" : " (" + text + ")";
}

}  // namespace

ServerError error_from_response(const ApiResponse& response) {
    const auto& body = response.body;
    std::vector<std::string> details;
    if (body.is_object() && body.contains("details") && body["details"].is_array())
        for (const auto& d : body["details"])
            if (d.is_string()) details.push_back(d.get<std::string>());
    std::string message;
    if (body.is_object() && body.contains("message") && body["message"].is_string())
        message = body["message"].get<std::string>();
    else if (!details.empty())
        message = details.size() == 1 ? details.front() : "invalid request";  // as core says it; main lists them
    else if (body.is_object() && body.contains("error") && body["error"].is_string())
        message = body["error"].get<std::string>();
    else
        message = "the server answered HTTP " + std::to_string(response.status);
    if (response.status == 429) message += held_back(response);
    return {Error(kind_for_status(response.status), message, std::move(details)), response.status, response.request_id};
}

}  // namespace abci::cli
