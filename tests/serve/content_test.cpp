// GET /ipfs/{cid}: what the server's content store holds, served by CID and
// checked against it; the path input is a CID or nothing.

#include <filesystem>
#include <fstream>

#include "core/content/content_store.hpp"
#include "serve/expect.hpp"

namespace abci::test {

TEST_CASE("content is served by CID, hash-checked, and path input is validated", "[serve][content]") {
    Server server;
    const auto http = server.http();
    // The server's local backend keeps content in its data directory; a store
    // opened on the same directory puts what the server will serve.
    const auto store = content::make_content_store(content::ContentSettings{"local", server.data_dir()});
    const std::string metadata = R"({"name":"Report 7","attributes":[{"trait_type":"kg","value":12}]})";
    const auto json_cid = store->put(eth::as_bytes(metadata));
    const std::string binary("\x00\x01\xff not json", 13);
    const auto binary_cid = store->put(eth::as_bytes(binary));

    const auto served = http.get("/ipfs/" + json_cid.to_string());
    CHECK(served.status == 200);
    CHECK(served.body == metadata);
    CHECK(served.header("Content-Type") == "application/json");
    CHECK(served.header("ETag") == "\"" + json_cid.to_string() + "\"");
    CHECK(served.header("X-Content-Type-Options") == "nosniff");

    const auto opaque = http.get("/ipfs/" + binary_cid.to_string());
    CHECK(opaque.status == 200);
    CHECK(opaque.body == binary);
    CHECK(opaque.header("Content-Type") == "application/octet-stream");

    const auto absent = content::Cid::of(eth::as_bytes(std::string("never stored")));
    CHECK(http.get("/ipfs/" + absent.to_string()).status == 404);

    // A traversal attempt never reaches the store: it is no route (decoded, it has a '/') or no CID.
    for (const auto& [traversal, status] :
         std::vector<std::pair<std::string, int>>{{"..%2F..%2Fetc%2Fpasswd", 404}, {"%2E%2E", 400}, {"..", 400}}) {
        INFO(traversal);
        const auto refused = http.get("/ipfs/" + traversal);
        CHECK(refused.status == status);
        CHECK(refused.body.find("root:") == std::string::npos);
    }
    const std::vector<std::string> not_cids{"QmYEJAPHxLsFGurqJBUA86PCsWnbmcTRmx5WSdySLa7KPz",
                                            "BAFKREI" + json_cid.to_string().substr(7), json_cid.to_string() + "a", "abc"};
    for (const auto& bad : not_cids) {
        INFO(bad);
        const auto refused = http.get("/ipfs/" + bad);
        CHECK(refused.status == 400);
        CHECK(refused.json.value("error", "") == "invalid_request");
    }

    // A file changed on disk is never served as the content it claims to be.
    {
        std::ofstream tamper(std::filesystem::path(server.data_dir()) / "content" / json_cid.to_string(),
                             std::ios::binary | std::ios::trunc);
        tamper << R"({"name":"forged"})";
    }
    const auto tampered = http.get("/ipfs/" + json_cid.to_string());
    CHECK(tampered.status == 500);
    CHECK(tampered.body.find("forged") == std::string::npos);
    // What went wrong is for the operator's log, not for the client.
    CHECK(tampered.body.find(server.data_dir()) == std::string::npos);
    CHECK(server.log().find(json_cid.to_string()) != std::string::npos);
}

}  // namespace abci::test
