// CIDs (core/content/cid) as GET /ipfs/{cid} reads them from the URL path,
// and base32 as their text form. What parses is written back as the input.
// fuzz-max-len: 256

#include "core/content/cid.hpp"
#include "fuzz.hpp"

using namespace abci;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::text(data, size);
    eth::Bytes decoded;
    if (fuzz::accepts({ErrorKind::invalid_input}, [&] { decoded = content::base32_decode(text); }))
        fuzz::require(content::base32_encode(decoded) == text, "base32 decode then encode is the input");

    // The route's path segment: what follows "/ipfs/" up to the next slash.
    auto segment = text;
    if (segment.starts_with("/ipfs/")) segment.remove_prefix(6);
    segment = segment.substr(0, segment.find('/'));
    if (auto cid = std::optional<content::Cid>();
        fuzz::accepts({ErrorKind::invalid_input}, [&] { cid = content::Cid::parse(segment); })) {
        fuzz::require(cid->to_string() == segment, "a parsed CID prints as its text");
        fuzz::require(cid->codec() == content::Codec::raw, "only raw-codec CIDs parse");
    }
    return 0;
}
