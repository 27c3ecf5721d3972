import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

@Suite("html")
struct HTMLCommandTests {
    private func page(_ report: String, _ extra: [String] = [], in directory: URL) throws -> String {
        let run = runTool(["html", Fixtures.url(report).path, "-o", "page.html"] + extra, in: directory.path)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        return try readText(directory.appendingPathComponent("page.html"))
    }

    @Test("one self-contained file: no external assets, no network, a CSP that forbids both")
    func selfContained() throws {
        try withTemporaryDirectory { directory in
            let html = try page("shop-report.json", in: directory)
            #expect(html.hasPrefix("<!DOCTYPE html>"))
            for external in ["<link", " src=", "http://", "https://", "url(", "@import", "<iframe", "<img"] {
                #expect(!html.contains(external), "no \(external)")
            }
            #expect(html.contains("default-src 'none'"))
            // The CSP allows exactly the page's script, by its SHA-256.
            let script = try #require(
                html.range(of: "<script>").flatMap { start in
                    html.range(of: "</script>", range: start.upperBound..<html.endIndex).map {
                        html[start.upperBound..<$0.lowerBound]
                    }
                })
            #expect(html.contains("script-src 'sha256-\(SHA256.base64Digest(of: Array(script.utf8)))'"))
            #expect(html.components(separatedBy: "<script").count == 3, "the data block and the script, nothing else")
        }
    }

    @Test("charts are inline SVG: live resources by kind and site, a latency histogram per scheduler")
    func charts() throws {
        try withTemporaryDirectory { directory in
            let html = try page("shop-report.json", in: directory)
            for id in ["chart-live-kinds", "chart-live-sites", "chart-latency-0", "chart-latency-1"] {
                #expect(html.contains("<svg class=\"chart") && html.contains("id=\"\(id)\""), "\(id)")
            }
            let histogram = try #require(html.range(of: "id=\"chart-latency-1\"").map { html[$0.lowerBound...] })
            let main = histogram[..<(histogram.range(of: "</svg>")?.lowerBound ?? histogram.endIndex)]
            let report = try ReportFixtures.load("shop-report.json")
            let buckets = try #require(report.schedulers.first { $0.label == "main-ui" }).latency.buckets
            #expect(
                main.components(separatedBy: "<g class=\"bucket\">").count - 1 == buckets.count, "one bar per bucket")
            #expect(main.contains(">p50</text>") && main.contains(">p99</text>"))
        }
    }

    @Test("every report string is escaped in the markup and in the embedded JSON")
    func escaping() throws {
        try withTemporaryDirectory { directory in
            let html = try page("hostile-report.json", in: directory)
            for payload in [
                "<script>document", "<img src", "<svg onload", "<iframe", "</script><script>", "<b>wrongThread",
            ] {
                #expect(!html.contains(payload), "\(payload) appears only escaped")
            }
            #expect(
                html.contains(
                    "&lt;script&gt;document.documentElement.setAttribute(&#39;data-pwned&#39;,&#39;script&#39;)"))
            #expect(html.contains("\\u003cscript\\u003edocument.documentElement"), "JSON in the data block is escaped")
            #expect(
                html.contains("Shop.Repository\\u003cShop.Item\\u003cA\\u003e\\u003e"),
                "symbols' angle brackets escaped in JSON")
            #expect(!html.contains("\u{2028}"), "U+2028 escaped in the data block")
        }
    }

    @Test("the escaping helpers")
    func escapingHelpers() {
        #expect(HTMLText.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(
            HTMLText.scriptJSON("{\"a\":\"</script><!--&\u{2028}\"}")
                == "{\"a\":\"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\"}")
    }

    @Test("SHA-256 test vectors")
    func sha256() {
        #expect(SHA256.base64Digest(of: []) == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
        #expect(SHA256.base64Digest(of: Array("abc".utf8)) == "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(
            SHA256.digest(of: long).map { String(format: "%02x", $0) }.joined()
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.digest(of: million).map { String(format: "%02x", $0) }.joined()
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

/// The page in a real browser: headless Chromium runs its script, and the test reads the DOM.
@Suite(
    "html in headless Chromium", .serialized,
    .enabled(
        if: Chromium.shouldRun,
        "chromium is not installed (apt-get install -y chromium); with CI set this test fails instead of skipping"))
struct HTMLChromiumTests {
    @Test("the findings render with no script error")
    func rendersFindings() async throws {
        try await withTemporaryDirectory { directory in
            let run = runTool(["html", Fixtures.url("shop-report.json").path, "-o", "page.html"], in: directory.path)
            #expect(run.code == 0)
            guard let page = try await Chromium.load(directory.appendingPathComponent("page.html").absoluteString)
            else { return }
            #expect(
                page.bodyAttribute("data-status") == "ready",
                "the page's script finished; error: \(page.bodyAttribute("data-error") ?? "none")")
            #expect(page.bodyAttribute("data-error") == nil)
            #expect(page.bodyAttribute("data-groups-total") == "7")
            #expect(page.bodyAttribute("data-groups-rendered") == "7")
            #expect(page.bodyAttribute("data-findings-rendered") == "8")
            #expect(!page.log.contains("Uncaught"), "no uncaught exception in the console")
            #expect(!page.log.contains("Content Security Policy"), "nothing blocked by the CSP")
            // Findings are expandable <details> with their stacks; user frames highlighted, the rest folded.
            #expect(page.dom.components(separatedBy: "<details class=\"finding\" data-severity=").count - 1 == 7)
            #expect(page.dom.contains("data-fingerprint=\"3fa2c9d1e0b4a7f8\""))
            #expect(page.dom.contains("<li class=\"user\">▸ #0 Shop.CartViewModel.bind(to: Shop.CartService) -&gt; ()"))
            #expect(page.dom.contains("⋯ 6 framework and system frames (ShopPackageTests.xctest, XCTest, libc.so.6)"))
            #expect(page.dom.contains("<option value=\"leakedSubscription\">leakedSubscription</option>"))
        }
    }

    @Test("a folded chain lists its stages, the cause marked")
    func rendersAChain() async throws {
        try await withTemporaryDirectory { directory in
            try FoldedChainGateTests.chainReport().encoded(prettyPrinted: false)
                .write(to: directory.appendingPathComponent("chain.json"))
            let run = runTool(["html", "chain.json", "-o", "page.html"], in: directory.path)
            #expect(run.code == 0, "\(run.stderr)")
            guard let page = try await Chromium.load(directory.appendingPathComponent("page.html").absoluteString)
            else { return }
            #expect(page.bodyAttribute("data-error") == nil)
            #expect(page.dom.contains("<h4>chain of 2 stages, upstream first:</h4>"), "\(page.dom.prefix(0))")
            #expect(page.dom.contains("Empty&lt;Int, Never&gt; (inner of FlatMap), the cause: made at "))
        }
    }

    @Test("filters from the URL fragment: kind, severity, test, label and free text")
    func filters() async throws {
        try await withTemporaryDirectory { directory in
            let run = runTool(["html", Fixtures.url("shop-report.json").path, "-o", "page.html"], in: directory.path)
            #expect(run.code == 0)
            let url = directory.appendingPathComponent("page.html").absoluteString
            let cases: [(String, String)] = [
                ("kind=leakedSubscription", "1"), ("severity=warning", "6"), ("severity=error", "5"),
                ("test=ShopTests.CartViewModelTests.testRefreshCancelsPreviousRequest()", "2"), ("label=image", "3"),
                ("q=didreceive", "3"), ("q=3fa2c9d1", "1"), ("kind=wrongThread&q=nothing-matches", "0"),
            ]
            for (fragment, matching) in cases {
                guard let page = try await Chromium.load(url + "#" + fragment) else { return }
                #expect(page.bodyAttribute("data-status") == "ready", "\(fragment)")
                #expect(page.bodyAttribute("data-groups-matching") == matching, "\(fragment)")
                #expect(page.bodyAttribute("data-groups-rendered") == matching, "\(fragment)")
            }
        }
    }

    @Test("hostile labels, symbols and test names are shown literally and nothing runs")
    func hostileReport() async throws {
        try await withTemporaryDirectory { directory in
            let run = runTool(
                ["html", Fixtures.url("hostile-report.json").path, "-o", "page.html"], in: directory.path)
            #expect(run.code == 0)
            guard let page = try await Chromium.load(directory.appendingPathComponent("page.html").absoluteString)
            else { return }
            #expect(page.bodyAttribute("data-status") == "ready")
            #expect(page.bodyAttribute("data-error") == nil)
            #expect(page.bodyAttribute("data-groups-rendered") == "7")
            // No payload ran: none set the attribute or the title.
            #expect(!page.dom.contains("data-pwned=\""), "no element gained data-pwned")
            #expect(!page.dom.contains("<title>pwned"))
            #expect(
                page.dom.contains(
                    "<title>ReactiveDiagnostics: Hostile&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;</title>"
                ))
            #expect(!page.dom.contains("<img"), "no image element was created")
            #expect(!page.dom.contains("<iframe"), "no frame element was created")
            #expect(!page.dom.contains("<b>"), "no markup from data")
            // The strings are there, as text.
            let literal = [
                "&lt;script&gt;document.documentElement.setAttribute('data-pwned','script')&lt;/script&gt;",
                "Shop.Repository&lt;Shop.Item&lt;A&gt;&gt;.load&lt;B where B: Swift.Sequence&gt;",
                "ShopTests.Hostile\"&gt;&lt;img src=x onerror=\"document.documentElement.setAttribute('data-pwned','img')\"&gt;",
                "value after termination &lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;",
                "&lt;b&gt;wrongThread&lt;/b&gt;&lt;svg onload=",
                "&amp;lt;b&amp;gt;not bold&amp;lt;/b&amp;gt;",
            ]
            for text in literal {
                #expect(page.dom.contains(text), "shown literally: \(text)")
            }
            #expect(!page.log.contains("Uncaught"))
        }
    }
}
