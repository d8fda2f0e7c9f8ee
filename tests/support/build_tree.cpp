// What differs between build trees, compiled apart from the rest of
// the test code (tests/CMakeLists.txt) so that all else is the same object in
// the release and the sanitizer tree.

#include "support/tools.hpp"

namespace abci::test {

std::string abcictl_binary() { return ABCICTL_BINARY; }

std::string test_cache_dir() { return ABCI_TEST_CACHE_DIR; }

bool sanitized_build() { return ABCI_SANITIZED_TREE != 0; }

}  // namespace abci::test
