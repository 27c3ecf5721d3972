/// A position in a source file, read from a frame's debug line table.
package struct SourceLine: Hashable, Sendable {
    /// The absolute path of the source file.
    package var file: String
    /// The line, from 1.
    package var line: Int
    /// The column, from 1; 0 when the line table does not say.
    package var column: Int

    /// Creates a position.
    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
}
