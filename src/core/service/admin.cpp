#include "core/service/admin.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "core/util/time.hpp"

namespace abci::service {

namespace {

constexpr std::size_t kDefaultAuditLimit = 100;
constexpr std::size_t kMaxAuditLimit = 10000;

std::size_t audit_limit(const std::optional<std::string>& text) {
    if (!text) return kDefaultAuditLimit;
    try {
        const auto value = std::stoll(*text);
        if (value >= 1 && static_cast<std::size_t>(value) <= kMaxAuditLimit) return static_cast<std::size_t>(value);
    } catch (const std::logic_error&) {
        // Not a number: refused below, as one out of range is.
    }
    throw Error(ErrorKind::invalid_input, "invalid request",
                {"limit must be an integer from 1 to " + std::to_string(kMaxAuditLimit)});
}

}  // namespace

std::vector<Account> Listings::accounts() {
    std::vector<Account> accounts;
    for (auto& user : store_.users().list()) {
        auto wallets = store_.credentials().wallets_of(user.id);
        accounts.push_back({std::move(user), std::move(wallets)});
    }
    return accounts;
}

Account Listings::own_account(const std::string& user_id) {
    auto user = store_.users().find_by_id(user_id);
    if (!user) throw Error(ErrorKind::unauthenticated, "the token's user no longer exists");
    return {std::move(*user), store_.credentials().wallets_of(user_id)};
}

std::vector<store::AuditEntry> Listings::audit(const std::optional<std::string>& since,
                                               const std::optional<std::string>& limit) {
    std::optional<store::TimePoint> from;
    if (since) from = util::parse_rfc3339(*since);
    return store_.audit().list(from, audit_limit(limit));
}

std::vector<store::RoleRequest> Listings::role_requests(const std::optional<std::string>& status) {
    if (!status) return store_.role_requests().list(std::nullopt);
    const auto wanted = store::parse_role_request_status(*status);
    // A misspelt status would list nothing, which reads as "no such requests".
    if (!wanted) {
        std::string names;
        for (const auto& name : store::role_request_status_names()) names += (names.empty() ? "" : ", ") + name;
        throw Error(ErrorKind::invalid_input, "invalid request", {"status must be one of " + names});
    }
    return store_.role_requests().list(wanted);
}

std::vector<store::ApiKey> Listings::api_keys() { return store_.api_keys().list(); }

}  // namespace abci::service
