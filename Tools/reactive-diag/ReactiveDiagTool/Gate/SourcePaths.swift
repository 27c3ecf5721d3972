import Foundation

/// Turns the source paths in stacks into what CI systems want: paths relative to the
/// repository (`--source-root`, by default the working directory).
///
/// ```swift
/// let paths = SourcePaths(root: "/home/ci/app")
/// paths.relative("/home/ci/app/Sources/Cart.swift")   // "Sources/Cart.swift"
/// paths.relative("/usr/include/stdio.h")           // nil
/// ```
struct SourcePaths {
    /// The absolute root, without a trailing slash.
    let root: String

    /// Creates paths relative to `root` (made absolute against `context`'s directory).
    init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    /// `file` relative to the root, or `nil` when it is outside.
    func relative(_ file: String) -> String? {
        guard file.hasPrefix("/") else { return file }
        let prefix = root == "/" ? "/" : root + "/"
        guard file.hasPrefix(prefix), file.count > prefix.count else { return nil }
        return String(file.dropFirst(prefix.count))
    }

    /// The path to show CI: relative when under the root, else as it is.
    func display(_ file: String) -> String {
        relative(file) ?? file
    }

    /// The root as a `file://` URI ending in `/` (SARIF `originalUriBaseIds`).
    var rootURI: String {
        "file://" + Self.encode(root == "/" ? "/" : root + "/")
    }

    /// Percent-encodes a path for a URI.
    static func encode(_ path: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/!$&'()*+,;=:@")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}
