import CombineDiagnostics
import Foundation
import OpenCombineShim
import ReactiveDiagFix
import ReactiveDiagTool
import ReactiveDiagnosticsReport
import Testing

/// What every shape subscribes to: never completes.
final class ShapeFeed {
    let values = PassthroughSubject<Int, Never>()
}

/// Something a shape's closure already captures by name.
final class ShapeLog {
    func record(_ value: Int) {}
}

extension CombineAdapterTests {
    /// `reactive-diag fix` on real leaks: the shapes of FixShapes.swift leak under global
    /// instrumentation, the fixer's edits to that file are FixShapesFixed.swift (with the
    /// classes' prefix `Leaky` read as `Fixed`; it compiles, here), and the fixed shapes leave
    /// nothing behind: no leak, no cycle. After changing FixShapes.swift, run
    /// `UPDATE_GENERATED=1 swift test --filter FixedShapes` and read the new FixShapesFixed.swift.
    @Suite struct FixedShapes {
        static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        static let leakyFile = directory.appendingPathComponent("FixShapes.swift")
        static let fixedFile = directory.appendingPathComponent("FixShapesFixed.swift")

        /// `text` with `replacements` applied (1-based lines and columns, counted in Unicode scalars).
        static func applying(_ replacements: [SourceReplacement], to text: String) -> String {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                Array(String($0).unicodeScalars)
            }
            let sorted = replacements.sorted { ($0.startLine, $0.startColumn) > ($1.startLine, $1.startColumn) }
            for replacement in sorted {
                let first = lines[replacement.startLine - 1]
                let last = lines[replacement.endLine - 1]
                let joined =
                    String(String.UnicodeScalarView(first[..<(replacement.startColumn - 1)])) + replacement.insertedText
                    + String(String.UnicodeScalarView(last[(replacement.endColumn - 1)...]))
                let replaced = joined.split(separator: "\n", omittingEmptySubsequences: false).map {
                    Array(String($0).unicodeScalars)
                }
                lines.replaceSubrange((replacement.startLine - 1)...(replacement.endLine - 1), with: replaced)
            }
            return lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
        }

        @Test func theFixerMakesTheFixedShapesAndTheyLeakNothing() throws {
            let engine = retainPathEngine()
            let feed = ShapeFeed()
            let outcome = instrumented(engine) { _ in
                runTest(engine, "FixedShapes.leaky") {
                    _ = LeakyTrailingShape(feed: feed)
                    _ = LeakyLabelledShape(feed: feed)
                    _ = LeakyMultiStatementShape(feed: feed)
                    _ = LeakyCaptureListShape(feed: feed)
                    _ = LeakyAssignShape(feed: feed)
                }
            }
            let leaks = outcome.findings.filter { $0.kind == .leakedSubscription }
            #expect(leaks.count == 5, "\(leaks.map { engine.describe($0) })")
            #expect(leaks.allSatisfy { $0.retainPath?.verdict == .cycle }, "\(leaks.map { engine.describe($0) })")
            #expect(leaks.allSatisfy { $0.test.name == "CombineAdapterTests.FixedShapes.leaky" })

            // The fixer, on the engine's own report of those leaks.
            let report = engine.makeReport()
            let ids = Set(leaks.map(\.id))
            let findings = report.findings.filter { ids.contains($0.id) }
            let outcomes = FindingFixer(displayRoot: Self.directory.path).outcomes(for: findings, in: report)
            #expect(outcomes.allSatisfy { if case .fix = $0 { true } else { false } }, "\(outcomes.map(\.sentence))")
            let replacements = outcomes.flatMap(\.files).filter { $0.file.hasSuffix("FixShapes.swift") }
                .flatMap(\.replacements)
            let leaky = try String(contentsOf: Self.leakyFile, encoding: .utf8)
            let fixed = Self.applying(replacements, to: leaky).replacingOccurrences(of: "Leaky", with: "Fixed")
            if ProcessInfo.processInfo.environment["UPDATE_GENERATED"] == "1" {
                try fixed.write(to: Self.fixedFile, atomically: true, encoding: .utf8)
            } else {
                let expected = try String(contentsOf: Self.fixedFile, encoding: .utf8)
                #expect(
                    fixed == expected,
                    "FixShapesFixed.swift is not what the fixer makes of FixShapes.swift: run UPDATE_GENERATED=1 swift test --filter FixedShapes"
                )
            }

            // What the fixer wrote, compiled into this target, run the same way: nothing leaks.
            let fixedEngine = retainPathEngine()
            let fixedOutcome = instrumented(fixedEngine) { _ in
                runTest(fixedEngine, "FixedShapes.fixed") {
                    _ = FixedTrailingShape(feed: feed)
                    _ = FixedLabelledShape(feed: feed)
                    _ = FixedMultiStatementShape(feed: feed)
                    _ = FixedCaptureListShape(feed: feed)
                    _ = FixedAssignShape(feed: feed)
                }
            }
            #expect(fixedOutcome.findings.isEmpty, "\(fixedOutcome.findings.map { fixedEngine.describe($0) })")
            feed.values.send(completion: .finished)
        }
    }
}
