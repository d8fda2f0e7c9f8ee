#include "core/metrics/process.hpp"

namespace abci::metrics {

void add_process_metrics(Registry& registry, const std::string& version, const std::string& revision) {
    registry.gauge("abcictl_build_info", "The running build: always 1, its labels name it.")
        .Add({{"version", version}, {"revision", revision}})
        .Set(1);
}

}  // namespace abci::metrics
