#pragma once
// The mint record: what the service journals with a mint's transaction (the
// journal's `purpose`, DESIGN.md §4), so that after a crash the next start can
// finish the mint's bookkeeping from the journal alone. It is a durable
// format read by later releases: this module is its only reader and writer.
// The sender and the batcher (core/chain) carry it as opaque text.
//
// Versions (a row's "version" member; rows without one are version 1):
//   1  {"op":"mint","mintId","route","to","tokenId","amount","cid",
//      "entityType","entityId","actor","key","roleRequestId"}; "mintId" is
//      absent in rows written before mints had ids. Version 1 rows were
//      written without "version" until this module wrote it. "route" is a
//      route's name; read as the kind the schema migration kMintKinds
//      (core/store/migrations.cpp) makes of it: a role request's approval (actor
//      "workflow:role-request") a workflow-role mint, an entity mint keyed
//      "certificate:…" a certificate's.
//   2  as 1 with "kind" (store::MintKind's stored name) for "route".
// A batch (one mintMany transaction) is {"op":"mintMany","items":[record, ...]},
// each item a record of its own version.
//
// A new version adds its row to the list above, a case to from_json() and a
// fixture database to tests/fixtures/mint_records/ written by the release
// before it (tests/unit/service/mint_record_test.cpp says how).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/eth/address.hpp"
#include "core/store/mints.hpp"

namespace abci::service {

struct MintRecord {
    /// The version to_json() writes.
    static constexpr int kVersion = 2;

    std::string mint_id;          // "" in rows written before mints had ids: actor, kind and key name it then
    store::MintKind kind = store::MintKind::role;  // "kind": its stored name (store::to_string)
    eth::Address to;              // the beneficiary
    std::uint64_t token_id = 0;
    std::uint64_t amount = 0;
    std::string cid;              // the metadata record's content id
    std::string entity_type;      // "" for a role mint
    std::string entity_id;        // "" for a role mint
    std::string actor;            // who asked for it
    std::string key;              // its Idempotency-Key, "" without one
    std::string role_request_id;  // the role request it approves, "" for none

    bool operator==(const MintRecord&) const = default;

    /// The record as version kVersion writes it.
    [[nodiscard]] nlohmann::json to_json() const;
    /// Reads a record of any version written so far. Error(internal) naming
    /// the problem for a version this release does not read (a newer one's)
    /// or a member missing or of the wrong type: a journal row is never
    /// half read.
    [[nodiscard]] static MintRecord from_json(const nlohmann::json& record);
};

/// The purpose of one mintMany transaction carrying `records` (each the text
/// of a MintRecord::to_json()): the batcher's combine function.
[[nodiscard]] std::string combine_mint_records(const std::vector<std::string>& records);

/// What a journaled purpose says its transaction is for.
struct MintPurpose {
    std::string op;                 // "mint", "mintMany", another purpose's own op; "" when no JSON object (a nonce filler)
    std::vector<MintRecord> mints;  // the mints it carries, in batch order; none unless op is mint or mintMany
};

/// Reads a journaled purpose. Error(internal) as MintRecord::from_json for a
/// mint or batch it cannot read whole.
[[nodiscard]] MintPurpose parse_mint_purpose(const std::string& purpose);

}  // namespace abci::service
