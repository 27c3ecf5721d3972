import Foundation
import ReactiveDiagTool
import ReactiveDiagnosticsReport

/// One fuzz input: whatever the bytes are, reading them must end in a report or a one-line
/// error, never a crash, a hang or a lost finding.
///
/// - The bytes are read as a report and as a crash journal.
/// - A report that is accepted must survive a write/read cycle unchanged.
/// - An accepted report is shown, gated and rendered as HTML by `reactive-diag` in-process
///   (every command must return 0, 1 or 2).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let report = try? DiagnosticsReport.decode(data, source: "fuzz") {
        check(report)
    }
    if let report = try? DiagnosticsReport.rebuild(fromJournal: data, source: "fuzz") {
        check(report)
    }
    return 0
}

private func check(_ report: DiagnosticsReport) {
    guard let encoded = try? report.encoded() else {
        fatalError("an accepted report could not be written again")
    }
    let again: DiagnosticsReport
    do {
        again = try DiagnosticsReport.decode(encoded, source: "round trip")
    } catch {
        fatalError("a report written by this library is rejected: \(error)")
    }
    precondition(again == report, "a report changed in a write/read cycle")
    Views.exercise(encoded)
}

/// Runs the tool's commands on a report, in-process, with output discarded.
enum Views {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rd-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func exercise(_ report: Data) {
        let file = directory.appendingPathComponent("input.json")
        guard (try? report.write(to: file)) != nil else { return }
        for arguments in [
            ["show", file.path, "--no-symbolize"], ["show", file.path, "--format", "json", "--no-symbolize"],
            ["gate", file.path, "--fail-on", "info"],
            ["html", file.path, "-o", directory.appendingPathComponent("page.html").path, "--no-symbolize"],
        ] {
            let status = ReactiveDiag.run(arguments: arguments, stdout: DiscardingSink(), stderr: DiscardingSink())
            precondition((0...2).contains(status), "reactive-diag \(arguments[0]) exited \(status)")
        }
    }
}

/// An output sink that keeps nothing.
final class DiscardingSink: OutputSink, @unchecked Sendable {
    var isTerminal: Bool { false }
    func write(_ text: String) {}
    func flush() {}
}
