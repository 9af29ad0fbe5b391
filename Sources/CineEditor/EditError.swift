// EditError: an edit the editor refuses — what was wrong, and which kind of refusal it is, so
// the HTTP API can answer 400, 404 or 409.
import Foundation

/// An edit that cannot be made, with a sentence that says why and what to do instead.
public struct EditError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which kind of refusal.
    public enum Kind: Sendable, Hashable {
        /// The request itself is wrong (a time outside the take, a bad f-number, a broken file).
        case invalid
        /// What the request names is not there (no decision at that time, no such subject).
        case notFound
        /// Another tab holds the take, or there is nothing to undo / redo.
        case conflict
    }

    /// Which kind of refusal.
    public var kind: Kind
    /// What was wrong, in a sentence.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
