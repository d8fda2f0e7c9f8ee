#include "core/content/kubo_store.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/rpc/http_transport.hpp"

namespace abci::content {
namespace {

using nlohmann::json;

// Room for the largest block we store plus an HTTP error body; more is not a
// Kubo answer to anything we ask.
constexpr std::size_t kMaxAnswerSize = kMaxContentSize + 64 * 1024;

// go-ipld-format's ErrNotFound text ("ipld: could not find <cid>"), which
// Kubo passes on (HTTP 500, Code 0) when a block is not in its repository:
// its error body carries no finer code to tell "missing" from other failures.
constexpr std::string_view kNotFoundText = "could not find";

std::string multipart_body(eth::ByteView data, const std::string& file_name, std::string& boundary) {
    const std::string_view content(reinterpret_cast<const char*>(data.data()), data.size());
    do boundary = "abcictl-" + crypto::random_token(24);
    while (content.find(boundary) != std::string_view::npos);
    std::string body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + file_name +
                       "\"\r\nContent-Type: application/octet-stream\r\n\r\n";
    body.append(content);
    body += "\r\n--" + boundary + "--\r\n";
    return body;
}

}  // namespace

namespace kubo {

std::string error_message(int status, std::string_view body) {
    // Kubo's error shape: {"Message": "...", "Code": 0, "Type": "error"}.
    const json error = json::parse(body, nullptr, false);
    if (error.is_object() && error.contains("Message") && error["Message"].is_string())
        return error["Message"].get<std::string>();
    return "HTTP " + std::to_string(status) + " without a Kubo error message";
}

std::string added_cid(std::string_view body) {
    std::string cid;
    std::size_t start = 0;
    while (start < body.size()) {
        const std::size_t end = std::min(body.find('\n', start), body.size());
        const json line = json::parse(body.substr(start, end - start), nullptr, false);
        if (line.is_object() && line.contains("Hash") && line["Hash"].is_string()) cid = line["Hash"].get<std::string>();
        start = end + 1;
    }
    return cid;
}

std::optional<std::string> version(std::string_view body) {
    const json answer = json::parse(body, nullptr, false);
    if (!answer.is_object() || !answer.contains("Version") || !answer["Version"].is_string()) return std::nullopt;
    return answer["Version"].get<std::string>();
}

}  // namespace kubo

struct KuboStore::Answer {
    int status = 0;
    std::string body;
    std::string error;  // Kubo's error Message when it sent one, else a description of the body

    [[nodiscard]] bool ok() const { return status == 200; }
};

KuboStore::KuboStore(std::string_view url, std::chrono::milliseconds timeout)
    : url_(rpc::parse_url(url)), display_(rpc::mask_url(url)), timeout_(timeout) {
    if (timeout_.count() <= 0) throw Error(ErrorKind::invalid_input, "kubo: the timeout must be positive");
    if (url_.target.find_first_of("?#") != std::string::npos)
        throw Error(ErrorKind::invalid_input, "kubo: the RPC URL " + display_ + " must not have a query");
    base_ = url_.target;
    while (!base_.empty() && base_.back() == '/') base_.pop_back();
}

KuboStore::Answer KuboStore::call(const std::string& command, const std::string& content_type,
                                  const std::string& body) const {
    const auto client = rpc::make_http_client(url_, {timeout_, timeout_});

    Answer answer;
    bool too_large = false;
    httplib::Request request;
    request.method = "POST";
    request.path = base_ + "/api/v0/" + command;
    request.body = body;
    if (!content_type.empty()) request.set_header("Content-Type", content_type);
    request.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
        too_large = answer.body.size() + size > kMaxAnswerSize;
        if (!too_large) answer.body.append(data, size);
        return !too_large;
    };

    const std::string what = "kubo at " + display_ + ", " + command;
    auto result = rpc::exchange(*client, request, timeout_);
    if (too_large)
        throw Error(ErrorKind::unavailable, what + ": answer larger than " + std::to_string(kMaxAnswerSize) + " bytes");
    if (const auto* failure = std::get_if<rpc::TransportFailure>(&result))
        throw Error(failure->kind, what + ": " + failure->reason);
    answer.status = std::get<httplib::Response>(result).status;
    if (!answer.ok()) answer.error = kubo::error_message(answer.status, answer.body);
    return answer;
}

void KuboStore::store(const Cid& ours, eth::ByteView data) {
    std::string boundary;
    const std::string body = multipart_body(data, ours.to_string(), boundary);
    const auto answer = call("add?cid-version=1&raw-leaves=true&pin=true&hash=sha2-256&chunker=size-262144",
                             "multipart/form-data; boundary=" + boundary, body);
    if (!answer.ok())
        throw Error(ErrorKind::unavailable, "kubo at " + display_ + " refused the upload: " + answer.error);

    const std::string theirs = kubo::added_cid(answer.body);
    if (theirs.empty()) throw Error(ErrorKind::unavailable, "kubo at " + display_ + ": add answered without a CID");
    if (theirs != ours.to_string())
        throw Error(ErrorKind::internal,
                    "kubo at " + display_ + " named the content " + theirs + ", but its CID is " + ours.to_string());
}

std::optional<eth::Bytes> KuboStore::fetch(const Cid& cid) {
    const std::string text = cid.to_string();
    const auto answer = call("block/get?arg=" + text + "&offline=true");
    if (answer.ok()) return eth::Bytes(answer.body.begin(), answer.body.end());
    if (answer.error.find(kNotFoundText) != std::string::npos) return std::nullopt;
    throw Error(ErrorKind::unavailable, "kubo at " + display_ + ": cannot get " + text + ": " + answer.error);
}

std::string KuboStore::location(const Cid& cid) const { return "kubo at " + display_ + ", block " + cid.to_string(); }

HealthCheck KuboStore::check() noexcept {
    try {
        const auto answer = call("version");
        if (!answer.ok()) return {false, "kubo at " + display_ + ": " + answer.error};
        const auto version = kubo::version(answer.body);
        if (!version) return {false, "kubo at " + display_ + ": version answered without a Version"};
        return {true, "kubo " + *version + " at " + display_};
    } catch (const std::exception& e) {
        return {false, e.what()};
    }
}

}  // namespace abci::content
