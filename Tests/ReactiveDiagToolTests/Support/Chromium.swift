import Foundation
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
            guard let body = dom.range(of: "<body"), let end = dom[body.upperBound...].firstIndex(of: ">") else { return nil }
            let tag = dom[body.upperBound..<end]
            guard let start = tag.range(of: " \(attribute)=\"") else { return nil }
            let value = tag[start.upperBound...]
            return value.firstIndex(of: "\"").map { String(value[..<$0]) }
        }
    }

    /// Loads `url` headless, lets its scripts run, and returns the DOM and the log.
    static func load(_ url: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Page? {
        guard let path else {
            Issue.record("CI is set but chromium is not installed: apt-get install -y chromium", sourceLocation: sourceLocation)
            return nil
        }
        return try withTemporaryDirectory { profile in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.path)", "--enable-logging=stderr", "--v=0",
                "--virtual-time-budget=5000", "--dump-dom", url,
            ]
            let output = Pipe()
            let log = profile.appendingPathComponent("chromium.log")
            #expect(FileManager.default.createFile(atPath: log.path, contents: nil))
            process.standardOutput = output
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
            let killer = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: killer)
            let dom = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            killer.cancel()
            #expect(process.terminationStatus == 0, "chromium exited with \(process.terminationStatus)", sourceLocation: sourceLocation)
            return Page(dom: dom, log: try readText(log))
        }
    }
}
