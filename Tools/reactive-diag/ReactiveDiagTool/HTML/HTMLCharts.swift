import Foundation
import ReactiveDiagnosticsReport

/// Inline SVG charts: horizontal bars (live resources by kind and by site) and the
/// latency histogram of a scheduler. Every text is escaped; full labels are in `<title>`s.
enum HTMLCharts {
    /// One bar.
    struct Bar {
        /// The label left of the bar.
        var label: String
        /// The value (bar length).
        var value: Int
        /// The tooltip.
        var tooltip: String
    }

    /// A horizontal bar chart, or `nil` when there is nothing to draw.
    static func bars(_ bars: [Bar], title: String, id: String) -> String? {
        guard !bars.isEmpty, let maximum = bars.map(\.value).max(), maximum > 0 else { return nil }
        let labelWidth = 260
        let barWidth = 360
        let rowHeight = 24
        let height = bars.count * rowHeight + 8
        var svg =
            "<svg class=\"chart\" id=\"\(id)\" role=\"img\" viewBox=\"0 0 \(labelWidth + barWidth + 60) \(height)\" "
            + "width=\"\(labelWidth + barWidth + 60)\" height=\"\(height)\" aria-label=\"\(HTMLText.escape(title))\">"
            + "<title>\(HTMLText.escape(title))</title>"
        for (row, bar) in bars.enumerated() {
            let y = row * rowHeight + 4
            let width = max(1, Int((Double(bar.value) / Double(maximum) * Double(barWidth)).rounded()))
            svg +=
                "<g class=\"bar\"><title>\(HTMLText.escape(bar.tooltip))</title>"
                + "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" text-anchor=\"end\">\(HTMLText.escape(truncated(bar.label, 38)))</text>"
                + "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(width)\" height=\"\(rowHeight - 8)\" rx=\"2\"></rect>"
                + "<text class=\"value\" x=\"\(labelWidth + width + 6)\" y=\"\(y + 16)\">\(bar.value)</text></g>"
        }
        return svg + "</svg>"
    }

    /// A latency histogram of `summary`'s buckets on a logarithmic time axis, with p50, p90
    /// and p99 markers, or `nil` without samples.
    static func histogram(_ summary: LatencySummary, title: String, id: String) -> String? {
        let buckets = summary.buckets.filter { $0.count > 0 }
        guard let first = buckets.first, let last = buckets.last, let maximum = buckets.map(\.count).max() else {
            return nil
        }
        let axis = LogAxis(
            lower: max(1, first.lowerNanos),
            upper: max(last.upperNanos == UInt64.max ? last.lowerNanos * 2 : last.upperNanos, 2),
            left: 48, width: 600)
        let plotTop = 40
        let plotHeight = 120
        let baseline = plotTop + plotHeight
        let width = axis.left + axis.width + 20
        let height = baseline + 44
        var svg =
            "<svg class=\"chart histogram\" id=\"\(id)\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" "
            + "width=\"\(width)\" height=\"\(height)\" aria-label=\"\(HTMLText.escape(title))\">"
            + "<title>\(HTMLText.escape(title))</title>"
            + "<text class=\"axis\" x=\"\(axis.left - 6)\" y=\"\(plotTop + 10)\" text-anchor=\"end\">\(maximum)</text>"
            + "<text class=\"axis\" x=\"\(axis.left - 6)\" y=\"\(baseline)\" text-anchor=\"end\">0</text>"
            + "<line class=\"axis\" x1=\"\(axis.left)\" y1=\"\(baseline)\" x2=\"\(axis.left + axis.width)\" y2=\"\(baseline)\"></line>"
        for bucket in buckets {
            let upper = bucket.upperNanos == UInt64.max ? bucket.lowerNanos * 2 : bucket.upperNanos
            let x = axis.position(max(1, bucket.lowerNanos))
            let barWidth = max(1, axis.position(upper) - x - 1)
            let barHeight = max(1, Int((Double(bucket.count) / Double(maximum) * Double(plotHeight)).rounded()))
            let range =
                "\(Formatting.duration(nanoseconds: bucket.lowerNanos)) – \(Formatting.duration(nanoseconds: upper))"
            svg +=
                "<g class=\"bucket\"><title>\(HTMLText.escape(range)): \(Formatting.count(bucket.count, "sample"))</title>"
                + "<rect x=\"\(x)\" y=\"\(baseline - barHeight)\" width=\"\(barWidth)\" height=\"\(barHeight)\"></rect></g>"
        }
        for tick in axis.ticks() {
            let x = axis.position(tick)
            svg +=
                "<line class=\"axis\" x1=\"\(x)\" y1=\"\(baseline)\" x2=\"\(x)\" y2=\"\(baseline + 4)\"></line>"
                + "<text class=\"axis\" x=\"\(x)\" y=\"\(baseline + 16)\" text-anchor=\"middle\">"
                + "\(HTMLText.escape(Formatting.duration(nanoseconds: tick)))</text>"
        }
        for (row, (name, value)) in [("p50", summary.p50Nanos), ("p90", summary.p90Nanos), ("p99", summary.p99Nanos)]
            .enumerated()
        {
            let x = axis.position(max(1, value))
            svg +=
                "<g class=\"marker\"><title>\(name) \(HTMLText.escape(Formatting.duration(nanoseconds: value)))</title>"
                + "<line x1=\"\(x)\" y1=\"\(8 + row * 11)\" x2=\"\(x)\" y2=\"\(baseline)\"></line>"
                + "<text x=\"\(x + 3)\" y=\"\(16 + row * 11)\">\(name)</text></g>"
        }
        svg +=
            "<text class=\"axis\" x=\"\(axis.left)\" y=\"\(baseline + 36)\">enqueue-to-run latency (log scale), "
            + "\(Formatting.count(summary.count, "sample"))</text>"
        return svg + "</svg>"
    }

    /// A logarithmic axis from `lower` to `upper` nanoseconds over `width` pixels.
    struct LogAxis {
        let lower: UInt64
        let upper: UInt64
        let left: Int
        let width: Int

        /// The x coordinate of `value`, clamped to the axis.
        func position(_ value: UInt64) -> Int {
            let low = log10(Double(lower))
            let span = max(log10(Double(upper)) - low, 1e-9)
            let fraction = min(max((log10(Double(max(value, 1))) - low) / span, 0), 1)
            return left + Int((fraction * Double(width)).rounded())
        }

        /// Powers of ten within the axis (1 µs, 10 µs, …), at least the two ends.
        func ticks() -> [UInt64] {
            var ticks: [UInt64] = []
            var tick: UInt64 = 1
            while tick <= upper {
                if tick >= lower { ticks.append(tick) }
                let (next, overflow) = tick.multipliedReportingOverflow(by: 10)
                if overflow { break }
                tick = next
            }
            return ticks.count >= 2 ? ticks : [lower, upper]
        }
    }

    /// `text` cut to `limit` characters with an ellipsis.
    static func truncated(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
