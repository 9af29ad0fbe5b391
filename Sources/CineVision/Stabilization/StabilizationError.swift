// StabilizationError: what can be wrong with a frame or a setting given to the stabilizer, said
// plainly and with what to do about it.

/// Why a stabilizer stage (motion estimation, path smoothing, warp, test clip) refused its input.
public enum StabilizationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame has no pixels.
    case emptyFrame(width: Int, height: Int)
    /// Two frames that must match in size do not.
    case sizeMismatch(expectedWidth: Int, expectedHeight: Int, width: Int, height: Int)
    /// Two frames that must match in pixel format do not.
    case formatMismatch(expected: String, got: String)
    /// The stage cannot read this pixel format.
    case unsupportedFormat(String, supported: String)
    /// The lookahead window is longer than the memory bound allows.
    case lookaheadTooLong(frames: Int, limit: Int)
    /// A setting is out of range.
    case invalidSetting(field: String, message: String)

    public var description: String {
        switch self {
        case let .emptyFrame(w, h):
            return "the frame is \(w)x\(h); the stabilizer needs a frame with pixels"
        case let .sizeMismatch(ew, eh, w, h):
            return
                "the frame is \(w)x\(h) but the stabilizer was set up for \(ew)x\(eh); all frames of a clip need the same size"
        case let .formatMismatch(e, g):
            return "the frame is \(g) but the previous frame was \(e); all frames of a clip need the same pixel format"
        case let .unsupportedFormat(f, supported):
            return "pixel format \(f) is not supported here; use \(supported)"
        case let .lookaheadTooLong(n, limit):
            return
                "a lookahead of \(n) frames exceeds the memory bound of \(limit) frames; choose a shorter lookahead or a lighter mode"
        case let .invalidSetting(field, message):
            return "\(field): \(message)"
        }
    }
}
