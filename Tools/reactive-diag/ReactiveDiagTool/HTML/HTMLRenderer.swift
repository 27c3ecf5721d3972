import ReactiveDiagnosticsReport

/// Renders a ``ReportView`` as one self-contained HTML page: no external assets, no network
/// (a Content-Security-Policy forbids both and allows only the page's own script, by hash).
///
/// The summary and the charts are rendered here, escaped. The findings travel as the view's
/// JSON inside `<script type="application/json">` (with `<`, `>` and `&` escaped) and the
/// page's script builds them with `textContent` only, so no report string is ever parsed as
/// markup. When it is done the script sets `data-status="ready"` on `<body>` (or
/// `data-status="error"` and `data-error`), plus counts of what it rendered.
///
/// ```swift
/// let html = try HTMLRenderer.document(for: view)
/// try OutputFile.write(html, to: "diagnostics.html", in: context)
/// ```
enum HTMLRenderer {
    /// The whole page.
    static func document(for view: ReportView) throws -> String {
        let script = HTMLScript.source
        let scriptHash = SHA256.base64Digest(of: Array(script.utf8))
        let policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-\(scriptHash)'"
        var page = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="\(policy)">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="\(HTMLText.escape(view.generator))">
            <title>\(HTMLText.escape("ReactiveDiagnostics: \(view.run.processName)"))</title>
            <style>\(HTMLStyle.css)</style>
            </head>
            <body data-status="loading">

            """
        page += header(view)
        page += summary(view)
        page += charts(view)
        page += findingsSection(view)
        page +=
            "<script type=\"application/json\" id=\"report-data\">"
            + HTMLText.scriptJSON(try view.jsonText()) + "</script>\n"
        page += "<script>\(script)</script>\n</body>\n</html>\n"
        return page
    }

    private static func header(_ view: ReportView) -> String {
        let run = view.run
        let failed = run.tests.filter(\.failed).count
        let facts: [(String, String)] = [
            ("inputs", view.inputs.joined(separator: ", ")),
            (
                "run",
                "\(run.completeness), \(Formatting.count(run.processCount, "process", "processes"))"
                    + [run.platform, run.toolchain].filter { !$0.isEmpty }.map { ", \($0)" }.joined()
            ),
            ("time", "\(run.startTime) … \(run.endTime) (\(Formatting.seconds(run.durationSeconds)))"),
            ("tests", "\(run.tests.count)" + (failed > 0 ? " (\(failed) failed by diagnostics)" : "")),
            ("generator", view.generator),
        ]
        var html =
            "<header><h1>ReactiveDiagnostics report: <span class=\"process\">\(HTMLText.escape(run.processName))</span></h1><dl>"
        for (name, value) in facts {
            html += "<dt>\(name)</dt><dd>\(HTMLText.escape(value))</dd>"
        }
        if run.droppedFindings > 0 {
            html +=
                "<dt>dropped</dt><dd class=\"warning\">\(Formatting.count(run.droppedFindings, "finding")) not kept: "
                + "the engine's limit was reached</dd>"
        }
        return html + "</dl></header>\n"
    }

    private static func summary(_ view: ReportView) -> String {
        let totals = view.summary.findings
        var html = "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">"
        html +=
            card("errors", totals.shown.error, "error") + card("warnings", totals.shown.warning, "warning")
            + card("info", totals.shown.info, "info") + card("fingerprints", totals.groups, "")
            + card("suppressed", totals.suppressed, "muted") + card("live at end", view.summary.live.total, "")
        html += "</div>"
        html += table(
            caption: "Findings by kind", headings: ["kind", "error", "warning", "info", "total"],
            rows: totals.byKind.map {
                [$0.kind, "\($0.counts.error)", "\($0.counts.warning)", "\($0.counts.info)", "\($0.counts.total)"]
            })
        html += table(
            caption: "Live resources at end by kind", headings: ["kind", "live", "peak", "registered"],
            rows: view.summary.live.byKind.map { [$0.kind, "\($0.live)", "\($0.peak)", "\($0.registered)"] })
        html += table(
            caption: "Live allocation sites", headings: ["count", "kind", "label", "where", "tests"],
            rows: view.summary.live.sites.prefix(50).map {
                ["\($0.count)", $0.kind, $0.label, $0.location ?? "", Formatting.list($0.tests, limit: 3)]
            })
        html += table(
            caption: "Schedulers",
            headings: [
                "label", "expects", "scheduled", "executed", "cancelled", "pending", "repeating", "latency",
                "long actions", "thread violations",
            ],
            rows: view.summary.schedulers.map {
                [
                    $0.label, $0.expectation ?? "", "\($0.scheduled)", "\($0.executed)", "\($0.cancelled)",
                    "\($0.pending)",
                    "\($0.activeRepeating)", TextRenderer.distribution($0.latency), "\($0.longActions)",
                    "\($0.threadViolations)",
                ]
            })
        html += table(
            caption: "Tests", headings: ["test", "findings", "failed"],
            rows: view.run.tests.map { [$0.name, "\($0.findings)", $0.failed ? "yes" : "no"] })
        return html + "</section>\n"
    }

    private static func charts(_ view: ReportView) -> String {
        let live = view.summary.live
        var figures: [String] = []
        let kindBars = live.byKind.filter { $0.live > 0 }.map {
            HTMLCharts.Bar(
                label: $0.kind, value: $0.live,
                tooltip: "\($0.kind): \($0.live) alive (peak \($0.peak), registered \($0.registered))")
        }
        if let svg = HTMLCharts.bars(kindBars, title: "Live resources at end by kind", id: "chart-live-kinds") {
            figures.append(figure(svg, caption: "Live resources at end, by kind"))
        }
        let siteBars = live.sites.prefix(12).map { site in
            HTMLCharts.Bar(
                label: "\(site.kind) \(Formatting.quoted(site.label))", value: site.count,
                tooltip: "\(site.count) × \(site.kind) \(Formatting.quoted(site.label))"
                    + (site.location.map { " at \($0)" } ?? ""))
        }
        if let svg = HTMLCharts.bars(
            Array(siteBars), title: "Live resources at end by allocation site", id: "chart-live-sites")
        {
            figures.append(figure(svg, caption: "Live resources at end, by allocation site"))
        }
        for (position, scheduler) in view.summary.schedulers.enumerated() {
            let title = "Latency of scheduler \(Formatting.quoted(scheduler.label))"
            if let svg = HTMLCharts.histogram(scheduler.latency, title: title, id: "chart-latency-\(position)") {
                figures.append(figure(svg, caption: title + ": " + TextRenderer.distribution(scheduler.latency)))
            }
        }
        guard !figures.isEmpty else { return "" }
        return "<section id=\"charts\"><h2>Pictures</h2>" + figures.joined() + "</section>\n"
    }

    private static func findingsSection(_ view: ReportView) -> String {
        """
        <section id="findings"><h2>Findings by fingerprint</h2>
        <form id="filters" class="filters" autocomplete="off">
        <label>kind <select id="filter-kind"><option value="">all</option></select></label>
        <label>severity <select id="filter-severity"><option value="">all</option><option value="error">error</option>\
        <option value="warning">warning and worse</option><option value="info">info and worse</option></select></label>
        <label>test <select id="filter-test"><option value="">all</option></select></label>
        <label>label <input id="filter-label" type="search" placeholder="contains"></label>
        <label>text <input id="filter-text" type="search" placeholder="search message, stacks, fingerprint"></label>
        <button type="button" id="expand-all">expand all</button><button type="button" id="collapse-all">collapse all</button>
        </form>
        <p id="findings-count" class="muted">\(view.groups.count) fingerprints (the list needs JavaScript)</p>
        <div id="findings-list"></div>
        <button type="button" id="show-more" hidden>show more</button>
        </section>

        """
    }

    private static func card(_ title: String, _ value: Int, _ className: String) -> String {
        "<div class=\"card \(className)\"><span class=\"value\">\(value)</span><span class=\"name\">\(HTMLText.escape(title))</span></div>"
    }

    private static func figure(_ svg: String, caption: String) -> String {
        "<figure>\(svg)<figcaption>\(HTMLText.escape(caption))</figcaption></figure>"
    }

    private static func table(caption: String, headings: [String], rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "" }
        // Columns of numbers are right-aligned and never wrapped.
        let numeric = headings.indices.map { column in
            rows.allSatisfy { column < $0.count && !$0[column].isEmpty && $0[column].allSatisfy(\.isNumber) }
        }
        func cell(_ tag: String, _ text: String, _ column: Int) -> String {
            "<\(tag)\(numeric[column] ? " class=\"n\"" : "")>\(HTMLText.escape(text))</\(tag)>"
        }
        var html = "<table><caption>\(HTMLText.escape(caption))</caption><thead><tr>"
        html += headings.enumerated().map { cell("th", $1, $0) }.joined() + "</tr></thead><tbody>"
        for row in rows {
            html += "<tr>" + row.enumerated().map { cell("td", $1, min($0, headings.count - 1)) }.joined() + "</tr>"
        }
        return html + "</tbody></table>"
    }
}
