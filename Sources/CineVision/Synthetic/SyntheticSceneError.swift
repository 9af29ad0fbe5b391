// SyntheticSceneError: why a synthetic-scene configuration cannot be used.

/// A configuration value of a ``SyntheticScene`` that is out of range.
public struct SyntheticSceneError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The configuration field at fault, for example `fps`.
    public var field: String
    /// What is wrong and what would be accepted.
    public var message: String

    /// Creates an error about `field`.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// `synthetic scene: FIELD: MESSAGE`, for a terminal.
    public var description: String { "synthetic scene: \(field): \(message)" }
}
