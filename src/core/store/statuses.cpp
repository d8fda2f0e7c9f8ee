// The stored names of the store's enums: part of the schema, never renamed.

#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "core/store/certificates.hpp"
#include "core/store/mints.hpp"
#include "core/store/practices.hpp"
#include "core/store/role_requests.hpp"
#include "core/store/webhook_events.hpp"
#include "core/store/webhooks.hpp"

namespace abci::store {
namespace {

template <class Enum, std::size_t N>
const char* name_of(const std::array<std::pair<Enum, const char*>, N>& names, Enum value) noexcept {
    for (const auto& [e, name] : names)
        if (e == value) return name;
    return "unknown";
}

template <class Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<Enum, const char*>, N>& names, std::string_view name) noexcept {
    for (const auto& [e, n] : names)
        if (name == n) return e;
    return std::nullopt;
}

template <class Enum, std::size_t N>
std::vector<Enum> values_in(const std::array<std::pair<Enum, const char*>, N>& names) {
    std::vector<Enum> values;
    for (const auto& [e, name] : names) values.push_back(e);
    return values;
}

constexpr std::array<std::pair<RoleRequestStatus, const char*>, 5> kRoleRequestStatuses{{
    {RoleRequestStatus::pending, "pending"},
    {RoleRequestStatus::approved, "approved"},
    {RoleRequestStatus::minted, "minted"},
    {RoleRequestStatus::rejected, "rejected"},
    {RoleRequestStatus::failed, "failed"},
}};
constexpr std::array<std::pair<MintState, const char*>, 3> kMintStates{{
    {MintState::pending, "pending"},
    {MintState::done, "done"},
    {MintState::failed, "failed"},
}};
constexpr std::array<std::pair<MintKind, const char*>, 4> kMintKinds{{
    {MintKind::role, "role"},
    {MintKind::entity, "entity"},
    {MintKind::workflow_role, "workflow-role"},
    {MintKind::certificate, "certificate"},
}};
constexpr std::array<std::pair<CertificateStatus, const char*>, 2> kCertificateStatuses{{
    {CertificateStatus::pending, "pending"},
    {CertificateStatus::minted, "minted"},
}};
constexpr std::array<std::pair<VerificationOutcome, const char*>, 2> kVerificationOutcomes{{
    {VerificationOutcome::approved, "approved"},
    {VerificationOutcome::rejected, "rejected"},
}};
constexpr std::array<std::pair<DeliveryState, const char*>, 3> kDeliveryStates{{
    {DeliveryState::pending, "pending"},
    {DeliveryState::succeeded, "succeeded"},
    {DeliveryState::failed, "failed"},
}};
constexpr std::array<std::pair<EventType, const char*>, 11> kEventTypes{{
    {EventType::mint_submitted, "mint.submitted"},
    {EventType::mint_confirmed, "mint.confirmed"},
    {EventType::mint_failed, "mint.failed"},
    {EventType::mint_reorged, "mint.reorged"},
    {EventType::role_request_created, "role_request.created"},
    {EventType::role_request_approved, "role_request.approved"},
    {EventType::role_request_rejected, "role_request.rejected"},
    {EventType::certificate_issued, "certificate.issued"},
    {EventType::signer_balance_low, "signer.balance_low"},
    {EventType::lane_owner_changed, "lane.owner_changed"},
    {EventType::webhook_test, "webhook.test"},
}};

}  // namespace

const char* to_string(RoleRequestStatus status) noexcept { return name_of(kRoleRequestStatuses, status); }
std::optional<RoleRequestStatus> parse_role_request_status(std::string_view name) noexcept {
    return value_of(kRoleRequestStatuses, name);
}
std::vector<std::string> role_request_status_names() {
    std::vector<std::string> names;
    for (const auto& [status, name] : kRoleRequestStatuses) names.emplace_back(name);
    return names;
}
const char* to_string(MintState state) noexcept { return name_of(kMintStates, state); }
std::optional<MintState> parse_mint_state(std::string_view name) noexcept { return value_of(kMintStates, name); }
const char* to_string(MintKind kind) noexcept { return name_of(kMintKinds, kind); }
std::optional<MintKind> parse_mint_kind(std::string_view name) noexcept { return value_of(kMintKinds, name); }
const std::vector<MintKind>& all_mint_kinds() {
    static const auto kinds = values_in(kMintKinds);
    return kinds;
}
const char* to_string(CertificateStatus status) noexcept { return name_of(kCertificateStatuses, status); }
std::optional<CertificateStatus> parse_certificate_status(std::string_view name) noexcept {
    return value_of(kCertificateStatuses, name);
}
const char* to_string(VerificationOutcome outcome) noexcept { return name_of(kVerificationOutcomes, outcome); }
std::optional<VerificationOutcome> parse_verification_outcome(std::string_view name) noexcept {
    return value_of(kVerificationOutcomes, name);
}
const char* to_string(DeliveryState state) noexcept { return name_of(kDeliveryStates, state); }
std::optional<DeliveryState> parse_delivery_state(std::string_view name) noexcept {
    return value_of(kDeliveryStates, name);
}

const char* to_string(EventType type) noexcept { return name_of(kEventTypes, type); }
std::optional<EventType> parse_event_type(std::string_view name) noexcept { return value_of(kEventTypes, name); }
const std::vector<EventType>& all_event_types() {
    static const auto types = values_in(kEventTypes);
    return types;
}

}  // namespace abci::store
