// What a Kubo (IPFS) node answers (core/content/kubo_store), read as the
// store reads it: an error body, an add's lines, a version. None of them
// throws; a CID Kubo names is only compared with ours, never trusted.
// fuzz-max-len: 8192

#include "core/content/kubo_store.hpp"
#include "fuzz.hpp"

using namespace abci;
namespace kubo = abci::content::kubo;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto body = fuzz::text(data, size);
    fuzz::require(!kubo::error_message(500, body).empty(), "an error always has a message");
    const auto cid = kubo::added_cid(body);
    fuzz::require(cid.empty() || body.find("Hash") != std::string_view::npos, "a CID comes from a Hash");
    (void)kubo::version(body);
    return 0;
}
