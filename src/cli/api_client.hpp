#pragma once
// The command line's HTTP client of an abcictl server: JSON in and out, a
// bearer credential, and the server's error bodies turned back into
// abci::Error of the matching kind (so exit codes follow DESIGN.md §6).

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace httplib {
class Client;
}

namespace abci::cli {

struct ApiResponse {
    int status = 0;
    nlohmann::json body;     // null when the body was empty or not JSON
    std::string request_id;  // the server's X-Request-Id, the key to its log line
    std::string software;    // its Server header: "abcictl/0.1.0" for ours
    std::string instance;    // X-Abci-Instance: which run of the server answered ("" when none said)
    std::string retry_after; // Retry-After: seconds until a refused request may be sent again ("" when none)
    std::string content_location;  // Content-Location: where the answer lives (a mint's status route)
};

/// An error answer of the server, or a request it never answered (status 0):
/// with -v, main adds what identifies it.
class ServerError : public Error {
public:
    ServerError(const Error& error, int status, std::string request_id, std::string no_answer = {})
        : Error(error.kind(), error.what(), error.details()),
          status_(status),
          request_id_(std::move(request_id)),
          no_answer_(std::move(no_answer)) {}
    /// `answer` told by `message` (which says what to do about it): the same
    /// kind, details, status and request id.
    ServerError(const ServerError& answer, std::string message)
        : Error(answer.kind(), std::move(message), answer.details()),
          status_(answer.status_),
          request_id_(answer.request_id_),
          no_answer_(answer.no_answer_) {}

    /// The answer's HTTP status; 0 when none came.
    [[nodiscard]] int status() const noexcept { return status_; }
    /// "HTTP 404, request id 7f…" (or "no HTTP answer within 3 s, request id
    /// 7f…", the id the request carried): what to quote to whoever reads the server's log.
    [[nodiscard]] std::string diagnosis() const {
        return (status_ ? "HTTP " + std::to_string(status_) : no_answer_) +
               (request_id_.empty() ? "" : ", request id " + request_id_);
    }

private:
    int status_;
    std::string request_id_;
    std::string no_answer_;  // what came instead of an answer, when status_ is 0
};

using QueryParams = std::vector<std::pair<std::string, std::string>>;

/// What a server URL looks like, for messages.
inline constexpr const char* kExampleServer = "http://127.0.0.1:8080";

class ApiClient {
public:
    /// `base_url` is http(s)://host[:port][/prefix]. Error(invalid_input)
    /// showing it (credentials hidden) and an example when malformed. `timeout` bounds connecting and each wait for the answer.
    explicit ApiClient(const std::string& base_url, std::chrono::milliseconds timeout = std::chrono::seconds(60));
    ~ApiClient();
    ApiClient(const ApiClient&) = delete;
    ApiClient& operator=(const ApiClient&) = delete;

    [[nodiscard]] const std::string& base_url() const noexcept { return base_url_; }
    /// Sends `Authorization: Bearer <credential>` from now on (an access token or API key).
    void set_bearer(std::string credential);

    /// What send() does with a 401: `handler(refused, retried)` gives a
    /// credential to send the request again with (a 401 means it was not
    /// acted on), nothing to throw the 401 as it is, or throws an error that
    /// says what to do. `retried` is true for the 401 of a request sent again,
    /// after which the request is not sent a third time.
    using Reauthenticate = std::function<std::optional<std::string>(const ServerError& refused, bool retried)>;
    void on_unauthenticated(Reauthenticate handler) { reauthenticate_ = std::move(handler); }

    /// Sends the request and returns whatever the server answered, after the
    /// on_unauthenticated() handler had its say on a 401. Throws
    /// Error(unavailable) naming the server when it cannot be reached,
    /// Error(timeout) when it does not answer in time.
    [[nodiscard]] ApiResponse send(const std::string& method, const std::string& path, const QueryParams& query = {},
                                   const std::optional<nlohmann::json>& body = std::nullopt,
                                   const std::vector<std::pair<std::string, std::string>>& headers = {});

    /// send(), then the body of a 2xx answer; any other status throws
    /// error_from_response().
    [[nodiscard]] nlohmann::json call(const std::string& method, const std::string& path, const QueryParams& query = {},
                                      const std::optional<nlohmann::json>& body = std::nullopt,
                                      const std::vector<std::pair<std::string, std::string>>& headers = {});

private:
    [[nodiscard]] ApiResponse send_once(const std::string& method, const std::string& path, const QueryParams& query,
                                        const std::optional<nlohmann::json>& body,
                                        const std::vector<std::pair<std::string, std::string>>& headers);

    std::string base_url_;
    std::string prefix_;  // path prefix of base_url, without a trailing slash
    std::unique_ptr<httplib::Client> client_;
    std::chrono::milliseconds timeout_{};
    std::string bearer_;
    Reauthenticate reauthenticate_;
    bool reauthenticating_ = false;
};

/// The error an API answer stands for: the status's kind (400 invalid_input,
/// 401 unauthenticated, 403 forbidden, 404 not_found, 409 conflict, 422
/// unprocessable, 429 rate_limited, 503 unavailable, 504 timeout, other 5xx
/// chain_rejected or internal), the server's message (or first detail) and
/// its details.
[[nodiscard]] ServerError error_from_response(const ApiResponse& response);

}  // namespace abci::cli
