package import Foundation

/// Finds the programs that resolve source lines: `llvm-symbolizer` and `swift-demangle`.
///
/// The one beside the `swift` found on `PATH` comes first (the toolchain that built the tests
/// reads its own debug information best), then the first on `PATH`.
///
/// ```swift
/// if let symbolizer = SymbolizerLocator.find("llvm-symbolizer", environment: ProcessInfo.processInfo.environment) {
///     print(symbolizer.path)
/// }
/// ```
package enum SymbolizerLocator {
    /// The environment variable that names the symbolizer, or `none` to resolve no line.
    package static let environmentKey = "REACTIVE_DIAGNOSTICS_SYMBOLIZER"

    /// `name` beside `swift` on `PATH`, else on `PATH`; `nil` when there is none.
    package static func find(_ name: String, environment: [String: String]) -> URL? {
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        let files = FileManager.default
        var candidates: [String] = []
        if let swift = directories.map({ $0 + "/swift" }).first(where: files.isExecutableFile(atPath:)) {
            let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(real.appendingPathComponent(name).path)
        }
        candidates += directories.map { $0 + "/" + name }
        return candidates.first(where: files.isExecutableFile(atPath:)).map { URL(fileURLWithPath: $0) }
    }

    /// The first executable `name` on `PATH` alone.
    package static func onPath(_ name: String, environment: [String: String]) -> URL? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        return nil
    }
}
