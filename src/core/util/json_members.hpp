#pragma once
// The one reader of "the members a type requires of a JSON object": a stored
// record (the journal's mint record), a token's claims. Each member is there
// and of its type, or the reading stops with a MemberError naming it; no
// member is skipped or given a default behind the caller's back.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace abci::util {

/// A required member of a JSON object that is missing or not of its type.
/// Its message is "<context>: it has no "<member>"" or "<context>: its
/// "<member>" is no <type>"; its kind is the reader's (a stored record that
/// cannot be read is internal, a token with a bad claim unauthenticated).
class MemberError : public Error {
public:
    MemberError(ErrorKind kind, const std::string& context, std::string member, const std::string& problem);
    [[nodiscard]] const std::string& member() const noexcept { return member_; }

private:
    std::string member_;
};

/// The members of `object`, read as a type requires them. `object` must
/// outlive the reader; `kind` and `context` ("a journaled mint record cannot
/// be read") make each MemberError.
class RequiredMembers {
public:
    /// MemberError (with no member named) when `object` is no JSON object.
    RequiredMembers(const nlohmann::json& object, ErrorKind kind, std::string context);

    /// The member, whatever its type.
    [[nodiscard]] const nlohmann::json& any(std::string_view name) const;
    /// A string member.
    [[nodiscard]] std::string text(std::string_view name) const;
    /// A string member that is not empty.
    [[nodiscard]] std::string nonempty_text(std::string_view name) const;
    /// A member that is an integer from 0 to 2^64-1.
    [[nodiscard]] std::uint64_t count(std::string_view name) const;
    /// The "version" member of a versioned record, 1 when it has none (rows
    /// written before their writer wrote one). An Error of the reader's kind
    /// when it is newer than `newest`, the latest this release reads: a
    /// record is never read by a release that does not know its version.
    [[nodiscard]] std::uint64_t version(std::uint64_t newest) const;
    /// Whether `object` has the member, for those a type may leave out.
    [[nodiscard]] bool has(std::string_view name) const { return object_.contains(name); }

    /// A MemberError about `name` saying `problem` ("is no address: …"), for
    /// a check of the reader's own on a member of the right JSON type.
    [[nodiscard]] MemberError refusal(std::string_view name, const std::string& problem) const;

private:
    const nlohmann::json& object_;
    ErrorKind kind_;
    std::string context_;
};

}  // namespace abci::util
