// The shared reader of a JSON object's required members
// (core/util/json_members.hpp): each member there and of its type, or a
// MemberError of the reader's kind naming the member and what is wrong.

#include <catch2/catch.hpp>

#include <functional>

#include "core/util/json_members.hpp"

namespace abci::util::json_members_tests {
namespace {

using nlohmann::json;

// The MemberError `read` throws, checked to be of `kind`.
MemberError refusal(ErrorKind kind, const std::function<void()>& read) {
    try {
        read();
    } catch (const MemberError& e) {
        CHECK(e.kind() == kind);
        return e;
    }
    FAIL("read without a refusal");
    return MemberError(kind, "", "", "");
}

}  // namespace

TEST_CASE("required members: each read as its type asks, or a refusal naming the member", "[json_members]") {
    const json record{{"route", "mint"}, {"amount", 2}, {"empty", ""}, {"negative", -1}, {"number", 7}};
    const RequiredMembers members(record, ErrorKind::internal, "a record cannot be read");
    CHECK(members.text("route") == "mint");
    CHECK(members.count("amount") == 2);
    CHECK(members.any("negative") == -1);
    CHECK(members.has("empty"));
    CHECK_FALSE(members.has("cid"));

    const auto missing = refusal(ErrorKind::internal, [&] { (void)members.text("cid"); });
    CHECK(missing.member() == "cid");
    CHECK(std::string(missing.what()) == "a record cannot be read: it has no \"cid\"");
    const auto not_text = refusal(ErrorKind::internal, [&] { (void)members.text("number"); });
    CHECK(not_text.member() == "number");
    CHECK(std::string(not_text.what()) == "a record cannot be read: its \"number\" is no string");
    CHECK(std::string(refusal(ErrorKind::internal, [&] { (void)members.count("negative"); }).what()) ==
          "a record cannot be read: its \"negative\" is no non-negative integer");
    CHECK(std::string(refusal(ErrorKind::internal, [&] { (void)members.count("route"); }).what()) ==
          "a record cannot be read: its \"route\" is no non-negative integer");
    CHECK(std::string(refusal(ErrorKind::internal, [&] { (void)members.nonempty_text("empty"); }).what()) ==
          "a record cannot be read: its \"empty\" is empty");
    CHECK(members.refusal("route", "is no route we know").member() == "route");
}

TEST_CASE("required members: the kind is the reader's, and what is no object is refused whole", "[json_members]") {
    const json claims{{"sub", 12}};
    const RequiredMembers token(claims, ErrorKind::unauthenticated, "token claim not accepted");
    CHECK(refusal(ErrorKind::unauthenticated, [&] { (void)token.nonempty_text("sub"); }).member() == "sub");
    for (const auto& not_object : {json::array({1}), json("text"), json(nullptr), json(3)}) {
        INFO(not_object.dump());
        const auto whole =
            refusal(ErrorKind::internal, [&] { (void)RequiredMembers(not_object, ErrorKind::internal, "x"); });
        CHECK(whole.member().empty());
        CHECK(std::string(whole.what()) == "x: it is no JSON object");
    }
}

TEST_CASE("required members: a record's version, 1 without one, and a newer one than the reader's refused", "[json_members]") {
    const json unversioned{{"kind", "timeout"}};
    CHECK(RequiredMembers(unversioned, ErrorKind::internal, "x").version(1) == 1);
    const json second{{"version", 2}};
    CHECK(RequiredMembers(second, ErrorKind::internal, "x").version(3) == 2);
    try {
        (void)RequiredMembers(second, ErrorKind::internal, "x").version(1);
        FAIL("read a newer version");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::internal);
        CHECK(std::string(e.what()) == "x: it is version 2, this release reads versions up to 1: run the release that wrote it");
    }
    const json mistyped{{"version", "2"}};
    CHECK(refusal(ErrorKind::internal, [&] { (void)RequiredMembers(mistyped, ErrorKind::internal, "x").version(2); })
              .member() == "version");
}

}  // namespace abci::util::json_members_tests
