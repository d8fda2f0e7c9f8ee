#pragma once
// A scrape's body in the format the scraper asks for: Prometheus' text format
// 0.0.4 (prometheus-cpp's TextSerializer) by default, OpenMetrics 1.0 when
// its Accept header names application/openmetrics-text. prometheus-cpp 1.0.1
// writes only the former (docs/decisions.md, "OpenMetrics by hand").

#include <string>
#include <string_view>
#include <vector>

#include <prometheus/metric_family.h>

namespace abci::metrics {

struct Exposition {
    std::string content_type;
    std::string body;
};

/// `families` in OpenMetrics 1.0 when `accept` (a request's Accept header) asks for it, else in the text format 0.0.4.
[[nodiscard]] Exposition expose(const std::vector<prometheus::MetricFamily>& families, std::string_view accept);

/// `families` in OpenMetrics 1.0: counters' families named without their _total suffix (their samples keep it),
/// # UNIT for names ending in a base unit, unknown for untyped, and the closing # EOF.
[[nodiscard]] std::string openmetrics_text(const std::vector<prometheus::MetricFamily>& families);

}  // namespace abci::metrics
