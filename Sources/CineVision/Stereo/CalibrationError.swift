// CalibrationError: a stereo calibration that cannot be read or does not add up, naming the
// file and the field.

/// Why a calibration file was rejected.
public struct CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (path as given).
    public var file: String
    /// The field (`K1`, `camera_matrix`, …), or `nil` for the file as a whole.
    public var field: String?
    /// What is wrong and what to do.
    public var message: String

    /// Creates an error about `field` in `file`.
    public init(file: String, field: String?, _ message: String) {
        self.file = file
        self.field = field
        self.message = message
    }

    /// `file: field: message`.
    public var description: String { [file, field, message].compactMap { $0 }.joined(separator: ": ") }
}
