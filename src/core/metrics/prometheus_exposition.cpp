// libabcictl-prometheus.so: a scrape's families written out by prometheus-cpp
// (core/metrics/exposition.hpp), the one piece of abcictl that links it. The
// families are ours (core/metrics/registry.hpp); they become prometheus-cpp's
// at each scrape, a few hundred series, which costs nothing a recording pays.

#include <array>
#include <cmath>

#include <fmt/format.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include "core/metrics/exposition.hpp"

namespace abci::metrics {

namespace {

constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr std::string_view kOpenMetricsContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8";

std::vector<prometheus::MetricFamily> prometheus_families(const std::vector<MetricFamily>& families) {
    std::vector<prometheus::MetricFamily> out;
    out.reserve(families.size());
    for (const auto& family : families) {
        auto& to = out.emplace_back();
        to.name = family.name;
        to.help = family.help;
        to.type = family.type == MetricType::counter ? prometheus::MetricType::Counter
                  : family.type == MetricType::gauge ? prometheus::MetricType::Gauge
                                                     : prometheus::MetricType::Histogram;
        for (const auto& sample : family.samples) {
            auto& metric = to.metric.emplace_back();
            for (const auto& [name, value] : sample.labels) metric.label.push_back({name, value});
            switch (family.type) {
            case MetricType::counter: metric.counter.value = sample.value; break;
            case MetricType::gauge: metric.gauge.value = sample.value; break;
            case MetricType::histogram:
                metric.histogram.sample_count = sample.histogram.count;
                metric.histogram.sample_sum = sample.histogram.sum;
                for (const auto& bucket : sample.histogram.buckets)
                    metric.histogram.bucket.push_back({bucket.cumulative_count, bucket.upper_bound});
                break;
            }
        }
    }
    return out;
}

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

/// `families` in OpenMetrics 1.0: counters' families named without their _total suffix (their samples keep it),
/// # UNIT for names ending in a base unit, unknown for untyped, and the closing # EOF.
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

}  // namespace

}  // namespace abci::metrics

extern "C" __attribute__((visibility("default"))) void abcictl_metrics_expose(
    const std::vector<abci::metrics::MetricFamily>& families, std::string_view accept, abci::metrics::Exposition& out) {
    using namespace abci::metrics;
    const auto converted = prometheus_families(families);
    if (accept.find("application/openmetrics-text") != std::string_view::npos)
        out = {std::string(kOpenMetricsContentType), openmetrics_text(converted)};
    else
        out = {std::string(kTextContentType), prometheus::TextSerializer().Serialize(converted)};
}
