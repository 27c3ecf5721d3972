import Foundation
import ReactiveDiagnosticsTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium (the Debian `chromium` package) for tests that open the HTML page.
enum Chromium {
    /// The browser: `CHROMIUM` when set (to a path; a path that is not executable means none),
    /// else the first Chromium or Chrome on PATH.
    static let path: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["CHROMIUM"] {
            return FileManager.default.isExecutableFile(atPath: explicit) ? explicit : nil
        }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
            for directory in directories {
                let candidate = directory + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    /// Whether the tests run in CI (then a missing browser is a failure, not a skip).
    static var isCI: Bool {
        ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false
    }

    /// Whether browser tests run: with a browser, or in CI (where its absence fails them).
    static var shouldRun: Bool {
        path != nil || isCI
    }

    /// What the browser produced for one page.
    struct Page {
        /// The DOM after the page's scripts ran (`--dump-dom`).
        var dom: String
        /// The browser's log (console messages with `--enable-logging=stderr`).
        var log: String

        /// The value of `attribute` on `<body>`.
        func bodyAttribute(_ attribute: String) -> String? {
            guard let body = dom.range(of: "<body"), let end = dom[body.upperBound...].firstIndex(of: ">") else {
                return nil
            }
            let tag = dom[body.upperBound..<end]
            guard let start = tag.range(of: " \(attribute)=\"") else { return nil }
            let value = tag[start.upperBound...]
            return value.firstIndex(of: "\"").map { String(value[..<$0]) }
        }
    }

    /// Loads `url` headless, lets its scripts run, and returns the DOM and the log.
    static func load(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Page? {
        guard let path else {
            Issue.record(
                "CI is set but chromium is not installed: apt-get install -y chromium", sourceLocation: sourceLocation)
            return nil
        }
        let profile = try TemporaryDirectory("rd-chromium")
        let result = try await ProcessRunner.run(
            path,
            arguments: [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.url.path)", "--enable-logging=stderr", "--v=0",
                "--virtual-time-budget=5000", "--dump-dom", url,
            ], timeout: .seconds(90))
        #expect(result.status == 0, "chromium exited with \(result.status)", sourceLocation: sourceLocation)
        return Page(dom: result.standardOutput, log: result.standardError)
    }
}
