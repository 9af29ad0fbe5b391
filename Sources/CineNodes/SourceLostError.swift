// SourceLostError: a source that stops in the middle of a take — a camera unplugged, a file cut
// short — ends the run with this error; the runner still finishes every node, so every output
// is finalized with what was captured.
import CineGraph

/// A source stopped delivering frames before its stream was complete.
public struct SourceLostError: Error, Sendable, CustomStringConvertible {
    /// What stopped and why, for the user.
    public let message: String

    /// Creates the error from a complete sentence.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
