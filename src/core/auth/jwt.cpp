#include "core/auth/jwt.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/auth/jose.hpp"
#include "core/crypto/encoding.hpp"
#include "core/error.hpp"
#include "core/os/fd.hpp"
#include "core/os/private_file.hpp"
#include "core/util/json_members.hpp"

namespace abci::auth {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::size_t kMinSecretLength = 32;
constexpr std::size_t kMaxSecretFileSize = 4096;
// The signing secret's name among the database's shared secrets.
constexpr const char* kSharedSecretName = "jwt";
// Far above any token we issue; bounds the work an unauthenticated caller can cause.
constexpr std::size_t kMaxTokenLength = 8192;
constexpr std::size_t kMaxRememberedTokens = 4096;
// Our header and claims are flat; a little room for a future nested claim.
constexpr std::size_t kMaxSegmentDepth = 4;
constexpr std::string_view kHeader = R"({"alg":"HS256","typ":"at+jwt"})";
// 2200-01-01T00:00:00Z: beyond any token's life, and far inside what a
// system_clock time point holds (64-bit nanoseconds reach 2262), so that a
// claim's conversion and the leeway arithmetic cannot overflow. (It was
// 9999-12-31, which overflowed: a forged "nbf" in 2532 wrapped to 1948.)
constexpr std::int64_t kMaxEpochSeconds = 7258118400;
static_assert(kMaxEpochSeconds + 365LL * 24 * 3600 <
              std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::max()).count());

[[noreturn]] void reject(const std::string& reason) { throw Error(ErrorKind::unauthenticated, reason); }

// The JSON object a segment holds; any flaw jose finds (not base64url, not
// strict JSON, a member named twice at any depth) is one answer to the
// caller: the token is malformed.
json decode_object(std::string_view segment, std::string_view what) {
    try {
        return jose::decode_object(segment, what, kMaxSegmentDepth);
    } catch (const Error&) {
        reject("token is malformed");
    }
}

void check_header(const json& header) {
    const auto alg = header.find("alg");
    if (alg == header.end() || !alg->is_string() || *alg != "HS256") reject("token algorithm not accepted");
    const auto typ = header.find("typ");
    if (typ == header.end() || !typ->is_string() || *typ != "at+jwt") reject("token type not accepted");
    // We issue exactly these two members: any other (kid, jku, x5u, cty,
    // crit…) would ask for a key, a content type or an extension we do not
    // use, so a token carrying one is not ours (RFC 8725 3.1, 3.10).
    if (header.size() != 2) reject("token header not accepted");
}

[[noreturn]] void bad_claim(std::string_view name) {
    reject("token claim '" + std::string(name) + "' is missing or mistyped");
}

TimePoint time_claim(const util::RequiredMembers& claims, std::string_view name) {
    const auto seconds = claims.count(name);
    if (seconds > static_cast<std::uint64_t>(kMaxEpochSeconds)) throw claims.refusal(name, "is later than 2200-01-01");
    return TimePoint(std::chrono::seconds(static_cast<std::int64_t>(seconds)));
}

std::int64_t epoch_seconds(TimePoint t) {
    return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

void check_audience(const json& payload, const std::string& audience) {
    const auto it = payload.find("aud");
    if (it == payload.end()) bad_claim("aud");
    if (it->is_string()) {
        if (*it != audience) reject("token audience not accepted");
        return;
    }
    if (!it->is_array()) bad_claim("aud");
    bool found = false;
    for (const auto& entry : *it) {
        if (!entry.is_string()) bad_claim("aud");
        found = found || entry == audience;
    }
    if (!found) reject("token audience not accepted");
}

[[noreturn]] void io_failure(const char* action, const fs::path& path) {
    throw Error(ErrorKind::unavailable,
                "cannot " + std::string(action) + " JWT secret file " + path.string() + ": " + std::strerror(errno));
}

// The secret in `path`, or nothing when there is no such file.
std::optional<eth::Bytes> read_secret(const fs::path& path) {
    const os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ENOENT) return std::nullopt;
        io_failure("open", path);
    }
    // One byte of room beyond the limit tells "too large" from "exactly at the limit".
    eth::Bytes secret(kMaxSecretFileSize + 1);
    std::size_t used = 0;
    while (used < secret.size()) {
        const ssize_t n = ::read(fd.get(), secret.data() + used, secret.size() - used);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            eth::secure_wipe(secret.data(), secret.size());
            io_failure("read", path);
        }
        used += static_cast<std::size_t>(n);
    }
    if (used < kMinSecretLength || used > kMaxSecretFileSize) {
        eth::secure_wipe(secret.data(), secret.size());
        throw Error(ErrorKind::invalid_input, "JWT secret file " + path.string() + " must hold between " +
                                                  std::to_string(kMinSecretLength) + " and " +
                                                  std::to_string(kMaxSecretFileSize) + " bytes");
    }
    secret.resize(used);
    return secret;
}

}  // namespace

JwtCodec::JwtCodec(eth::ByteView secret, JwtSettings settings)
    : secret_(secret.begin(), secret.end()), settings_(std::move(settings)) {
    if (secret_.size() < kMinSecretLength) {
        eth::secure_wipe(secret_.data(), secret_.size());
        throw Error(ErrorKind::invalid_input, "the JWT secret must be at least 32 bytes");
    }
    if (settings_.lifetime.count() <= 0 || settings_.leeway.count() < 0) {
        eth::secure_wipe(secret_.data(), secret_.size());
        throw Error(ErrorKind::invalid_input, "the JWT lifetime must be positive and the leeway not negative");
    }
}

