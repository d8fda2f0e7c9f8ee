#pragma once
// The families every Prometheus client exports about its process: which
// build it runs (abcictl_build_info) and, read from /proc at each scrape,
// its start, CPU, memory and descriptors (process_*, as client_golang's
// process collector names them: prometheus-cpp 1.0.1 has none).

#include <string>

#include "core/metrics/registry.hpp"

namespace abci::metrics {

/// Declares abcictl_build_info{version, revision} = 1 and the process_* families in `registry`.
void add_process_metrics(Registry& registry, const std::string& version, const std::string& revision);

}  // namespace abci::metrics
