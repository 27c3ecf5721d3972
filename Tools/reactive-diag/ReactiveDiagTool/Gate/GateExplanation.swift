import ReactiveDiagnosticsReport

/// Why a finding's resource is still alive and what to change, as the gate's outputs carry it
/// (annotations, SARIF, JUnit, the job summary): the retain path in one line, the fix sentence,
/// and the line to change (the closure that closes the cycle) when there is one.
///
/// ```swift
/// if let explanation = GateExplanation(finding) {
///     print(explanation.lines(paths: paths).joined(separator: "\n"))
///     // why: retain cycle: CartViewModel.cancellables → Sink<…> → closure at CartViewModel.swift:41 captures self
///     // fix: capture [weak self] in the closure at CartViewModel.swift:41 (…)
/// }
/// ```
struct GateExplanation {
    /// The retain path in one line.
    var why: String
    /// What to change, when the path says.
    var fix: String?
    /// The closure to change, when the fix names one with a source line.
    var change: ReportClosure?

    /// The explanation of `finding`, or `nil` when it has none.
    init?(_ finding: ReportFinding) {
        guard let path = finding.retainPath, path.verdict != .unknown else { return nil }
        why = path.summary
        fix = path.fix
        if let closure = path.closureToChange, closure.file != nil, (closure.line ?? 0) > 0 {
            change = closure
        }
    }

    /// `why: …` and `fix: …`.
    func lines() -> [String] {
        ["why: " + why] + (fix.map { ["fix: " + $0] } ?? [])
    }

    /// The line to change, relative to the source root: `Sources/Cart/CartViewModel.swift:41`.
    func changeLocation(paths: SourcePaths) -> String? {
        guard let change, let file = change.file, let line = change.line else { return nil }
        return "\(paths.display(file)):\(line)"
    }
}
