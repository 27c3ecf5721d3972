import Foundation

/// Writes a command's output file atomically: readers never see half a file.
enum OutputFile {
    /// Writes `data` to `path` (relative to the context's directory).
    ///
    /// - Throws: ``ToolError`` naming the file (exit 2).
    static func write(_ data: Data, to path: String, in context: ToolContext) throws {
        let url = context.url(for: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw ToolError.cannotWrite(path, error)
        }
    }

    /// Writes `text` as UTF-8.
    static func write(_ text: String, to path: String, in context: ToolContext) throws {
        try write(Data(text.utf8), to: path, in: context)
    }
}
