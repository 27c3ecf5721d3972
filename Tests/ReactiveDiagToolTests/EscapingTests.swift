import Foundation
import FoundationXML
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

@Suite("escaping")
struct EscapingTests {
    @Test("GitHub workflow commands: data escapes % CR LF; properties also : and ,")
    func githubAnnotations() {
        #expect(GitHubAnnotations.escapeData("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b")
        #expect(GitHubAnnotations.escapeProperty("Sources/a:b,c%.swift\n") == "Sources/a%3Ab%2Cc%25.swift%0A")
        #expect(GitHubAnnotations.escapeData("%0A") == "%250A", "an already escaped sequence stays literal")
    }

    @Test("annotations of hostile findings stay one line each and keep their properties apart")
    func hostileAnnotations() throws {
        let run = runTool(["gate", "hostile-report.json", "--github-annotations", "--source-root", "/src/shop"])
        #expect(run.code == 1)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 5, "one per new fingerprint")
        for line in lines {
            #expect(line.hasPrefix("::error "))
            let properties = line.dropFirst("::error ".count).prefix { $0 != ":" }
            for property in properties.split(separator: ",") {
                #expect(
                    ["file", "line", "col", "title"].contains(
                        property.split(separator: "=").first.map(String.init) ?? ""),
                    "\(property)")
            }
        }
        #expect(
            run.stdout.contains(
                "file=Sources/\"><img src=x onerror=\"document.documentElement.setAttribute('data-pwned'%2C'img')\">.swift"
            ))
    }

    @Test("XML text and attributes: entities, and control characters XML 1.0 forbids")
    func xml() {
        #expect(XMLText.escape("<a b=\"c\">'&'</a>") == "&lt;a b=&quot;c&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;")
        #expect(XMLText.escape("line\nnext\u{1B}[31m\u{0}", attribute: true) == "line&#10;next\u{FFFD}[31m\u{FFFD}")
        #expect(XMLText.escape("line\nnext") == "line\nnext")
    }

    @Test("JUnit of a hostile report is well-formed XML that keeps the strings")
    func junitParses() throws {
        try withTemporaryDirectory { directory in
            let run = runTool(
                ["gate", Fixtures.url("hostile-report.json").path, "--junit", "j.xml"], in: directory.path)
            #expect(run.code == 1)
            let document = try XMLDocument(contentsOf: directory.appendingPathComponent("j.xml"))
            let suite = try #require(document.rootElement())
            #expect(suite.name == "testsuite")
            #expect(suite.attribute(forName: "tests")?.stringValue == "6")
            #expect(suite.attribute(forName: "failures")?.stringValue == "6")
            let cases = suite.elements(forName: "testcase")
            #expect(cases.count == 6)
            let names = cases.compactMap { $0.attribute(forName: "name")?.stringValue }
            #expect(
                names.contains(
                    "leakedSubscription \"<script>document.documentElement.setAttribute('data-pwned','script')</script>\""
                ))
            let classNames = cases.compactMap { $0.attribute(forName: "classname")?.stringValue }
            #expect(
                classNames.contains(
                    "ShopTests.Hostile\"><img src=x onerror=\"document.documentElement.setAttribute('data-pwned','img')\">"
                ))
            let failure = try #require(cases.first?.elements(forName: "failure").first)
            #expect(
                failure.stringValue?.contains("allocated at") == true
                    || failure.stringValue?.contains("event at") == true)
        }
    }

    @Test("report strings cannot steer the terminal: control characters and bidi overrides are made visible")
    func terminal() {
        #expect(TerminalText.sanitize("cart\u{1B}]0;pwned\u{07}") == "cart^[]0;pwned^G")
        #expect(TerminalText.sanitize("a\tb\nc\u{7F}\u{9B}2J") == "a b c^?\\u{9B}2J")
        #expect(TerminalText.sanitize("admin\u{202E}txt.exe") == "admin\\u{202E}txt.exe")
        #expect(TerminalText.sanitize("Shop.Cart<A> ✓") == "Shop.Cart<A> ✓")

        try? withTemporaryDirectory { directory in
            var report = try ReportFixtures.load("shop-report.json")
            report.findings[0].label = "cart\u{1B}[2J\u{1B}]0;owned\u{07}"
            report.findings[0].message = "red \u{1B}[31malert"
            try ReportFixtures.write(report, to: directory.appendingPathComponent("escape.json"))
            let show = runTool(["show", "escape.json", "--color", "never"], in: directory.path)
            #expect(show.code == 0)
            #expect(!show.stdout.contains("\u{1B}"), "no escape character reaches the terminal")
            #expect(show.stdout.contains("\"cart^[[2J^[]0;owned^G\""))
            let gate = runTool(["gate", "escape.json", "--color", "never"], in: directory.path)
            #expect(!gate.stderr.contains("\u{1B}"))
            let json = runTool(["show", "escape.json", "--format", "json"], in: directory.path)
            #expect(json.stdout.contains("cart\\u001b[2J"), "the JSON view keeps the exact string, escaped as JSON")
        }
    }
}
