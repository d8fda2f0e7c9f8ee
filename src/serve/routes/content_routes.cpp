// GET /ipfs/{cid}: the content the server stored (token metadata), by CID,
// for wallets and explorers that resolve the tokens' ipfs:// URIs through
// this server. Public, as content on IPFS is; the bytes are re-hashed on the
// way out, so what is served always matches its name.

#include "core/content/cid.hpp"
#include "serve/router.hpp"
#include "serve/routes/routes.hpp"

namespace abci::serve {

namespace {

Reply content_by_cid(RequestContext& ctx) {
    // Cid::parse accepts only [a-z2-7] of one exact length: no path tricks pass.
    const auto cid = content::Cid::parse(ctx.path_match(1));
    const auto bytes = ctx.services.content.get(cid);
    if (!bytes) throw Error(ErrorKind::not_found, "no content with CID " + cid.to_string());
    ctx.response.set_header("Cache-Control", "public, max-age=31536000, immutable");
    ctx.response.set_header("ETag", "\"" + cid.to_string() + "\"");
    ctx.response.set_header("X-Content-Type-Options", "nosniff");
    Reply reply;
    reply.raw.assign(bytes->begin(), bytes->end());
    // Token metadata is JSON; anything else goes out as opaque bytes.
    reply.content_type = nlohmann::json::accept(reply.raw) ? "application/json" : "application/octet-stream";
    return reply;
}

}  // namespace

std::vector<Route> content_routes() {
    return {{Method::get, "/ipfs/([^/]+)", Access::open, {}, content_by_cid}};
}

}  // namespace abci::serve
