import Foundation

extension ReportView {
    /// The view with each group's ``GroupView/source``: the culprit's file and line and, when the
    /// file is readable here, `context` lines on either side (each file read once).
    func withSourceExcerpts(context: Int = 2, currentDirectory: String) -> ReportView {
        var view = self
        var files: [String: [String]?] = [:]
        for position in view.groups.indices {
            guard let culprit = view.groups[position].culprit, let stack = view.stack(culprit.stack),
                culprit.frame < stack.frames.count
            else { continue }
            let frame = stack.frames[culprit.frame]
            guard let file = frame.file, let line = frame.line, line > 0 else { continue }
            if files[file] == nil { files[file] = .some(Self.readLines(file)) }
            let text = files[file] ?? nil
            var excerpt = SourceExcerpt(
                file: file, path: Self.display(file, under: currentDirectory), line: line, column: frame.column,
                firstLine: line, lines: [])
            if let text, line <= text.count {
                let first = max(1, line - context)
                let last = min(text.count, line + context)
                excerpt.firstLine = first
                excerpt.lines = Array(text[(first - 1)..<last])
            }
            view.groups[position].source = excerpt
        }
        return view
    }

    /// The lines of a text file of at most 8 MiB; `nil` when it cannot be read.
    private static func readLines(_ path: String) -> [String]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue, size <= 8 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
    }

    /// `path` relative to `directory` when it is under it.
    static func display(_ path: String, under directory: String) -> String {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
