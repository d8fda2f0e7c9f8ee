#pragma once
// The API's OpenAPI document (docs/openapi.yaml, and its JSON form made at
// build time) and the Redoc bundle that renders it, built into the binary by
// scripts/openapi-assets.mjs (src/CMakeLists.txt).

#include <string_view>

namespace abci::serve::openapi {

struct Asset {
    std::string_view bytes;
    std::string_view sha256;  // hex, of `bytes`
};

[[nodiscard]] Asset yaml();   // docs/openapi.yaml as written
[[nodiscard]] Asset json();   // the same document as JSON
[[nodiscard]] Asset redoc();  // the npm package redoc's bundles/redoc.standalone.js

}  // namespace abci::serve::openapi
