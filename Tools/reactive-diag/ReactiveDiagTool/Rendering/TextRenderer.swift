import ReactiveDiagnosticsReport

/// Renders a ``ReportView`` as the terminal view of `show`: the summary, then the findings
/// grouped by fingerprint with their folded stacks.
///
/// Writes line by line into a buffered sink: linear in the size of the view.
///
/// ```swift
/// let out = StringSink()
/// TextRenderer(style: TerminalStyle(enabled: false), sink: out).render(view)
/// print(out.text)
/// ```
struct TextRenderer {
    /// Colours, or none.
    let style: TerminalStyle
    /// Where the text goes.
    let sink: any OutputSink
    /// How many live sites the summary lists.
    var topSites = 10
    /// Folded stacks, each rendered once.
    let stackLines: StackText.Cache

    /// Creates a renderer.
    init(style: TerminalStyle, sink: any OutputSink) {
        self.style = style
        self.sink = sink
        stackLines = StackText.Cache(style: style)
    }

    /// Writes the whole view.
    func render(_ view: ReportView) {
        renderHeader(view)
        renderFindingTotals(view.summary.findings, filter: view.filter)
        renderLive(view)
        renderSchedulers(view.summary.schedulers)
        renderGroups(view)
    }

    func line(_ text: String = "") {
        sink.write(text)
        sink.write("\n")
    }

    private func renderHeader(_ view: ReportView) {
        let run = view.run
        line(style.bold("ReactiveDiagnostics report: \(run.processName)"))
        line("  inputs    " + Formatting.list(view.inputs, limit: 5))
        line(
            "  run       \(run.completeness) · \(Formatting.count(run.processCount, "process", "processes"))"
                + [run.platform, run.toolchain].filter { !$0.isEmpty }.map { " · \($0)" }.joined())
        line("  time      \(run.startTime) … \(run.endTime) (\(Formatting.seconds(run.durationSeconds)))")
        let failed = run.tests.filter(\.failed).count
        line("  tests     \(run.tests.count)" + (failed > 0 ? " (\(failed) failed by diagnostics)" : ""))
        if run.droppedFindings > 0 {
            line(
                "  "
                    + style.severity(
                        .warning,
                        "dropped   \(Formatting.count(run.droppedFindings, "finding")) "
                            + "not kept: the engine's limit was reached"))
        }
        if let text = Self.sourceLineNote(run.sourceLines) {
            line("  " + style.severity(.warning, "lines     " + text))
        }
        line()
    }

    private func renderFindingTotals(_ totals: FindingTotals, filter: FilterView) {
        let shown = totals.shown
        var parts: [String] = []
        if shown.error > 0 { parts.append(style.severity(.error, Formatting.count(shown.error, "error"))) }
        if shown.warning > 0 { parts.append(style.severity(.warning, Formatting.count(shown.warning, "warning"))) }
        if shown.info > 0 { parts.append(style.severity(.info, "\(shown.info) info")) }
        var heading = "Findings: \(shown.total)"
        if !parts.isEmpty {
            heading += " (\(parts.joined(separator: ", "))) in \(Formatting.count(totals.groups, "group"))"
        }
        var notes: [String] = []
        if totals.filteredOut > 0 { notes.append("\(totals.filteredOut) filtered out") }
        if totals.suppressed > 0 {
            notes.append(
                filter.includeSuppressed
                    ? "\(totals.suppressed) suppressed shown"
                    : "\(totals.suppressed) suppressed not shown (--include-suppressed)")
        }
        line(style.bold(heading) + (notes.isEmpty ? "" : " · " + notes.joined(separator: " · ")))
        if !totals.byKind.isEmpty {
            var table = TextTable(headings: ["KIND", "ERROR", "WARNING", "INFO", "TOTAL"])
            for entry in totals.byKind {
                let counts = entry.counts
                table.rows.append([
                    entry.kind, "\(counts.error)", "\(counts.warning)", "\(counts.info)", "\(counts.total)",
                ])
            }
            table.lines(indent: "  ").forEach { line($0) }
        }
        line()
    }

    private func renderLive(_ view: ReportView) {
        let live = view.summary.live
        line(
            style.bold("Live at end: \(Formatting.count(live.total, "resource"))")
                + " (\(live.registered) registered)")
        if !live.byKind.isEmpty {
            var table = TextTable(headings: ["KIND", "LIVE", "PEAK", "REGISTERED"])
            for kind in live.byKind {
                table.rows.append([kind.kind, "\(kind.live)", "\(kind.peak)", "\(kind.registered)"])
            }
            table.lines(indent: "  ").forEach { line($0) }
        }
        if !live.sites.isEmpty {
            line("  Top sites:")
            for site in live.sites.prefix(topSites) {
                var text = "    \(site.count) × \(site.kind) \(Formatting.quoted(site.label))"
                if let location = site.location { text += " — " + style.location(location) }
                if !site.tests.isEmpty { text += style.dim(" — tests: " + Formatting.list(site.tests, limit: 3)) }
                line(text)
            }
            if live.sites.count > topSites {
                line(style.dim("    … \(Formatting.count(live.sites.count - topSites, "more site"))"))
            }
        }
        line()
    }

    private func renderSchedulers(_ schedulers: [SchedulerSummary]) {
        guard !schedulers.isEmpty else { return }
        line(style.bold("Schedulers: \(schedulers.count)"))
        for scheduler in schedulers {
            let expectation = scheduler.expectation.map { " (expects \($0))" } ?? ""
            line("  \(Formatting.quoted(scheduler.label))\(expectation)")
            line(
                "    scheduled \(scheduler.scheduled) · executed \(scheduler.executed) · cancelled \(scheduler.cancelled)"
                    + " · pending \(scheduler.pending) · repeating \(scheduler.activeRepeating)")
            line("    latency   " + Self.distribution(scheduler.latency))
            line("    duration  " + Self.distribution(scheduler.duration))
            let problems = "long actions \(scheduler.longActions) · thread violations \(scheduler.threadViolations)"
            line(
                "    "
                    + (scheduler.longActions + scheduler.threadViolations > 0
                        ? style.severity(.warning, problems) : problems))
            if !scheduler.threads.isEmpty {
                let threads = scheduler.threads.map { "\($0.thread) \($0.count)" }
                line(style.dim("    threads   " + Formatting.list(threads, limit: 6)))
            }
        }
        line()
    }

    /// What to say about a report's missing source lines, or `nil` when they are all there (or
    /// the report does not say).
    static func sourceLineNote(_ status: SourceLineStatus?) -> String? {
        guard let status, status.state != .resolved else { return nil }
        let reason = status.reason ?? "the report does not say why"
        let what =
            status.state == .missing
            ? "file:line missing: \(reason)"
            : "file:line for \(status.resolvedUserFrames) of \(Formatting.count(status.userFrames, "user frame")): \(reason)"
        return what + " (reactive-diag symbolize can fill them in)"
    }

    /// `p50 1.2 µs · p90 8.3 µs · p99 1.1 ms · max 2 ms (118 samples)`.
    static func distribution(_ summary: LatencySummary) -> String {
        guard summary.count > 0 else { return "no samples" }
        return "p50 \(Formatting.duration(nanoseconds: summary.p50Nanos))"
            + " · p90 \(Formatting.duration(nanoseconds: summary.p90Nanos))"
            + " · p99 \(Formatting.duration(nanoseconds: summary.p99Nanos))"
            + " · max \(Formatting.duration(nanoseconds: summary.maxNanos))"
            + " (\(Formatting.count(summary.count, "sample")))"
    }
}
