#pragma once
// A scrape's body in the format the scraper asks for: Prometheus' text format
// 0.0.4 (prometheus-cpp's TextSerializer) by default, OpenMetrics 1.0 when
// its Accept header names application/openmetrics-text. prometheus-cpp 1.0.1
// writes only the former (docs/decisions.md, "OpenMetrics by hand").
//
// Both are written by libabcictl-prometheus.so (core/metrics/prometheus_exposition.cpp),
// the one piece of abcictl that links prometheus-cpp: loaded by the metrics
// listener alone, so that no command but `serve` with metrics on maps it
// (issue 32 item 6, docs/decisions.md).

#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/registry.hpp"

namespace abci::metrics {

struct Exposition {
    std::string content_type;
    std::string body;
};

/// What the library exports, under the name kExposeSymbol: `families` in OpenMetrics 1.0 when `accept` (a
/// request's Accept header) asks for it, else in the text format 0.0.4, written into `out`.
using ExposeFunction = void (*)(const std::vector<MetricFamily>& families, std::string_view accept, Exposition& out);
inline constexpr const char* kExposeSymbol = "abcictl_metrics_expose";

/// The exposition library, loaded while this lives.
class Exposer {
public:
    /// Loads the library at `path`. Error(unavailable) naming the path and what the loader said when it cannot.
    explicit Exposer(const std::string& path = default_path());
    ~Exposer();
    Exposer(const Exposer&) = delete;
    Exposer& operator=(const Exposer&) = delete;

    [[nodiscard]] Exposition expose(const std::vector<MetricFamily>& families, std::string_view accept) const;

    /// Where the build and the package put it: lib/abcictl/ beside the directory of the running binary
    /// (<build>/src/abcictl and <build>/lib/abcictl/; /usr/bin/abcictl and /usr/lib/abcictl/).
    [[nodiscard]] static std::string default_path();

private:
    void* handle_;
    ExposeFunction expose_;
};

}  // namespace abci::metrics