JwtCodec::~JwtCodec() { eth::secure_wipe(secret_.data(), secret_.size()); }

JwtCodec::Issued JwtCodec::issue(const std::string& user_id, const std::string& role, const std::string& email,
                                 const std::string& session_id, TimePoint now) const {
    if (user_id.empty() || role.empty() || session_id.empty())
        throw Error(ErrorKind::invalid_input, "a token needs a user id, a role and a session id");
    const TimePoint start = std::chrono::floor<std::chrono::seconds>(now);
    AccessClaims claims{user_id, role, email, crypto::random_uuid(), session_id, start, start,
                        start + settings_.lifetime};
    const json payload = {
        {"iss", settings_.issuer},
        {"aud", settings_.audience},
        {"sub", claims.subject},
        {"role", claims.role},
        {"email", claims.email},
        {"jti", claims.jti},
        {"sid", claims.session_id},
        {"iat", epoch_seconds(claims.issued_at)},
        {"nbf", epoch_seconds(claims.not_before)},
        {"exp", epoch_seconds(claims.expires_at)},
    };
    std::string payload_text;
    try {
        payload_text = payload.dump();
    } catch (const json::exception&) {
        throw Error(ErrorKind::invalid_input, "token claims must be valid UTF-8");
    }
    std::string token = crypto::base64url_encode(eth::as_bytes(kHeader)) + "." +
                        crypto::base64url_encode(eth::as_bytes(payload_text));
    token += "." + jose::hs256_signature(secret_, token);
    return {std::move(token), std::move(claims)};
}

AccessClaims JwtCodec::verify(std::string_view token, TimePoint now) const {
    if (token.size() > kMaxTokenLength) reject("token is too long");
    std::optional<AccessClaims> known;
    {
        std::lock_guard lock(verified_mutex_);
        if (const auto it = verified_.find(std::string(token)); it != verified_.end()) known = it->second;
    }
    if (!known) {
        known = verify_untimed(token);
        std::lock_guard lock(verified_mutex_);
        // Forgetting them all at once is simple and rare: tokens live an hour.
        if (verified_.size() >= kMaxRememberedTokens) verified_.clear();
        verified_.emplace(token, *known);
    }
    const AccessClaims& claims = *known;
    if (now >= claims.expires_at + settings_.leeway) reject("token has expired");
    if (now + settings_.leeway < claims.not_before) reject("token is not yet valid");
    if (now + settings_.leeway < claims.issued_at) reject("token was issued in the future");
    return claims;
}

AccessClaims JwtCodec::verify_untimed(std::string_view token) const {
    const auto jws = jose::split(token);
    if (!jws) reject("token is malformed");

    // The header decides everything before any signature work (RFC 8725 3.1).
    check_header(decode_object(jws->header, "header"));
    if (!jose::hs256_valid(secret_, jws->signing_input, jws->signature)) reject("token signature is invalid");

    const auto payload = decode_object(jws->payload, "payload");
    const util::RequiredMembers members(payload, ErrorKind::unauthenticated, "token claim not accepted");
    if (members.text("iss") != settings_.issuer) reject("token issuer not accepted");
    check_audience(payload, settings_.audience);

    AccessClaims claims;
    claims.subject = members.nonempty_text("sub");
    claims.role = members.nonempty_text("role");
    claims.jti = members.nonempty_text("jti");
    claims.session_id = members.nonempty_text("sid");
    claims.issued_at = time_claim(members, "iat");
    claims.not_before = time_claim(members, "nbf");
    claims.expires_at = time_claim(members, "exp");
    if (members.has("email")) claims.email = members.text("email");
    return claims;
}

eth::Bytes load_or_create_secret(const std::string& path_text) {
    const fs::path path(path_text);
    if (auto existing = read_secret(path)) return std::move(*existing);

    os::create_private_directory(path.has_parent_path() ? path.parent_path() : fs::path("."));
    eth::Bytes secret = crypto::random_bytes(kMinSecretLength);
    // When another process created the secret meanwhile, both must end up using that one.
    if (!os::write_private_file(path, secret, os::WriteMode::create_new)) {
        eth::secure_wipe(secret.data(), secret.size());
        if (auto theirs = read_secret(path)) return std::move(*theirs);
        io_failure("read", path);
    }
    return secret;
}

std::optional<SharedSecretRow> shared_form_of_secret_file(const std::string& path) {
    auto secret = read_secret(path);
    if (!secret) return std::nullopt;
    SharedSecretRow row{.name = kSharedSecretName, .value = eth::to_hex(*secret, false)};
    eth::secure_wipe(secret->data(), secret->size());
    return row;
}

eth::Bytes load_or_create_shared_secret(store::SharedSecrets& secrets) {
    eth::Bytes candidate = crypto::random_bytes(kMinSecretLength);
    std::string candidate_hex = eth::to_hex(candidate, false);
    std::string stored = secrets.get_or_create(kSharedSecretName, candidate_hex);
    eth::Bytes secret = eth::from_hex(stored, "the stored JWT secret");
    for (auto* text : {&candidate_hex, &stored}) eth::secure_wipe(text->data(), text->size());
    eth::secure_wipe(candidate.data(), candidate.size());
    if (secret.size() < kMinSecretLength)
        throw Error(ErrorKind::internal, "the JWT secret stored in the database is shorter than 32 bytes");
    return secret;
}

}  // namespace abci::auth
