#pragma once
// A lane's stuck transactions as the lanes table stores them (its `stuck`
// column): what every server's health shows of the owner's. A durable
// format read by later releases: this module is its only reader and writer.
//
// Versions:
//   1  a JSON array of {"nonce","hash","since"} (since: milliseconds since
//      the epoch). An array carries no member: a later version is an object
//      with a "version" member, which this release refuses.

#include <string>
#include <vector>

#include "core/store/lanes.hpp"

namespace abci::store {

struct StuckRecord {
    /// The version serialize() writes.
    static constexpr int kVersion = 1;

    std::vector<StuckTransaction> transactions;

    /// The stored text, as version kVersion writes it.
    [[nodiscard]] std::string serialize() const;
    /// Reads the stored text of any version written so far. Error(internal)
    /// naming the problem for text that is no such record, a member missing
    /// or of the wrong type, or a newer version.
    [[nodiscard]] static StuckRecord parse(const std::string& text);
};

}  // namespace abci::store
