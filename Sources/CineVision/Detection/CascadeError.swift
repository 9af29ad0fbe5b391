// CascadeError: what went wrong reading a cascade file or running a detector, with the file and element.

/// An error from loading an OpenCV cascade or running a ``CascadeDetector``.
///
/// Errors about a file name the file, the line and the XML element, so that a user can open it
/// and see what is wrong.
public struct CascadeError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The cascade file (or `"<memory>"` for text parsed from memory).
    public var file: String
    /// 1-based line of the offending element, or 0 if not about one place.
    public var line: Int
    /// The element path, e.g. `cascade/stages/_[3]/stageThreshold`.
    public var element: String
    /// What is wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int = 0, element: String = "", _ message: String) {
        self.file = file
        self.line = line
        self.element = element
        self.message = message
    }

    /// `file:line: <element>: message`.
    public var description: String {
        var s = file
        if line > 0 { s += ":\(line)" }
        if !element.isEmpty { s += ": <\(element)>" }
        return s + ": " + message
    }
}
