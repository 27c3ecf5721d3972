import Foundation
import ReactiveDiagTool
import Testing

/// A leaked subscription's retain path, in every output of the tool.
@Suite("retain paths in show and html")
struct RetainPathViewTests {
    static let lines = [
        "retained by a cycle:",
        "  CartViewModel",
        "    .cancellables: Set<AnyCancellable>",
        "  → AnyCancellable → Sink<Int, Never> (this subscription)",
        "    .receiveValue: closure at CartViewModel.swift:42 captures `self` strongly",
        "  → CartViewModel (the same object)",
    ]

    @Test("show prints why the subscription is alive under its finding")
    func text() {
        let run = runTool(["show", "cycle-report.json", "--color", "never"])
        #expect(run.code == 0)
        let text = run.stdout
        #expect(text.contains("why alive   retained by a cycle:"), "\(text)")
        for line in Self.lines.dropFirst() {
            #expect(text.contains("            " + line), "missing \(line) in:\n\(text)")
        }
        #expect(text.contains("fix: capture [weak self] in the closure at CartViewModel.swift:42"))
    }

    @Test("the JSON view carries the rendered lines and the verdict")
    func json() throws {
        let run = runTool(["show", "cycle-report.json", "--format", "json"])
        let view = try JSONDecoder().decode(ReportView.self, from: Data(run.stdout.utf8))
        let leak = try #require(view.groups.first { $0.kind == "leakedSubscription" })
        #expect(leak.retainPath?.verdict == "cycle")
        #expect(Array(leak.retainPath?.lines.prefix(Self.lines.count) ?? []) == Self.lines)
        #expect(leak.retainPath?.summary.hasPrefix("retain cycle: CartViewModel.cancellables") == true)
        #expect(view.groups.filter { $0.kind != "leakedSubscription" }.allSatisfy { $0.retainPath == nil })
    }
}

extension HTMLChromiumTests {
    @Test("a leaked subscription's retain path is on the page")
    func retainPath() async throws {
        try await withTemporaryDirectory { directory in
            let run = runTool(["html", Fixtures.url("cycle-report.json").path, "-o", "page.html"], in: directory.path)
            #expect(run.code == 0)
            guard let page = try await Chromium.load(directory.appendingPathComponent("page.html").absoluteString)
            else { return }
            #expect(
                page.bodyAttribute("data-status") == "ready", "error: \(page.bodyAttribute("data-error") ?? "none")")
            #expect(
                page.dom.contains(
                    "<div class=\"retain-path verdict-cycle\"><h4>why it is still alive</h4><div class=\"retain-graph\">"
                ),
                "\(page.dom)")
            #expect(page.dom.contains("<pre>retained by a cycle:"))
            // The drawing: owner, property, cancellable, subscription, closure, and the edge the fix cuts.
            for box in [
                "<span class=\"node role-owner\">CartViewModel</span>",
                "<span class=\"node role-property\">.cancellables: Set&lt;AnyCancellable&gt;</span>",
                "<span class=\"node role-cancellable\">AnyCancellable</span>",
                "<span class=\"node role-closure\">closure at CartViewModel.swift:42</span>",
                "<span class=\"edge cut back\"><span class=\"edge-label\">✂ captures `self` strongly</span>"
                    + "<span class=\"edge-arrow\">↩ back to CartViewModel</span></span>",
            ] {
                #expect(page.dom.contains(box), "\(box)")
            }
            #expect(page.dom.contains(".receiveValue: closure at CartViewModel.swift:42 captures `self` strongly"))
        }
    }
}
