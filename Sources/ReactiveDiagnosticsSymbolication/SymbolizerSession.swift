import Foundation
import _ReactiveDiagnosticsProcess

/// One `llvm-symbolizer` kept running per image for the questions a test process asks while
/// it runs (a finding's source lines, a closure's line and captures' names, a global's name):
/// it reads the image's debug information once and costs one start-up an image and process,
/// where a child per question cost about 20 ms each (two a closure, one a failing test).
/// Queries name their image (`CODE "image" 0x…`, `FRAME "image" 0x…`, `DATA "image" 0x…`).
/// A child ends with the process (it reads the end of its input): at most one per image the
/// process symbolized, so a few (the test binary, a library or two).
///
/// A child that stops answering is started again, at most ``restartLimit`` times a process;
/// after that every query answers `nil` (the explanation goes on without source lines).
///
/// ```swift
/// let session = SymbolizerSession.shared(symbolizer: "/usr/bin/llvm-symbolizer", image: "/path/MyTests.xctest")
/// let answer = session.query(#"CODE "/path/MyTests.xctest" $s7MyTests…fU_"#)
/// print(answer?["Loc"] ?? "unknown")
/// ```
package final class SymbolizerSession: Sendable {
    /// How many times a child that stopped answering is replaced.
    package static let restartLimit = 2

    private static let sessions = LockedSessions()

    /// The session running `symbolizer` for `image`, started on its first query.
    package static func shared(symbolizer: String, image: String) -> SymbolizerSession {
        sessions.session(for: symbolizer + "\u{0}" + image)
    }

    package let symbolizer: String
    /// Seconds one query may take (the first one of an image reads its debug information).
    package let timeout: Double
    private let state = LockedState()

    package init(symbolizer: String, timeout: Double = 30) {
        self.symbolizer = symbolizer
        self.timeout = timeout
    }

    /// llvm-symbolizer's JSON answer to `query` within `timeout` seconds (the session's own
    /// by default), or `nil` when it gave none.
    package func query(_ query: String, timeout: Double? = nil) -> [String: Any]? {
        guard let line = state.ask(query, symbolizer: symbolizer, timeout: timeout ?? self.timeout),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            object["Error"] == nil
        else { return nil }
        return object
    }

    /// `image` quoted for a query line (llvm-symbolizer takes a path with spaces in quotes).
    package static func quoted(_ image: String) -> String {
        "\"" + image + "\""
    }

    /// Ends the child, if one runs (the next query starts another).
    package func close() {
        state.close()
    }
}

/// The running child and how many were started; one query at a time.
private final class LockedState: @unchecked Sendable {
    private let lock = NSLock()
    private var session: LineSession?
    private var starts = 0

    func ask(_ query: String, symbolizer: String, timeout: Double) -> String? {
        lock.withLock {
            if session?.isOpen != true {
                session = nil
                guard starts <= SymbolizerSession.restartLimit else { return nil }
                starts += 1
                session = try? LineSession(
                    symbolizer, arguments: ["--output-style=JSON", "--functions=linkage", "--no-demangle"])
            }
            return session?.ask(query, timeout: timeout)
        }
    }

    func close() {
        lock.withLock {
            session?.close()
            session = nil
        }
    }
}

/// The shared sessions, one per symbolizer program and image.
private final class LockedSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [String: SymbolizerSession] = [:]

    func session(for key: String) -> SymbolizerSession {
        lock.withLock {
            if let session = sessions[key] { return session }
            let symbolizer = String(key[..<(key.firstIndex(of: "\u{0}") ?? key.endIndex)])
            let session = SymbolizerSession(symbolizer: symbolizer)
            sessions[key] = session
            return session
        }
    }
}
