#pragma once
// Every route of the server's route table (src/serve/routes), as the hostile
// text sweep (hostile_text_test.cpp) sends to it: a path it answers, the
// query parameters and body members it reads. The serve suite is black-box
// and cannot read the table itself; tests/unit/serve/swept_routes_test.cpp
// holds this list to the table (the same method and pattern, each once), so
// a route added there without being swept here fails that test.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace abci::test {

struct SweptRoute {
    std::string method;
    std::string pattern;  // exactly as the route table declares it
    std::string path;     // a path the pattern matches, on ChainServer's devnet
    std::string query;    // well-formed values of what it reads ("" for none)
    std::vector<std::string> reads;  // the query parameters it reads
    nlohmann::json body{};           // a body of the shape it reads (null: none)
    bool open = false;               // sent without the admin's token
};

inline std::vector<SweptRoute> swept_routes() {
    using nlohmann::json;
    const std::string address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const std::string id = "5f0c8e2a-9f44-4c1e-8d4e-3b7f0a2c6d11";
    const json id_login = {{"id_token", "t"}, {"redirect", "/"}};
    std::vector<SweptRoute> routes = {
        {"POST", "/api/auth/login-email-password", "/api/auth/login-email-password", "", {},
         {{"email", "ann@example.org"}, {"password", "p"}, {"redirect", "/"}}, true},
        {"GET", "/api/auth/wallet-nonce", "/api/auth/wallet-nonce", "", {}, nullptr, true},
        {"POST", "/api/auth/wallet-connect", "/api/auth/wallet-connect", "", {},
         {{"address", address}, {"signature", "0x00"}, {"message", "m"}}, true},
        {"POST", "/api/auth/idp-login", "/api/auth/idp-login", "", {}, id_login, true},
        {"POST", "/api/auth/([a-z0-9-]+)-login", "/api/auth/acme-login", "", {}, id_login, true},
        {"GET", "/api/auth/idp-callback", "/api/auth/idp-callback", "code=c&state=s", {"code", "state", "error"},
         nullptr, true},
        {"POST", "/api/auth/idp-exchange", "/api/auth/idp-exchange", "", {}, {{"code", "c"}}, true},
        {"POST", "/api/auth/refresh", "/api/auth/refresh", "", {}, {{"refresh_token", "t"}}, true},
        {"POST", "/api/auth/logout", "/api/auth/logout", "", {}, nullptr},
        {"GET", "/api/auth/me", "/api/auth/me", "", {}, nullptr},
        {"GET", "/api/farmers/profile", "/api/farmers/profile", "", {"userId"}, nullptr},
        {"POST", "/api/practices", "/api/practices", "", {},
         {{"title", "t"}, {"description", "d"}, {"farmerId", id}, {"metadata", {{"region", "r"}}}}},
        {"POST", "/api/verifications", "/api/verifications", "", {},
         {{"practiceId", id}, {"outcome", "approved"}, {"notes", "n"}}},
        {"GET", "/api/admin/users", "/api/admin/users", "", {}, nullptr},
        {"GET", "/api/admin/audit", "/api/admin/audit", "limit=5", {"since", "limit"}, nullptr},
        {"GET", "/api/admin/role-requests", "/api/admin/role-requests", "", {"status"}, nullptr},
        {"GET", "/v1/admin/role-requests", "/v1/admin/role-requests", "", {"status"}, nullptr},
        {"GET", "/api/admin/api-keys", "/api/admin/api-keys", "", {}, nullptr},
        {"POST", "/api/admin/webhooks", "/api/admin/webhooks", "", {},
         {{"url", "https://hooks.example.org/in"}, {"events", {"webhook.test"}}, {"description", "d"}}},
        {"GET", "/api/admin/webhooks", "/api/admin/webhooks", "", {}, nullptr},
        {"GET", "/api/admin/webhooks/([^/]+)", "/api/admin/webhooks/wh_x", "", {}, nullptr},
        {"PATCH", "/api/admin/webhooks/([^/]+)", "/api/admin/webhooks/wh_x", "", {},
         {{"url", "https://hooks.example.org/in"}, {"events", {"webhook.test"}}, {"description", "d"}, {"enabled", true}}},
        {"DELETE", "/api/admin/webhooks/([^/]+)", "/api/admin/webhooks/wh_x", "", {}, nullptr},
        {"POST", "/api/admin/webhooks/([^/]+)/rotate-secret", "/api/admin/webhooks/wh_x/rotate-secret", "", {}, nullptr},
        {"POST", "/api/admin/webhooks/([^/]+)/test", "/api/admin/webhooks/wh_x/test", "", {}, nullptr},
        {"GET", "/api/admin/webhooks/([^/]+)/deliveries", "/api/admin/webhooks/wh_x/deliveries", "limit=5", {"limit"},
         nullptr},
        {"POST", "/api/admin/webhooks/([^/]+)/deliveries/([^/]+)/replay", "/api/admin/webhooks/wh_x/deliveries/whd_y/replay",
         "", {}, nullptr},
        {"GET", "/api/admin/.*", "/api/admin/anything", "", {}, nullptr},
        {"POST", "/v1/role-requests", "/v1/role-requests", "", {},
         {{"roleType", "verifier"}, {"walletAddress", address}, {"blockchainId", "devnet"}, {"note", "n"}}},
        {"PUT", "/v1/admin/role-requests/([^/]+)/approve", "/v1/admin/role-requests/" + id + "/approve", "", {},
         nullptr},
        {"PUT", "/v1/admin/role-requests/([^/]+)/reject", "/v1/admin/role-requests/" + id + "/reject", "", {}, nullptr},
        {"POST", "/v1/certifiers/certificates", "/v1/certifiers/certificates", "", {},
         {{"title", "t"}, {"description", "d"}, {"recipientAddress", address}, {"blockchainId", "devnet"}}},
        {"GET", "/v1/certifiers/certificates", "/v1/certifiers/certificates", "", {}, nullptr},
        {"GET", "/v1/certifiers/certificates/([^/]+)", "/v1/certifiers/certificates/" + id, "", {}, nullptr},
        {"GET", "/ipfs/([^/]+)", "/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy", "", {}, nullptr,
         true},
        {"GET", "/livez", "/livez", "", {}, nullptr, true},
        {"GET", "/readyz", "/readyz", "", {}, nullptr, true},
        {"GET", "/openapi\\.json", "/openapi.json", "", {}, nullptr, true},
        {"GET", "/openapi\\.yaml", "/openapi.yaml", "", {}, nullptr, true},
        {"GET", "/docs", "/docs", "", {}, nullptr, true},
        {"GET", "/docs/redoc\\.standalone\\.js", "/docs/redoc.standalone.js", "", {}, nullptr, true},
        {"POST", "/abci/contracts/mint-role-token", "/abci/contracts/mint-role-token", "", {},
         {{"userAddress", address}, {"roleType", "verifier"}, {"blockchainId", "devnet"}}},
        {"POST", "/abci/contracts/mint-entity-token", "/abci/contracts/mint-entity-token", "", {},
         {{"userAddress", address},
          {"entityType", "report"},
          {"entityId", "R-1"},
          {"blockchainId", "devnet"},
          {"amount", 1},
          {"metadata", {{"name", "n"}, {"description", "d"}, {"image", "ipfs://x"}, {"external_url", "https://x"}}}}},
        {"GET", "/abci/contracts/token-balance", "/abci/contracts/token-balance",
         "userAddress=" + address + "&tokenId=1000&blockchainId=devnet", {"userAddress", "tokenId", "blockchainId"},
         nullptr},
        {"GET", "/abci/tokens/user-balance", "/abci/tokens/user-balance", "userAddress=" + address + "&blockchainId=devnet",
         {"userAddress", "blockchainId"}, nullptr},
        {"GET", "/abci/blockchains/list", "/abci/blockchains/list", "", {}, nullptr},
        {"GET", "/abci/blockchains/([^/]+)/status", "/abci/blockchains/devnet/status", "", {}, nullptr},
        {"GET", "/abci/tokens/metadata/([^/]+)", "/abci/tokens/metadata/1000", "blockchainId=devnet",
         {"blockchainId", "entityId", "userAddress"}, nullptr},
        {"GET", "/abci/health", "/abci/health", "", {}, nullptr},
        {"GET", "/abci/contracts/mints/([^/]+)", "/abci/contracts/mints/" + id, "", {}, nullptr},
        {"GET", "/abci/contracts/mints", "/abci/contracts/mints", "idempotencyKey=k", {"idempotencyKey"}, nullptr},
    };
    // The rest of /abci, whatever the method: 404 behind the gate.
    for (const char* method : {"GET", "POST", "PUT", "DELETE", "PATCH"})
        routes.push_back({method, "/abci(/.*)?", "/abci/anything", "", {"q"}, {{"a", "b"}}});
    return routes;
}

}  // namespace abci::test
