// SourceLocation: where a piece of configuration was written.

/// A position in a config file (1-based line and column), or a command-line origin.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file name as given (or a pseudo-name such as `--set`).
    public var file: String
    /// 1-based line; 0 when unknown.
    public var line: Int
    /// 1-based column; 0 when unknown.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or just the file when the position is unknown.
    public var description: String { line > 0 ? "\(file):\(line):\(column)" : file }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}
