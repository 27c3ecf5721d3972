/// Why an image's frames were not resolved, and the notes that say so.
package struct ImageProblem: Error, Equatable, Sendable {
    /// What went wrong.
    package enum Kind: Equatable, Sendable {
        /// The binary is not on this machine (or not readable).
        case missing
        /// The binary on disk is not the one the report came from.
        case buildIDMismatch(recorded: String, onDisk: String?)
        /// llvm-symbolizer could not run, failed or timed out.
        case failed(String)
    }

    /// Creates a problem.
    package init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// The image's path.
    package var path: String
    /// What went wrong.
    package var kind: Kind

    /// Notes in a deterministic order: missing binaries summarized in one line, then one
    /// line per mismatch or failure, by path.
    package static func notes(for problems: [ImageProblem]) -> [String] {
        var notes: [String] = []
        let missing = problems.filter { $0.kind == .missing }.map(\.path).sorted()
        if let first = missing.first {
            let count = missing.count == 1 ? "1 binary" : "\(missing.count) binaries"
            notes.append(
                "\(first): not on this machine; file:line not resolved for the frames of \(count)"
                    + (missing.count > 1 ? " (this one first)" : ""))
        }
        for problem in problems.sorted(by: { $0.path < $1.path }) {
            switch problem.kind {
            case .missing:
                continue
            case .buildIDMismatch(let recorded, let onDisk):
                notes.append(
                    "\(problem.path): build id on disk (\(onDisk ?? "none")) differs from the report's "
                        + "(\(recorded)): a different binary; its frames keep no file:line")
            case .failed(let reason):
                notes.append("\(problem.path): \(reason); its frames keep no file:line")
            }
        }
        return notes
    }
}
