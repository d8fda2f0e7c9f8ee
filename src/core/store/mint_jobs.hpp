#pragma once
// Mints handed to the server that sends for their chain (DESIGN.md §9): a
// server that does not own a chain's lane queues the mint it accepted as a
// job, in the same transaction as its claim (Mints::begin); the lane's owner
// takes the queued jobs and sends them. A job lives exactly while its mint
// is pending and nothing was journaled for it: the journal write of its
// transaction (Journal::add) and the mint's end (Mints::finish, release)
// delete it, so an owner that dies between taking and journaling leaves it
// to the next owner.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/store/records.hpp"

namespace abci::store {

struct MintJob {
    std::string mint_id;
    std::string blockchain_id;
    std::string record;   // opaque to the store: the service's mint record (core/service/mint_record.hpp)
    std::string content;  // the metadata bytes the record's content id names, for the owner's content store
    TimePoint created_at;
};

class MintJobs {
public:
    virtual ~MintJobs() = default;
    /// The mint ids of the jobs queued for `blockchain_id`, oldest first, at
    /// most `limit`: cheap to ask again and again, while find_all() reads jobs whole.
    [[nodiscard]] virtual std::vector<std::string> queued(const std::string& blockchain_id, std::size_t limit) = 0;
    /// The jobs of those of `mint_ids` still queued, oldest first: one query for many.
    [[nodiscard]] virtual std::vector<MintJob> find_all(const std::vector<std::string>& mint_ids) = 0;
    /// Whether a job is queued for the mint.
    [[nodiscard]] virtual bool is_queued(const std::string& mint_id) = 0;
};

}  // namespace abci::store
