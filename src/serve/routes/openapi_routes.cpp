// The API's contract, served: GET /openapi.json and /openapi.yaml (the
// document built into the binary, its `servers` naming this server's public
// URL) and GET /docs, the reference page Redoc renders from it. Open, as
// the routes they describe are public knowledge; each answer carries a strong
// ETag and a matching If-None-Match gets 304.

#include <httplib.h>

#include <memory>
#include <mutex>

#include "core/crypto/encoding.hpp"
#include "serve/openapi_assets.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve {

namespace {

// The document as written names no origin; the served copies name this one.
constexpr std::string_view kServersAsWritten = "\nservers:\n  - url: /\n";

/// What the document and the page allow the browser: Redoc's own script from
/// here, its inline styles (styled-components writes <style> elements), the
/// search worker it starts from a blob: URL, the document fetched from here.
constexpr const char* kDocsPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; worker-src blob:; "
    "connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

// Its references are relative to /docs: behind a reverse proxy that serves
// this server under a path prefix, /prefix/docs fetches /prefix/openapi.json.
constexpr std::string_view kDocsPage = R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>abcictl API reference</title>
</head>
<body>
<redoc spec-url="openapi.json"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
)";

struct Body {
    std::string bytes;
    std::string etag;  // strong: the digest of `bytes`
};

Body body_of(std::string bytes) {
    auto etag = "\"" + crypto::sha256_hex(bytes) + "\"";
    return {std::move(bytes), std::move(etag)};
}

/// Where clients reach this server: `[server] publicUrl`, which keeps the
/// path prefix of a reverse proxy that serves it under one; else
/// `[server] domain` (the listen address unless configured), over HTTPS when
/// the server has TLS or names the TLS proxies in front of it (spec 5.1: it
/// listens beyond loopback only so).
std::string public_url(const Settings& settings) {
    if (!settings.public_url.empty()) return settings.public_url;
    const bool https = settings.tls() || !settings.trusted_proxies.empty();
    return (https ? "https://" : "http://") + settings.domain;
}

/// The served documents, made once on first request (the settings are the
/// router's, known only then) and shared by every later one.
class ServedDocuments {
public:
    const Body& json(const Settings& settings) {
        std::call_once(made_, [&] { make(settings); });
        return json_;
    }
    const Body& yaml(const Settings& settings) {
        std::call_once(made_, [&] { make(settings); });
        return yaml_;
    }

private:
    void make(const Settings& settings) {
        const auto url = public_url(settings);
        auto document = nlohmann::json::parse(openapi::json().bytes);
        document["servers"] = nlohmann::json::array({{{"url", url}, {"description", "This server"}}});
        json_ = body_of(document.dump());
        std::string yaml(openapi::yaml().bytes);
        const auto at = yaml.find(kServersAsWritten);
        // tests/unit/openapi_document_test.cpp holds the document to this form.
        if (at == std::string::npos) throw Error(ErrorKind::internal, "docs/openapi.yaml lost its servers entry");
        // A JSON string is a YAML flow scalar: the URL needs no escaping rules of its own.
        yaml.replace(at, kServersAsWritten.size(), "\nservers:\n  - url: " + nlohmann::json(url).dump() + "\n");
        yaml_ = body_of(std::move(yaml));
    }

    std::once_flag made_;
    Body json_;
    Body yaml_;
};

/// Whether an If-None-Match value (RFC 9110 13.1.2: "*" or a list of entity
/// tags, compared weakly) names `etag`.
bool matches_if_none_match(const std::string& value, const std::string& etag) {
    std::size_t start = 0;
    while (start < value.size()) {
        auto end = value.find(',', start);
        if (end == std::string::npos) end = value.size();
        const auto first = value.find_first_not_of(" \t", start);
        if (first < end) {
            const auto tag = value.substr(first, value.find_last_not_of(" \t", end - 1) - first + 1);
            if (tag == "*" || tag == etag || tag == "W/" + etag) return true;
        }
        start = end + 1;
    }
    return false;
}

/// `body` with its validators, or 304 when the client holds it already.
Reply cached(RequestContext& ctx, const std::string& body, const std::string& etag, const char* content_type) {
    ctx.response.set_header("ETag", etag);
    // Kept by any cache, checked with the ETag before each use: a new binary may answer another document.
    ctx.response.set_header("Cache-Control", "public, no-cache");
    ctx.response.set_header("X-Content-Type-Options", "nosniff");
    Reply reply;
    reply.content_type = content_type;
    if (matches_if_none_match(ctx.request.get_header_value("If-None-Match"), etag)) {
        reply.status = 304;
        return reply;
    }
    reply.raw = body;
    return reply;
}

}  // namespace

std::vector<Route> openapi_routes() {
    auto documents = std::make_shared<ServedDocuments>();
    static const Body page = body_of(std::string(kDocsPage));
    static const std::string script_etag = "\"" + std::string(openapi::redoc().sha256) + "\"";
    return {
        {Method::get, "/openapi\\.json", Access::open, {},
         [documents](RequestContext& ctx) {
             const auto& body = documents->json(ctx.services.settings);
             return cached(ctx, body.bytes, body.etag, "application/json");
         }},
        {Method::get, "/openapi\\.yaml", Access::open, {},
         [documents](RequestContext& ctx) {
             const auto& body = documents->yaml(ctx.services.settings);
             return cached(ctx, body.bytes, body.etag, "application/yaml");
         }},
        {Method::get, "/docs", Access::open, {},
         [](RequestContext& ctx) {
             ctx.response.set_header("Content-Security-Policy", kDocsPolicy);
             ctx.response.set_header("Referrer-Policy", "no-referrer");
             return cached(ctx, page.bytes, page.etag, "text/html; charset=utf-8");
         }},
        {Method::get, "/docs/redoc\\.standalone\\.js", Access::open, {},
         [](RequestContext& ctx) {
             return cached(ctx, std::string(openapi::redoc().bytes), script_etag, "text/javascript; charset=utf-8");
         }},
    };
}

}  // namespace abci::serve
