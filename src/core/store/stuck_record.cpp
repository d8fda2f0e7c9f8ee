#include "core/store/stuck_record.hpp"

#include <nlohmann/json.hpp>

#include "core/store/sql/sql.hpp"
#include "core/util/json_members.hpp"

namespace abci::store {

namespace {

constexpr const char* kUnreadable = "a lane's stored stuck transactions cannot be read";

}  // namespace

std::string StuckRecord::serialize() const {
    auto array = nlohmann::json::array();
    for (const auto& tx : transactions)
        array.push_back({{"nonce", tx.nonce}, {"hash", tx.hash}, {"since", sql::to_millis(tx.since)}});
    return array.dump();
}

StuckRecord StuckRecord::parse(const std::string& text) {
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_array()) {
        // A later version's object says which version it is; anything else is no record at all.
        const util::RequiredMembers later(parsed, ErrorKind::internal, kUnreadable);
        (void)later.version(kVersion);
        throw Error(ErrorKind::internal, std::string(kUnreadable) + ": version 1 is a JSON array");
    }
    StuckRecord record;
    for (const auto& item : parsed) {
        const util::RequiredMembers tx(item, ErrorKind::internal, kUnreadable);
        record.transactions.push_back({.nonce = tx.count("nonce"),
                                       .hash = tx.text("hash"),
                                       .since = sql::from_millis(static_cast<std::int64_t>(tx.count("since")))});
    }
    return record;
}

}  // namespace abci::store
