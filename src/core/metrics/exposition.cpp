#include "core/metrics/exposition.hpp"

#include <array>
#include <cmath>

#include <fmt/format.h>
#include <prometheus/text_serializer.h>

namespace abci::metrics {

namespace {

constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kOpenMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// OpenMetrics' number: NaN and the infinities spelled its way, others as short as they read back exactly.
std::string number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    return fmt::format("{}", value);
}

/// A label value or help text escaped as OpenMetrics has it (\\, \" and \n; help text has no quotes to escape).
std::string escaped(std::string_view text, bool quotes) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '"' && quotes) out += "\\\"";
        else out += c;
    }
    return out;
}

void write_sample(std::string& out, std::string_view name, const std::vector<prometheus::ClientMetric::Label>& labels,
                  double value, const prometheus::ClientMetric::Label* extra = nullptr) {
    out += name;
    if (!labels.empty() || extra) {
        out += '{';
        bool first = true;
        const auto write = [&](const prometheus::ClientMetric::Label& label) {
            out += first ? "" : ",";
            first = false;
            out += label.name + "=\"" + escaped(label.value, true) + "\"";
        };
        for (const auto& label : labels) write(label);
        if (extra) write(*extra);
        out += '}';
    }
    out += ' ' + number(value) + '\n';
}

/// The base unit a name ends with (docs/metrics.md names every family in base units), or "".
std::string_view unit_of(std::string_view name) {
    constexpr std::array<std::string_view, 4> kUnits{"seconds", "bytes", "ratio", "ether"};
    for (const auto unit : kUnits)
        if (name.size() > unit.size() + 1 && name.ends_with(unit) && name[name.size() - unit.size() - 1] == '_')
            return unit;
    return {};
}

}  // namespace

std::string openmetrics_text(const std::vector<prometheus::MetricFamily>& families) {
    std::string out;
    for (const auto& family : families) {
        std::string_view name = family.name;
        std::string_view type = "unknown";
        switch (family.type) {
        case prometheus::MetricType::Counter:
            type = "counter";
            if (name.ends_with("_total")) name.remove_suffix(6);
            break;
        case prometheus::MetricType::Gauge: type = "gauge"; break;
        case prometheus::MetricType::Histogram: type = "histogram"; break;
        case prometheus::MetricType::Summary: type = "summary"; break;
        case prometheus::MetricType::Untyped: break;
        }
        const std::string base(name);
        out += "# TYPE " + base + " " + std::string(type) + "\n";
        if (const auto unit = unit_of(base); !unit.empty()) out += "# UNIT " + base + " " + std::string(unit) + "\n";
        if (!family.help.empty()) out += "# HELP " + base + " " + escaped(family.help, false) + "\n";
        for (const auto& metric : family.metric) {
            switch (family.type) {
            case prometheus::MetricType::Counter: write_sample(out, base + "_total", metric.label, metric.counter.value); break;
            case prometheus::MetricType::Gauge: write_sample(out, base, metric.label, metric.gauge.value); break;
            case prometheus::MetricType::Untyped: write_sample(out, base, metric.label, metric.untyped.value); break;
            case prometheus::MetricType::Histogram:
                for (const auto& bucket : metric.histogram.bucket) {
                    const prometheus::ClientMetric::Label le{"le", number(bucket.upper_bound)};
                    write_sample(out, base + "_bucket", metric.label, static_cast<double>(bucket.cumulative_count), &le);
                }
                write_sample(out, base + "_count", metric.label, static_cast<double>(metric.histogram.sample_count));
                write_sample(out, base + "_sum", metric.label, metric.histogram.sample_sum);
                break;
            case prometheus::MetricType::Summary:
                for (const auto& quantile : metric.summary.quantile) {
                    const prometheus::ClientMetric::Label q{"quantile", number(quantile.quantile)};
                    write_sample(out, base, metric.label, quantile.value, &q);
                }
                write_sample(out, base + "_count", metric.label, static_cast<double>(metric.summary.sample_count));
                write_sample(out, base + "_sum", metric.label, metric.summary.sample_sum);
                break;
            }
        }
    }
    return out + "# EOF\n";
}

Exposition expose(const std::vector<prometheus::MetricFamily>& families, std::string_view accept) {
    if (accept.find("application/openmetrics-text") != std::string_view::npos)
        return {std::string(kOpenMetricsContentType), openmetrics_text(families)};
    return {std::string(kTextContentType), prometheus::TextSerializer().Serialize(families)};
}

}  // namespace abci::metrics
