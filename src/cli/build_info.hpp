#pragma once
// What the build knows of itself beyond ABCI_VERSION (cmake/build_info.cmake).

namespace abci::cli {

/// The short git commit the binary was built from, or "unknown".
extern const char* const kBuildCommit;

}  // namespace abci::cli
